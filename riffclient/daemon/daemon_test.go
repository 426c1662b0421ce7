package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestGivenARiffTomlWhenItIsReadThenTheImageTheSourcesTheEnvAndTheVolumesComeInOrder(t *testing.T) {
	got, err := ReadSettings(`[session]
image = "ghcr.io/acme/session@` + digest + `"
sources = ["pypi.org", "files.pythonhosted.org"]

[session.env]
SCCACHE_DIR = "/cache/sccache"
CARGO_HOME = "/cache/cargo"

[session.volumes]
sccache = "/cache/sccache"
cargo = "/cache/cargo"
`)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Image:   "ghcr.io/acme/session@" + digest,
		Sources: []string{"pypi.org", "files.pythonhosted.org"},
		Env:     [][2]string{{"CARGO_HOME", "/cache/cargo"}, {"SCCACHE_DIR", "/cache/sccache"}},
		Volumes: []Bind{{Host: "cargo", Path: "/cache/cargo"}, {Host: "sccache", Path: "/cache/sccache"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadSettings (-want +got):\n%s", diff)
	}
}

func TestGivenABadRiffTomlWhenItIsReadThenTheErrorNamesTheText(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no image", "[session]\n", "names no session image"},
		{"a tag", "[session]\nimage = \"ghcr.io/acme/session:latest\"\n", `not pinned by digest: "ghcr.io/acme/session:latest"`},
		{"a URL source", "[session]\nimage = \"a@" + digest + "\"\nsources = [\"https://pypi.org/simple\"]\n", `not "https://pypi.org/simple"`},
		{"a bad name", "[session]\nimage = \"a@" + digest + "\"\n[session.env]\n\"A-B\" = \"x\"\n", `"A-B"`},
		{"a relative path", "[session]\nimage = \"a@" + digest + "\"\n[session.volumes]\ncargo = \"cache\"\n", `"cache"`},
		{"an unknown key", "[session]\nimage = \"a@" + digest + "\"\nimages = 1\n", "session.images"},
		{"no TOML", "[session\n", "no TOML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSettings(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadSettings = %v; want an error with %q", err, tc.want)
			}
		})
	}
}

func TestGivenOptionsOfASettingWhenThePodmanRunIsBuiltThenTheyExtendTheDaemonsOwn(t *testing.T) {
	global, err := ParseOptions("RIFF_PODMAN_OPTIONS", "--runtime=runc  --cgroup-manager=cgroupfs")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ParseOptions("RIFF_PODMAN_RUN_OPTIONS", "--ulimit nofile=1024:1024 --ulimit nproc=1000:1000")
	if err != nil {
		t.Fatal(err)
	}
	p := Podman{Global: global, Run: run}
	got := p.RunArgs(Spec{Name: "riff-issue-12-1a2b3c4d", Image: "img@" + digest, Memory: "4g", CPUs: "2",
		Env:     [][2]string{{"HOME", "/home/mike"}, {"CARGO_HOME", "/cache/cargo"}},
		Binds:   []Bind{{Host: "/usr/bin/riff", Path: ContainerRiff, ReadOnly: true}, {Host: "cargo", Path: "/cache/cargo"}},
		Command: []string{ContainerRiff, "relay", "--", "claude"}})
	want := []string{"--runtime=runc", "--cgroup-manager=cgroupfs", "run", "--detach", "--init", "--name", "riff-issue-12-1a2b3c4d",
		"--label", "riff.session=riff-issue-12-1a2b3c4d", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000",
		"--memory", "4g", "--cpus", "2", "--env", "HOME=/home/mike", "--env", "CARGO_HOME=/cache/cargo",
		"--volume", "/usr/bin/riff:/opt/riff/riff:ro", "--volume", "cargo:/cache/cargo", "--workdir", "/work",
		"img@" + digest, "/opt/riff/riff", "relay", "--", "claude"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RunArgs (-want +got):\n%s", diff)
	}
	if _, err := ParseOptions("RIFF_PODMAN_OPTIONS", `--runtime "runc"`); err == nil {
		t.Error("ParseOptions took a quote")
	}
	if _, err := ParseOptions("RIFF_PODMAN_OPTIONS", "runc --x"); err == nil {
		t.Error("ParseOptions took a first word that is no option")
	}
}

func TestGivenTheVariablesOfAUnitWhenItIsWrittenAgainThenEachIsKeptAndANewValueWins(t *testing.T) {
	old := UnitEnv("[Service]\nEnvironment=A=1 \"B=two words\"\nEnvironment=C=3\n")
	if diff := cmp.Diff([]string{"A=1", "B=two words", "C=3"}, old); diff != "" {
		t.Errorf("UnitEnv (-want +got):\n%s", diff)
	}
	merged := MergeEnv(old, []string{"C=4", "D=5"})
	if diff := cmp.Diff([]string{"A=1", "B=two words", "C=4", "D=5"}, merged); diff != "" {
		t.Errorf("MergeEnv (-want +got):\n%s", diff)
	}
	if again := UnitEnv(UnitText("/usr/bin/riff", merged)); !cmp.Equal(again, merged) {
		t.Errorf("the variables of the written unit = %v; want %v", again, merged)
	}
}

func TestGivenAWakeWhenTheDaemonAnswersThenTheTextIsTheGuidesAndTheSenderIsTheSessionOrThePerson(t *testing.T) {
	u := name.SessionURI{User: "mike", Host: "thelio", Repo: "como-technologies/riff", Session: "b7d0a1c2-0000-0000-0000-000000000000"}
	got := AnswerText(u, wire.Wake{Thread: "como-technologies/riff", Seq: 9})
	want := "riff: the session b7d0 ended its work, and does not read your message 9 in como-technologies/riff. Start a new session for the work."
	if got != want {
		t.Errorf("AnswerText = %q; want %q", got, want)
	}
	for from, want := range map[string]string{"mike@pangolin:riff#issue-6 (a6cf)": "a6cf", "mike@pangolin": "~mike"} {
		if got, ok := senderOf(from); !ok || got != want {
			t.Errorf("senderOf(%q) = %q %v; want %q", from, got, ok, want)
		}
	}
	if _, ok := senderOf("riff@server"); ok {
		t.Error("the daemon answers riff@server")
	}
}

// fakeServer is a riff-server that records each call and replies {}.
type fakeServer struct {
	calls []string
	srv   *httptest.Server
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.calls = append(f.calls, r.URL.Path+" "+string(b))
		w.Header().Set(wire.HeaderBuild, build.FromBuildInfo("0.1.0").String())
		_, _ = w.Write([]byte(`{"text":"ok"}`))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func TestGivenTheSocketOfASessionWhenACallNamesAnotherSessionThenItIsRefusedAndNothingReachesTheServer(t *testing.T) {
	f := newFakeServer(t)
	u, _ := url.Parse(f.srv.URL)
	d := New(Config{Client: riffclient.New(u, riffclient.Options{Build: build.FromBuildInfo("0.1.0")}), Folder: t.TempDir()})
	d.ctx = context.Background()
	me := name.SessionURI{User: "mike", Host: "thelio", Repo: "acme/app", Worktree: "issue-1", Session: "aaaa1111-0000-0000-0000-000000000000"}
	s := &session{d: d, kept: Kept{URI: me}}
	h := s.handler()
	post := func(body any) *httptest.ResponseRecorder {
		b, _ := json.Marshal(body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, wire.Status{}.Path(), strings.NewReader(string(b))))
		return rec
	}
	other := me
	other.Session = "bbbb2222-0000-0000-0000-000000000000"
	rec := post(wire.Status{Me: other, Text: "as another"})
	if rec.Code != http.StatusForbidden || rec.Header().Get(wire.HeaderRefused) != string(wire.NotYou) {
		t.Errorf("a call as another session = %d %q; want 403 not_you", rec.Code, rec.Header().Get(wire.HeaderRefused))
	}
	if len(f.calls) != 0 {
		t.Errorf("the server got %v; want nothing", f.calls)
	}
	// The session itself, named at the place of the container (no
	// worktree): the daemon sends it at the place it gave the session.
	inside := me
	inside.Worktree = ""
	if rec := post(wire.Status{Me: inside, Text: "writes the tests"}); rec.Code != http.StatusOK {
		t.Fatalf("a call as the session = %d %s", rec.Code, rec.Body)
	}
	if len(f.calls) != 1 || !strings.Contains(f.calls[0], `"me":"`+me.String()+`"`) {
		t.Errorf("the server got %v; want the status as %s", f.calls, me)
	}
	// A path that is no tool of a container session.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, wire.Claim{}.Path(), strings.NewReader(`{}`)))
	if rec.Code != http.StatusForbidden {
		t.Errorf("a claim on the socket = %d; want 403", rec.Code)
	}
}

func TestGivenTheFolderOfTheDaemonWhenItStartsAgainThenItKeepsItsSession(t *testing.T) {
	dir := t.TempDir()
	first, err := folder{dir}.ownSession()
	if err != nil {
		t.Fatal(err)
	}
	again, err := folder{dir}.ownSession()
	if err != nil || again != first {
		t.Errorf("ownSession again = %q %v; want %q", again, err, first)
	}
	if err := name.CheckSessionID(first); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "daemon.json")); err != nil {
		t.Error(err)
	}
}

func TestGivenASessionWhenItsClaudeFolderIsWrittenThenItHasTheHooksTheAutoModeEntriesAndTheRefusalsOfGhIssueEdit(t *testing.T) {
	home := t.TempDir()
	host := t.TempDir()
	if err := os.MkdirAll(filepath.Join(host, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, ".claude", ".credentials.json"), []byte(`{"claudeAiOauth":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	d := New(Config{Folder: t.TempDir(), Home: host})
	k := Kept{URI: name.SessionURI{User: "mike", Host: "thelio", Repo: "acme/app", Session: "aaaa1111-0000-0000-0000-000000000000"}}
	if err := d.writeClaude(home, k, Settings{Sources: []string{"pypi.org"}}); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks    map[string][]struct{ Hooks []struct{ Command string } } `json:"hooks"`
		AutoMode struct {
			Environment []string `json:"environment"`
		} `json:"autoMode"`
		Permissions struct {
			Allow, Deny []string
		} `json:"permissions"`
	}
	b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil || json.Unmarshal(b, &settings) != nil {
		t.Fatalf("settings.json = %s %v", b, err)
	}
	for hook, want := range map[string]string{"PreToolUse": "/opt/riff/riff relay hook", "Stop": "/opt/riff/riff relay hook", "PermissionDenied": "/opt/riff/riff relay denied"} {
		if h := settings.Hooks[hook]; len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != want {
			t.Errorf("the hook %s = %+v; want %q", hook, h, want)
		}
	}
	env := strings.Join(settings.AutoMode.Environment, "\n")
	for _, want := range []string{"the GitHub owner acme", "github.com/como-technologies/riff", "ghcr.io", "the riff server of this session", "Trusted package source: pypi.org"} {
		if !strings.Contains(env, want) {
			t.Errorf("autoMode.environment = %q; want an entry with %q", env, want)
		}
	}
	deny := strings.Join(settings.Permissions.Deny, "\n")
	for _, flag := range []string{"--body", "--body-file", "-b", "-F", "--title", "-t"} {
		if !strings.Contains(deny, "Bash(gh issue edit * "+flag+"*)") || !strings.Contains(deny, "Bash(gh -R * issue edit * "+flag+"*)") {
			t.Errorf("permissions.deny = %q; want gh issue edit %s refused, also after gh -R", deny, flag)
		}
	}
	if !strings.Contains(strings.Join(settings.Permissions.Allow, " "), "Bash(gh issue comment *)") {
		t.Errorf("permissions.allow = %v; want gh issue comment", settings.Permissions.Allow)
	}
	state, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	if !strings.Contains(string(state), `"hasCompletedOnboarding":true`) {
		t.Errorf(".claude.json = %s; want the onboarding done", state)
	}
	if cred, err := os.ReadFile(filepath.Join(home, ".claude", ".credentials.json")); err != nil || string(cred) != `{"claudeAiOauth":{}}` {
		t.Errorf("the sign-in of claude in the session = %q %v; want the host's", cred, err)
	}
}
