package denied

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/secret"
)

// testGitHubToken is a secret of the tests, made by the tests.
var testGitHubToken = "ghp_" + strings.Repeat("x7Q", 12)

// TestGivenAnInputLongerThan300CharactersWhenItIsMadeThenItIsCutAfterTheMarkOfItsTokens:
// the mark comes before the cut, so a token at the cut leaves no part.
func TestGivenAnInputLongerThan300CharactersWhenItIsMadeThenItIsCutAfterTheMarkOfItsTokens(t *testing.T) {
	tok := testGitHubToken
	command := strings.Repeat("a", 290) + " " + tok + " " + strings.Repeat("b", 50)
	in := Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"` + command + `"}`), Reason: "r"}
	rec := Make(in, name.SessionURI{User: "mike", Host: "h", Session: "s1"}, time.Now(), nil)
	want := strings.Repeat("a", 290) + " " + secret.Mark
	if !strings.HasPrefix(rec.Input, want) || utf8.RuneCountInString(rec.Input) != InputMax || !strings.HasSuffix(rec.Input, "…") {
		t.Errorf("input = %q (%d characters); want %q…, cut to %d with …", rec.Input, utf8.RuneCountInString(rec.Input), want, InputMax)
	}
	if strings.Contains(rec.Input, testGitHubToken[:12]) {
		t.Errorf("the input holds a part of the token: %q", rec.Input)
	}
}

// TestGivenARecordWhenItIsPostedThenItsLineReadsBackAsItsTags: the line
// of a record gives back its tags and its input, with quotes, colons and
// spaces in the values.
func TestGivenARecordWhenItIsPostedThenItsLineReadsBackAsItsTags(t *testing.T) {
	rec := Record{
		Me:     name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff", Session: "25456ff6-aaaa"},
		Reason: `says "no": twice`, Tool: "Bash", Head: "git push", Input: "git push origin v3.2.0: tag=x",
	}
	line := Line(rec, "lead", "-")
	want := `denied reason="says \"no\": twice" tool=Bash head="git push" role=lead user=mike host=pangolin repo=como-technologies/riff session=25456ff6 claim=-: git push origin v3.2.0: tag=x`
	if line != want {
		t.Fatalf("line:\n got %s\nwant %s", line, want)
	}
	tags, input, ok := Parse(line)
	if !ok {
		t.Fatalf("Parse(%q) is no record", line)
	}
	wantTags := map[string]string{"reason": `says "no": twice`, "tool": "Bash", "head": "git push", "role": "lead", "user": "mike",
		"host": "pangolin", "repo": "como-technologies/riff", "session": "25456ff6", "claim": "-"}
	for k, v := range wantTags {
		if tags[k] != v {
			t.Errorf("tag %s = %q; want %q", k, tags[k], v)
		}
	}
	if input != rec.Input {
		t.Errorf("input = %q; want %q", input, rec.Input)
	}
	for _, notRecord := range []string{"hello", "denied", "denied reason", `denied reason="open`, "denied a=b"} {
		if _, _, ok := Parse(notRecord); ok {
			t.Errorf("Parse(%q) is a record; want none", notRecord)
		}
	}
}

func TestGivenABashCommandWhenTheRelayNamesItsHeadThenItIsTheProgramAndItsSubcommand(t *testing.T) {
	for command, want := range map[string]string{
		"git push origin v3.2.0":        "git push",
		"rm -rf /":                      "rm",
		"GH_TOKEN=x gh release create":  "gh release",
		"cat README.md":                 "cat",
		"  npm   install left-pad":      "npm install",
		"":                              "-",
		"kubectl apply -f deploy.yaml ": "kubectl apply",
		"cd /src/riff && git push -f":   "git push",
		"cd /src/riff":                  "cd",
		"for f in a b; do rm $f; done":  "for",
		"ls | xargs rm":                 "ls",
	} {
		b, _ := json.Marshal(map[string]string{"command": command})
		if got := Head("Bash", b); got != want {
			t.Errorf("Head(%q) = %q; want %q", command, got, want)
		}
	}
	if got := Head("Edit", json.RawMessage(`{"file_path":"/a"}`)); got != "-" {
		t.Errorf("Head(Edit) = %q; want -", got)
	}
}

// TestGivenARecordWaitingForMoreThanAMinuteWhenItIsPostedThenThePersonPostsItAndTheSessionGetsNoSignOfLife:
// a post is a sign of life of its caller; a session that ended since its
// refusal must not look live again.
func TestGivenARecordWaitingForMoreThanAMinuteWhenItIsPostedThenThePersonPostsItAndTheSessionGetsNoSignOfLife(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "25456ff6-aaaa"}
	fresh := Record{Me: me, AtMs: now.Add(-Stale).UnixMilli()}
	if got := posterOf(fresh, now); got.String() != me.String() {
		t.Errorf("posterOf(a record of a minute) = %s; want the session %s", got, me)
	}
	stale := Record{Me: me, AtMs: now.Add(-Stale - time.Millisecond).UnixMilli()}
	got := posterOf(stale, now)
	if !got.IsPerson() || got.User != "mike" || got.Host != "pangolin" || got.Repo != "acme/app" {
		t.Errorf("posterOf(an older record) = %s; want the person mike@pangolin at acme/app", got)
	}
}
