package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/secret"
	"github.com/como-technologies/riff/riffcore/wire"
)

// riff relay denied is the PermissionDenied hook of Claude Code: the hook
// that runs after the auto mode classifier refused a tool call (Claude
// Code 2.1.88 and later). It reads the input of the hook, keeps the
// refusal as a record in the local folder, starts riff relay denied
// --send detached, and ends with exit 0 at once: it never waits for
// riff-server. The detached sender posts each kept record, oldest first,
// as a note to the thread denials, and removes it once the server took
// it. So a record that the server did not take waits for the next
// refusal, which posts it first (the guide, "See the refusals of auto
// mode").

// The limits of a record.
const (
	// deniedInputMax is the most characters of the input in a record.
	deniedInputMax = 300
	// deniedReasonMax is the most characters of the reason tag.
	deniedReasonMax = 120
	// hookInputMax is the largest input of a hook that riff reads.
	hookInputMax = 1 << 20
	// deniedSendFor bounds the life of the detached sender: with a
	// server that accepts and never answers it still ends.
	deniedSendFor = 2 * time.Minute
	// deniedStale is the age after which a kept record is posted by the
	// person of its session, not the session: each call of a session is
	// a sign of life, and a session that ended since (a kill gives no
	// end) must not look live for 3 more minutes.
	deniedStale = time.Minute
)

// keptDir is the folder of the kept records in the local folder.
const keptDir = "denied"

// relayDenied is the entry riff relay denied of the group relay.
func relayDenied() command {
	return command{
		name: "denied", usage: "denied [--send]", short: "post a refusal of auto mode to the thread denials (a hook)",
		long: `The PermissionDenied hook of Claude Code: it runs after the auto mode
classifier refused a tool call, with the input of the hook on stdin. It
never waits for riff-server: it keeps the refusal as a record in the local
folder, starts riff relay denied --send detached, and exits 0 at once.

The sender posts each kept record, oldest first, as one note with tags to
the thread denials, then leaves the thread. When riff-server does not
answer, the record waits in the local folder, and the next refusal posts
it first. Each token of the session is [secret] in the record, and the
input is cut to 300 characters:

  denied reason=R tool=Bash head="git push" role=lead user=mike host=pangolin repo=OWNER/REPO session=25456ff6 claim=-: git push origin v3.2.0

The session is --session or RIFF_SESSION, else the session_id of the input;
the place is the cwd of the input. riff denials counts the records.
`,
		flags: func(fs *flag.FlagSet) action {
			send := fs.Bool("send", false, "post the kept records (riff starts this itself, detached)")
			return func(c *cli, ctx context.Context, args []string) error {
				if err := noArgs(args, "relay denied"); err != nil {
					return err
				}
				if *send {
					return c.sendDenied(ctx)
				}
				return c.relayDenied(ctx)
			}
		},
		interspersed: true,
	}
}

// deniedInput is the input of the PermissionDenied hook of Claude Code:
// the fields of each hook and the refused tool call with the reason.
type deniedInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Reason         string          `json:"reason"`
}

// keptRecord is a refusal in the local folder until the server takes
// it. It holds no secret: its texts are marked before it is written.
type keptRecord struct {
	// ID names the record in the folder and is the key of its post: a
	// record that two senders post is one message.
	ID     string          `json:"id"`
	AtMs   int64           `json:"at_ms"`
	Me     name.SessionURI `json:"me"`
	Reason string          `json:"reason"`
	Tool   string          `json:"tool"`
	Head   string          `json:"head"`
	Input  string          `json:"input"`
}

// relayDenied keeps the refusal of the input and starts the sender.
func (c *cli) relayDenied(ctx context.Context) error {
	raw, err := io.ReadAll(io.LimitReader(c.stdin, hookInputMax+1))
	if err != nil {
		return knownf("riff relay denied cannot read its input: %v", err)
	}
	if len(raw) > hookInputMax {
		return knownf("riff relay denied reads at most 1 MiB of input; it got more")
	}
	var in deniedInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return knownf("riff relay denied reads the JSON of the PermissionDenied hook of Claude Code on stdin; the input is no JSON object: %v", err)
	}
	if in.ToolName == "" {
		return knownf("riff relay denied reads the JSON of the PermissionDenied hook of Claude Code on stdin; the input has no tool_name")
	}
	session := c.g.session
	if session == "" {
		session = in.SessionID
	}
	if session == "" {
		return knownf("riff relay denied needs the session of the agent tool: the session_id of the input, --session or RIFF_SESSION")
	}
	dir := in.Cwd
	if info, err := os.Stat(dir); dir == "" || err != nil || !info.IsDir() {
		if dir, err = c.workDir(); err != nil {
			return err
		}
	}
	me, err := c.meAt(ctx, dir, session)
	if err != nil {
		return err
	}
	folder, err := local.Dir(c.env)
	if err != nil {
		return knownf("%v", err)
	}
	rec := makeDenied(in, me, c.now(), secret.FromEnv(c.environOf()))
	if err := keepDenied(folder, rec); err != nil {
		return knownf("riff relay denied cannot keep the refusal in the local folder: %v", err)
	}
	// The sender posts it, detached. When it cannot start, the record
	// waits for the next refusal.
	_ = c.startSender()
	return nil
}

// makeDenied gives the record of a refusal: each token of the session
// marked, the input on one line and cut to deniedInputMax characters.
func makeDenied(in deniedInput, me name.SessionURI, now time.Time, known []string) keptRecord {
	text := deniedText(in.ToolName, in.ToolInput)
	return keptRecord{
		ID:     fmt.Sprintf("%013d-%s", now.UnixMilli(), randomHex(4)),
		AtMs:   now.UnixMilli(),
		Me:     me.Bare(),
		Reason: cutRunes(oneLine(secret.Redact(in.Reason, known)), deniedReasonMax),
		Tool:   cutRunes(oneLine(secret.Redact(in.ToolName, known)), deniedReasonMax),
		Head:   secret.Redact(headOf(in.ToolName, in.ToolInput), known),
		// The mark comes before the cut: a token cut in two is still
		// marked.
		Input: cutRunes(oneLine(secret.Redact(text, known)), deniedInputMax),
	}
}

// deniedText gives the input of a refused call as a record shows it: the
// command of Bash, the path of a tool of files, the URL of a fetch, the
// pattern of a search, else the JSON of the input.
func deniedText(tool string, input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) == nil {
		for _, key := range []string{"command", "file_path", "notebook_path", "url", "pattern", "query"} {
			if s, ok := fields[key].(string); ok && s != "" {
				return s
			}
		}
	}
	if len(input) == 0 || string(input) == "null" {
		return ""
	}
	// A RawMessage marshals compact: the input on one line.
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	return string(b)
}

// headOf gives the head of a refused call: for Bash the program and its
// subcommand (git push), or the program alone (rm); for another tool -.
// A change of directory before it (cd DIR && git push) is no head, and a
// loop or a test of the shell is its keyword (for).
func headOf(tool string, input json.RawMessage) string {
	if tool != "Bash" {
		return "-"
	}
	var fields struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &fields) != nil {
		return "-"
	}
	split := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n").Replace(fields.Command)
	head := "-"
	for _, part := range strings.Split(split, "\n") {
		words := strings.Fields(part)
		// VAR=value before the program is no part of the head.
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		h := words[0]
		if len(words) > 1 && isSubcommand(words[1]) && !shellKeywords[h] {
			h += " " + words[1]
		}
		if head == "-" {
			head = h
		}
		if words[0] != "cd" && words[0] != "pushd" {
			head = h
			break
		}
	}
	return cutRunes(head, 60)
}

// shellKeywords are the words of the shell that start a loop or a test:
// the head is the word alone.
var shellKeywords = map[string]bool{"for": true, "while": true, "until": true, "if": true, "case": true, "select": true}

// isSubcommand says whether a word is a subcommand (push, run, install):
// lower case letters, digits and -, starting with a letter.
func isSubcommand(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// oneLine gives s on one line: a line break is \n, a tab a space, and
// each other control character is gone.
func oneLine(s string) string {
	s = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`, "\t", " ").Replace(s)
	return clean(s)
}

// cutRunes cuts s to n characters at most, the last one … when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// keepDenied writes the record in the folder of the kept records: a temp
// file and a rename, mode 0600, so a sender never reads half a record.
func keepDenied(folder string, rec keptRecord) error {
	dir := filepath.Join(folder, keptDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, rec.ID+".json"))
}

// keptDenied gives the names of the kept records, oldest first.
func keptDenied(folder string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(folder, keptDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// startSender starts riff relay denied --send detached from the hook: in
// a session of its own, with no stdin, stdout or stderr of the agent
// tool, so that the agent tool waits for none of it.
func (c *cli) startSender() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"relay", "denied", "--send"}
	if c.g.server != "" {
		args = append([]string{"--server", c.g.server}, args...)
	}
	cmd := exec.Command(exe, args...)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// sendDenied posts each kept record, oldest first, and removes it once
// the server took it. It stops at the first record that the server does
// not take, so the order stays. One sender runs at a time (a lock in the
// local folder); a record that two senders post is one message (its key).
func (c *cli) sendDenied(ctx context.Context) (err error) {
	ctx, cancel := context.WithTimeout(ctx, deniedSendFor)
	defer cancel()
	folder, err := local.Dir(c.env)
	if err != nil {
		return knownf("%v", err)
	}
	unlock, err := lockFile(filepath.Join(folder, "denied.lock"))
	if err != nil {
		return knownf("riff relay denied --send cannot lock %s: %v", filepath.Join(folder, "denied.lock"), err)
	}
	defer unlock()
	names, err := keptDenied(folder)
	if err != nil {
		return knownf("riff relay denied --send cannot read %s: %v", filepath.Join(folder, keptDir), err)
	}
	s := &deniedSender{c: c, rows: map[string]wire.WhoRow{}}
	// The sender has no stderr: each run says in the local folder what
	// it did, so a person sees why a record waits.
	sent := 0
	defer func() {
		left, _ := keptDenied(folder)
		c.logSend(folder, sent, len(left), err)
	}()
	var posted []name.SessionURI
	for _, n := range names {
		path := filepath.Join(folder, keptDir, n)
		rec, err := readKept(path)
		if err != nil {
			// A record that does not read would stop each later one:
			// it is set aside, under a name that no sender reads.
			_ = os.Rename(path, path+".bad")
			continue
		}
		err = s.post(ctx, rec)
		var refused *wire.Refused
		if errors.As(err, &refused) {
			// The server will never take it: set aside with the reason,
			// so the records after it go.
			_ = os.Rename(path, path+".refused")
			continue
		}
		if err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return knownf("riff relay denied --send cannot remove the posted record %s: %v", path, err)
		}
		sent++
		if poster := posterOf(rec, c.now()); !poster.IsPerson() &&
			!slices.ContainsFunc(posted, func(u name.SessionURI) bool { return u.Who() == poster.Who() }) {
			posted = append(posted, poster)
		}
	}
	// The session leaves the thread after the post: its threads and
	// reads stay its own.
	for _, me := range posted {
		if _, err := riffclient.Send(ctx, c.client, wire.Leave{Me: me, Thread: string(name.Denials)}); err != nil {
			return err
		}
	}
	return nil
}

// sendLogMax is the size of denied.log after which a run starts a new
// one (the old one is denied.log.1).
const sendLogMax = 1 << 20

// logSend writes one JSON line to denied.log in the local folder: the
// records that the run posted, those that wait, and why. It holds no
// text of a record.
func (c *cli) logSend(folder string, sent, kept int, err error) {
	path := filepath.Join(folder, "denied.log")
	if info, statErr := os.Stat(path); statErr == nil && info.Size() > sendLogMax {
		_ = os.Rename(path, path+".1")
	}
	line := struct {
		Time     string `json:"time"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Posted   int    `json:"posted"`
		Kept     int    `json:"kept"`
		Error    string `json:"error,omitempty"`
	}{Time: c.now().UTC().Format(time.RFC3339Nano), Severity: "INFO", Message: "riff relay denied --send", Posted: sent, Kept: kept}
	if err != nil {
		line.Severity, line.Error = "WARNING", c.words(err)
	} else if kept > 0 {
		line.Severity = "WARNING"
	}
	b, jsonErr := json.Marshal(line)
	if jsonErr != nil {
		return
	}
	f, openErr := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if openErr != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

func readKept(path string) (keptRecord, error) {
	var rec keptRecord
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	if rec.ID == "" || rec.Me.User == "" {
		return rec, errors.New("a record with no id or no session")
	}
	return rec, nil
}

// deniedSender posts the kept records of one run of the sender.
type deniedSender struct {
	c *cli
	// rows holds the row of who of each session that posts, by its key:
	// its role and its claims at the post.
	rows map[string]wire.WhoRow
}

// posterOf gives the caller that posts a record: its session, or the
// person of its session (at the same place) when the record is older
// than deniedStale. The tags name the session either way.
func posterOf(rec keptRecord, now time.Time) name.SessionURI {
	if now.UnixMilli()-rec.AtMs <= deniedStale.Milliseconds() {
		return rec.Me
	}
	person := rec.Me
	person.Session = ""
	return person
}

// post posts one record as a note to the thread denials, with the role
// and the claims of its session from who.
func (s *deniedSender) post(ctx context.Context, rec keptRecord) error {
	poster := posterOf(rec, s.c.now())
	key := rec.Me.Who().String()
	row, ok := s.rows[key]
	if !ok {
		// All: the row of a session that is gone since its record.
		who, err := riffclient.Send(ctx, s.c.client, wire.Who{Me: poster, All: true})
		if err != nil {
			return err
		}
		for _, r := range who.Rows {
			if r.URI.Who() == rec.Me.Who() {
				row = r
			}
		}
		s.rows[key] = row
	}
	body := deniedLine(rec, roleOf(row.Role), claimsOf(row.URI))
	_, err := riffclient.Post(ctx, s.c.client, wire.Post{
		Me: poster, Thread: string(name.Denials), Kind: record.MessageNote, Body: body, Key: "denied-" + rec.ID,
	})
	return err
}

// roleOf gives the role tag of a session from the role of its row in
// who: lead, worker, or session.
func roleOf(role string) string {
	tags := strings.Fields(role)
	switch {
	case slices.Contains(tags, "lead"):
		return "lead"
	case slices.Contains(tags, "worker"):
		return "worker"
	}
	return "session"
}

// claimsOf gives the claim tag: the items that the session holds, or -.
func claimsOf(u name.SessionURI) string {
	if len(u.Claims) == 0 {
		return "-"
	}
	items := make([]string, len(u.Claims))
	for i, it := range u.Claims {
		items[i] = string(it)
	}
	return strings.Join(items, ",")
}

// deniedTags are the tags of a record, in their order.
var deniedTags = []string{"reason", "tool", "head", "role", "user", "host", "repo", "session", "claim"}

// deniedLine gives the record as one line, the tags first:
// denied reason=R tool=T head="git push" ... claim=-: INPUT.
func deniedLine(rec keptRecord, role, claim string) string {
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
	for _, k := range deniedTags {
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

// parseDenied reads a record line: its tags and its input. ok is false
// for a line that is no record.
func parseDenied(body string) (tags map[string]string, input string, ok bool) {
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
