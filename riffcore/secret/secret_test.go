package secret

import (
	"strings"
	"testing"
)

func TestGivenATextWithATokenWhenItIsCheckedThenItLooksLikeATokenOnItsLine(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		want       bool
	}{
		{"a GitHub token", "one\ntoken ghp_" + strings.Repeat("a1B2", 10), 2, true},
		{"an AWS key", "AKIAABCDEFGHIJKLMNOP", 1, true},
		{"a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", 1, true},
		{"a private key", "-----BEGIN RSA PRIVATE KEY-----", 1, true},
		{"a long mixed run", strings.Repeat("aB3", 14), 1, true},
		{"a hash in hex", strings.Repeat("0123456789abcdef", 4), 0, false},
		{"words", "Wave 5: issue-20 and the tests", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, ok := LooksLikeToken(tc.text)
			if ok != tc.want || line != tc.line {
				t.Errorf("LooksLikeToken(%q) = %d, %v; want %d, %v", tc.text, line, ok, tc.line, tc.want)
			}
		})
	}
}

func TestGivenATokenOfTheSessionWhenATextIsRedactedThenSecretTakesItsPlace(t *testing.T) {
	gh := "ghp_" + strings.Repeat("a1B2", 10)
	known := "hunter2-is-my-password"
	in := "git push https://x:" + gh + "@github.com/a/b && echo " + known + " AWS=AKIAABCDEFGHIJKLMNOP && git log 0123456789abcdef0123456789abcdef01234567"
	got := Redact(in, []string{known, "short"})
	want := "git push https://x:[secret]@github.com/a/b && echo [secret] AWS=[secret] && git log 0123456789abcdef0123456789abcdef01234567"
	if got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
	if _, ok := LooksLikeToken(got); ok {
		t.Errorf("the redacted text still looks like a token: %q", got)
	}
}

func TestGivenAShortValueOfTheSessionWhenATextIsRedactedThenCommonWordsStay(t *testing.T) {
	if got := Redact("git status", []string{"git"}); got != "git status" {
		t.Errorf("Redact marked a short value: %q", got)
	}
}

func TestGivenTheEnvOfASessionWhenItsSecretsAreTakenThenOnlyTheVarsOfSecretsCount(t *testing.T) {
	got := FromEnv([]string{"GITHUB_TOKEN=abc12345678", "HOME=/home/a", "ANTHROPIC_API_KEY=sk-xyz", "AWS_SECRET_ACCESS_KEY=s3cr3tvalue", "EMPTY_TOKEN=", "PATH=/bin"})
	want := []string{"abc12345678", "sk-xyz", "s3cr3tvalue"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("FromEnv = %v; want %v", got, want)
	}
}
