package loadtool

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Given etcd, when the calls of the script of a client run, then the
// claim succeeds on a free key only (a second claim of the held key does
// not), and the release frees the key for the next claim: the same
// exclusive claim as riff's.
func TestGivenEtcdWhenTheScriptRunsThenOnlyAFreeKeyIsClaimed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd; skipped in -short mode")
	}
	dir := t.TempDir()
	e, err := StartEtcd(filepath.Join(dir, "data"), filepath.Join(dir, "etcd.log"))
	if errors.Is(err, ErrPeerMissing) {
		t.Skip("etcd is not installed (Debian package etcd-server):", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	calls := EtcdScript(1).Clients[0]
	send := func(c Call) string {
		resp, err := http.Post(e.URL+c.Path, "application/json", bytes.NewReader(c.Body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s = %d %s", c.Path, resp.StatusCode, data)
		}
		return string(data)
	}
	if got := send(calls[0]); !strings.Contains(got, `"succeeded":true`) {
		t.Errorf("the first claim = %s; want succeeded", got)
	}
	if got := send(calls[0]); strings.Contains(got, `"succeeded":true`) {
		t.Errorf("the claim of a held key = %s; want not succeeded", got)
	}
	if got := send(calls[1]); !strings.Contains(got, `"deleted":"1"`) {
		t.Errorf("the release = %s; want one key deleted", got)
	}
	if got := send(calls[0]); !strings.Contains(got, `"succeeded":true`) {
		t.Errorf("the claim after the release = %s; want succeeded", got)
	}
}

// Given PostgreSQL, when the statements of the script run, then the
// insert claims a free item only and the delete frees it.
func TestGivenPostgresWhenTheScriptRunsThenOnlyAFreeItemIsClaimed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL; skipped in -short mode")
	}
	// Not t.TempDir: as root, the server runs as the user postgres, which
	// must reach the directory (t.TempDir's parent is root's alone).
	root, err := os.MkdirTemp("", "riff-pg-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := StartPostgres(filepath.Join(root, "pg"))
	if errors.Is(err, ErrPeerMissing) {
		t.Skip("PostgreSQL 15 is not installed:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	claim, release, _ := strings.Cut(strings.ReplaceAll(PostgresScript, ":client_id", "1"), "\n")
	for _, step := range []struct{ sql, want string }{
		{claim, "INSERT 0 1"}, {claim, "INSERT 0 0"}, {release, "DELETE 1"}, {claim, "INSERT 0 1"},
	} {
		out, err := p.psql(step.sql)
		if err != nil || !strings.Contains(string(out), step.want) {
			t.Errorf("%s = %s, %v; want %s", step.sql, out, err, step.want)
		}
	}
	res, err := p.Load(2, 1e9)
	if err != nil || res.Calls == 0 {
		t.Errorf("Load = %+v, %v", res, err)
	}
}
