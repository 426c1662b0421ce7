package chat

import (
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
)

// Kind is what a typed line of the chat does.
type Kind int

// The kinds of a typed line.
const (
	// Empty is a line with no text: nothing is sent.
	Empty Kind = iota
	// Say is a line to send: a line, an action (/me TEXT), or a line
	// that starts with / (typed //).
	Say
	// Quit is /quit: the chat ends.
	Quit
	// Refused is a line that the chat does not send: Text says why.
	Refused
)

// Line is a typed line of the chat, read by [Parse].
type Line struct {
	Kind Kind
	// Body is the body of the post: the line, /me TEXT for an action,
	// /TEXT for a line typed //TEXT.
	Body string
	// Names are the addresses of the line, in order: @lead, @USER,
	// @lead:REPO, @USER:REPO.
	Names []Name
	// Text is the text of a refused line, for the person.
	Text string
}

// Name is one address of a line.
type Name struct {
	// Lead is @lead (the leads of the person); else User is @USER.
	Lead bool
	User string
	// Repo is the repository after the colon, as typed: OWNER/REPO or
	// the name after the slash; "" with none.
	Repo string
	// Word is the address as typed, without its @.
	Word string
}

// The texts of the lines that the chat does not send.
const (
	textOtherCommand = "riff: the chat knows only /me and /quit, and sends no line %s. To send a line that starts with /, start it with //."
	textEmptyAction  = "riff: /me needs a TEXT, for example /me waves."
)

// Parse reads a line as the person typed it. Only /me and /quit are
// commands; each other /word is refused, and //TEXT sends /TEXT. The
// names of a line are read from the body that is sent, so an action
// (/me pings @brett) wakes as any line.
func Parse(typed string) Line {
	text := strings.TrimRight(typed, " \t")
	if strings.TrimSpace(text) == "" {
		return Line{Kind: Empty}
	}
	var body string
	switch {
	case strings.HasPrefix(text, "//"):
		body = text[1:]
	case strings.HasPrefix(text, "/"):
		word, rest, _ := strings.Cut(text, " ")
		switch word {
		case "/quit":
			return Line{Kind: Quit}
		case "/me":
			if strings.TrimSpace(rest) == "" {
				return Line{Kind: Refused, Text: textEmptyAction}
			}
			body = "/me " + strings.TrimLeft(rest, " \t")
		default:
			return Line{Kind: Refused, Text: sprintf(textOtherCommand, word)}
		}
	default:
		body = text
	}
	return Line{Kind: Say, Body: body, Names: namesOf(body)}
}

// namesOf finds the addresses of a body: an @ at the start of a word
// (after a space, an opening bracket or a quote), then a user name or
// lead, then maybe :REPO. A word that goes on with / or @ (@types/node,
// a@b@c) is no address; a period, comma or other sign after it ends it.
func namesOf(body string) []Name {
	var names []Name
	for i := 0; i < len(body); i++ {
		if body[i] != '@' || (i > 0 && !startsWord(body[i-1])) {
			continue
		}
		j := i + 1
		for j < len(body) && userByte(body[j]) {
			j++
		}
		user := strings.TrimRight(body[i+1:j], ".-")
		end := i + 1 + len(user)
		repo := ""
		if end == j && j < len(body) && body[j] == ':' {
			k := j + 1
			slash := false
			for k < len(body) && (repoByte(body[k]) || (body[k] == '/' && !slash)) {
				slash = slash || body[k] == '/'
				k++
			}
			repo = strings.TrimRight(body[j+1:k], ".-/")
			if repo != "" {
				end = j + 1 + len(repo)
			}
		}
		if end < len(body) && (body[end] == '/' || body[end] == '@') {
			i = end
			continue
		}
		if user == "" || name.CheckUser(user) != nil {
			i = end
			continue
		}
		n := Name{User: user, Repo: repo, Word: body[i+1 : end]}
		if user == "lead" {
			n = Name{Lead: true, Repo: repo, Word: n.Word}
		}
		names = append(names, n)
		i = end - 1
	}
	return names
}

func startsWord(b byte) bool {
	return b == ' ' || b == '\t' || b == '(' || b == '[' || b == '{' || b == '"' || b == '\''
}

// userByte is a byte of a user name (name.CheckUser: letters, digits,
// . _ -).
func userByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
}

// repoByte is a byte of an owner or a repository name.
func repoByte(b byte) bool { return userByte(b) }
