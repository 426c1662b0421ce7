package denied

import (
	"strconv"
	"strings"
)

// Line gives the record as the one line of its note in the thread
// denials, the tags first (docs/agents.md, "What it does"):
//
//	denied reason=R tool=T head="git push" role=lead user=... claim=-: INPUT
//
// role and claim are those of the session in riff who at the post.
func Line(rec Record, role, claim string) string {
	session := rec.Me.Session
	if len(session) > 8 {
		session = session[:8]
	}
	values := map[string]string{
		"reason": rec.Reason, "tool": rec.Tool, "head": rec.Head, "role": role,
		"user": rec.Me.User, "host": rec.Me.Host, "repo": string(rec.Me.Repo), "session": session, "claim": claim,
	}
	var b strings.Builder
	b.WriteString("denied")
	for _, k := range [...]string{"reason", "tool", "head", "role", "user", "host", "repo", "session", "claim"} {
		b.WriteString(" " + k + "=" + tagValue(values[k]))
	}
	b.WriteString(": " + rec.Input)
	return b.String()
}

// tagValue gives a value of a tag: as it is when it is one word, else in
// double quotes; - when empty.
func tagValue(v string) string {
	if v == "" {
		return "-"
	}
	if strings.ContainsAny(v, " \"=:\\") || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' }) {
		return strconv.Quote(v)
	}
	return v
}

// Parse reads a record line: its tags and its input. ok is false for a
// line that is no record, such as a note that a person wrote to the
// thread.
func Parse(body string) (tags map[string]string, input string, ok bool) {
	rest, found := strings.CutPrefix(body, "denied ")
	if !found {
		return nil, "", false
	}
	tags = map[string]string{}
	for {
		k, after, found := strings.Cut(rest, "=")
		if !found || k == "" || strings.ContainsAny(k, " :") {
			return nil, "", false
		}
		var v string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return nil, "", false
			}
			v, _ = strconv.Unquote(q)
			after = after[len(q):]
		} else {
			end := strings.IndexAny(after, " :")
			if end < 0 {
				return nil, "", false
			}
			v, after = after[:end], after[end:]
		}
		tags[k] = v
		if in, last := strings.CutPrefix(after, ": "); last {
			return tags, in, true
		}
		if after == ":" {
			return tags, "", true
		}
		if rest, found = strings.CutPrefix(after, " "); !found {
			return nil, "", false
		}
	}
}
