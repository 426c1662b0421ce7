// Package secret finds the text that looks like a token: the keys of
// GitHub, Google, AWS, Slack and OpenAI-style APIs, JWTs, private keys,
// and a long run of base64 that mixes cases and digits.
//
// It is the one rule of the shape of a secret. riff-server refuses the
// notes of a lead that hold one (riffstate), and riff relay denied puts
// [secret] in place of each one before a refusal leaves the machine.
package secret

import (
	"regexp"
	"slices"
	"strings"
)

// Mark is the text that takes the place of a secret.
const Mark = "[secret]"

// shapes are the shapes of the common secrets.
var shapes = regexp.MustCompile(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|ya29\.[A-Za-z0-9_\-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_\-]{20,}|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+|-----BEGIN [A-Z ]*PRIVATE KEY-----)`)

// longRun is a run of base64 long enough to be a key; it is a secret only
// when it mixes cases and digits (mixed): a hash in hex or a word is not.
var longRun = regexp.MustCompile(`[A-Za-z0-9+/_\-]{40,}`)

// LooksLikeToken says whether text holds what looks like a token, and on
// which line (from 1).
func LooksLikeToken(text string) (int, bool) {
	for i, line := range strings.Split(text, "\n") {
		if shapes.MatchString(line) {
			return i + 1, true
		}
		for _, run := range longRun.FindAllString(line, -1) {
			if mixed(run) {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// Redact puts Mark in place of each text of known (the secrets of a
// session, for example the values of its env vars that hold a token) and
// of each text that looks like a token. A known value shorter than 8
// characters is no secret: it would mark common words.
func Redact(text string, known []string) string {
	// The longest first: a value that holds another is marked whole.
	values := slices.Clone(known)
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, v := range values {
		if len(v) >= 8 {
			text = strings.ReplaceAll(text, v, Mark)
		}
	}
	text = shapes.ReplaceAllString(text, Mark)
	return longRun.ReplaceAllStringFunc(text, func(run string) string {
		if mixed(run) {
			return Mark
		}
		return run
	})
}

// mixed says whether a run has upper and lower case letters and digits.
func mixed(s string) bool {
	var upper, lower, digit bool
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// envNames are the words in the name of an env var whose value is a
// secret: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ANTHROPIC_API_KEY.
var envNames = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)`)

// FromEnv gives the values of the env vars (NAME=VALUE) whose name says
// that they hold a secret: the tokens of a session.
func FromEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && envNames.MatchString(k) {
			out = append(out, v)
		}
	}
	return out
}
