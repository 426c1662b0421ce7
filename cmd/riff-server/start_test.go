package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// TestFirstCommand starts riff-server as the README's first command does
// (`go run ./cmd/riff-server`: no flag, the memory store, loopback), with
// only the port moved by RIFF_LISTEN, and claims on it as curl would.
func TestFirstCommand(t *testing.T) {
	needBinary(t)
	s := start(t, serverOpts{noListenFlag: true})
	var listens *logLine
	for _, l := range s.Lines() {
		if strings.HasPrefix(l.Message, "riff-server listens on") {
			listens = &l
		}
	}
	if want := "riff-server listens on http://" + s.Addr; listens == nil || listens.Message != want {
		t.Fatalf("the first line = %+v; want %q", listens, want)
	}
	if !strings.Contains(listens.Raw, `"store":"memory"`) {
		t.Errorf("with no RIFF_DIR the store is not memory: %s", listens.Raw)
	}
	// A new riff starts paused: a claim is refused until the resume.
	r, err := post(context.Background(), s.URL, "/v1/claim", "", map[string]any{"me": mikeSession, "item": "issue-12"})
	if err != nil || r.Header.Get(wire.HeaderRefused) != string(wire.Paused) {
		t.Errorf("claim on a new riff = %v, %v; want refused paused", r, err)
	}
	s.must("/v1/resume", "f-1", map[string]any{"me": mikePerson, "riff": true})
	r = s.must("/v1/claim", "f-2", map[string]any{"me": mikeSession, "item": "issue-12"})
	if !strings.Contains(string(r.Body), "You hold issue-12") {
		t.Errorf("claim = %s; want You hold issue-12", r)
	}
	if r.Header.Get(wire.HeaderBuild) == "" {
		t.Errorf("the reply has no %s header", wire.HeaderBuild)
	}
	s.stop()
	s.checkLines()
}

// TestHelp checks that --help lists each setting with its env var and
// the default address of the README.
func TestHelp(t *testing.T) {
	cmd := exec.Command(needBinary(t), "--help")
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("riff-server --help: %v\n%s", err, out)
	}
	for _, want := range []string{"127.0.0.1:7878", "-listen", "RIFF_LISTEN", "-listen-anywhere", "-dir", "RIFF_DIR", "-bucket", "RIFF_BUCKET",
		"-checkpoint-every", "-checkpoint-interval", "-lease-wait", "log",
		"-issuer", "-client-id", "-client-secret", "-allowed-domain", "-owner", "-require-sign-in", "-public-url", "RIFF_PUBLIC_URL",
		"-heap-floor-mb", "RIFF_HEAP_FLOOR_MB",
		"-admins", "RIFF_ADMINS", "-owner-wait", "RIFF_OWNER_WAIT", "-owner-gone", "RIFF_OWNER_GONE", "-owner-warn", "RIFF_OWNER_WARN"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("riff-server --help does not name %q:\n%s", want, out)
		}
	}
}

// TestListenLoopbackOnly: a riff with no sign-in listens on loopback
// only, by flag or by env var, unless the person says
// --listen-anywhere.
func TestListenLoopbackOnly(t *testing.T) {
	bin := needBinary(t)
	port := strconv.Itoa(freePort(t))
	for _, tc := range []struct {
		name string
		args []string
		env  []string
	}{
		{name: "flag", args: []string{"--listen", "0.0.0.0:" + port}},
		{name: "env", env: []string{"RIFF_LISTEN=0.0.0.0:" + port}},
		{name: "a name", args: []string{"--listen", "example.com:" + port}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = cleanEnv(tc.env...)
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
				t.Fatalf("riff-server %v %v = exit %d; want 1\n%s", tc.args, tc.env, code, out)
			}
			for _, want := range []string{"is not a loopback address", "--listen-anywhere"} {
				if !bytes.Contains(out, []byte(want)) {
					t.Errorf("the refusal does not say %q:\n%s", want, out)
				}
			}
		})
	}
	t.Run("listen-anywhere", func(t *testing.T) {
		for try := 0; ; try++ {
			port := strconv.Itoa(freePort(t))
			s, err := tryStart(t, serverOpts{args: []string{"--listen", "0.0.0.0:" + port, "--listen-anywhere"}})
			if err != nil {
				if try < 4 && strings.Contains(err.Error(), "address already in use") {
					continue
				}
				t.Fatal(err)
			}
			s.URL = "http://" + net.JoinHostPort("127.0.0.1", port)
			if f := s.facts(); !f.Serves {
				t.Errorf("with --listen-anywhere the server does not serve: %+v", f)
			}
			s.stop()
			return
		}
	})
}

// TestStartWaits starts riff-server on a directory with a lease wait:
// the port opens after the load, replies 503 to each call in the wait,
// and GET /v1/server answers then; after the line "riff-server serves"
// the calls work.
func TestStartWaits(t *testing.T) {
	needBinary(t)
	path := t.TempDir()
	s := start(t, serverOpts{dir: path, leaseWait: "1500ms", onlyListens: true})
	r, err := post(context.Background(), s.URL, "/v1/who", "", map[string]any{"me": mikeSession})
	if err != nil || r.Status != http.StatusServiceUnavailable {
		t.Errorf("who in the wait = %v, %v; want 503", r, err)
	}
	if r.Header.Get(wire.HeaderBuild) == "" {
		t.Errorf("the 503 of the wait has no %s header", wire.HeaderBuild)
	}
	f := s.facts()
	if f.Serves || f.Why == "" {
		t.Errorf("GET /v1/server in the wait = serves %v, why %q; want not serving, with why", f.Serves, f.Why)
	}
	select {
	case <-s.serving:
	case <-time.After(20 * time.Second):
		t.Fatalf("no line riff-server serves after the wait:\n%s", s.stderrText())
	}
	if f := s.facts(); !f.Serves {
		t.Errorf("GET /v1/server after the wait = %+v; want serves", f)
	}
	s.must("/v1/resume", "w-1", map[string]any{"me": mikePerson, "riff": true})
	s.stop()
	s.checkLines()
}

// A heap floor over 1 TiB is refused at the start with the flag and its
// bound, before the store is opened (docs/operations.md, Settings).
func TestGivenAHeapFloorOverItsBoundWhenTheServerStartsThenItSaysSo(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(needBinary(t), "--heap-floor-mb", "1048577", "--dir", dir, "--listen", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("--heap-floor-mb 1048577: at most 1048576 (1 TiB)")) {
		t.Fatalf("riff-server --heap-floor-mb 1048577 = %v\n%s; want exit 1 that names the bound", err, out)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the directory after the refused start holds %d entries (%v); want none", len(entries), err)
	}
}
