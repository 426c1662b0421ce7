package denied

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffclient/internal/terminal"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/secret"
)

// The limits of a record.
const (
	// InputMax is the most characters of the input in a record.
	InputMax = 300
	// reasonMax is the most characters of the reason tag and of the tool.
	reasonMax = 120
	// headMax is the most characters of the head.
	headMax = 60
	// MaxHookInput is the largest input of the hook that riff reads.
	MaxHookInput = 1 << 20
)

// Input is the input of the PermissionDenied hook of Claude Code: the
// fields of each hook and the refused tool call with the reason.
type Input struct {
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

// Record is one refusal of auto mode, as it waits in the outbox until the
// server takes it. It holds no secret: its texts are marked before it is
// made.
type Record struct {
	// ID names the record in the outbox and is the key of its post: a
	// record that two senders post is one message.
	ID     string          `json:"id"`
	AtMs   int64           `json:"at_ms"`
	Me     name.SessionURI `json:"me"`
	Reason string          `json:"reason"`
	Tool   string          `json:"tool"`
	Head   string          `json:"head"`
	Input  string          `json:"input"`
}

// Make gives the record of a refusal of me at now: each known secret (the
// values of the env vars of the session that hold one, see riffcore/secret)
// and each text that looks like a token marked [secret], the input on one
// line and cut to InputMax characters.
func Make(in Input, me name.SessionURI, now time.Time, known []string) Record {
	text := inputText(in.ToolInput)
	return Record{
		ID:     fmt.Sprintf("%013d-%s", now.UnixMilli(), randomHex(4)),
		AtMs:   now.UnixMilli(),
		Me:     me.Bare(),
		Reason: cutRunes(oneLine(secret.Redact(in.Reason, known)), reasonMax),
		Tool:   cutRunes(oneLine(secret.Redact(in.ToolName, known)), reasonMax),
		Head:   secret.Redact(Head(in.ToolName, in.ToolInput), known),
		// The mark comes before the cut: a token cut in two is still
		// marked.
		Input: cutRunes(oneLine(secret.Redact(text, known)), InputMax),
	}
}

// inputText gives the input of a refused call as a record shows it: the
// command of Bash, the path of a tool of files, the URL of a fetch, the
// pattern of a search, else the JSON of the input.
func inputText(input json.RawMessage) string {
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

// Head gives the head of a refused call: for Bash the program and its
// subcommand (git push), or the program alone (rm); for another tool -.
// A change of directory before it (cd DIR && git push) is no head, and a
// loop or a test of the shell is its keyword (for).
func Head(tool string, input json.RawMessage) string {
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
		if len(words) > 1 && isSubcommand(words[1]) && !shellKeyword(h) {
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
	return cutRunes(head, headMax)
}

// shellKeyword says whether a word of the shell starts a loop or a test:
// the head is the word alone.
func shellKeyword(w string) bool {
	switch w {
	case "for", "while", "until", "if", "case", "select":
		return true
	}
	return false
}

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
	return terminal.Clean(s)
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
