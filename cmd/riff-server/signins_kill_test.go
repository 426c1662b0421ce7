package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	rifflogdir "github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// The sign-ins of the real riff-server across a kill -9, the reads of the
// keys of the provider, and the modes of its folder (issue 19, 5a to 5d).

// signInAs signs the machine in with an ID token that the provider signs
// for email.
func (m *machine) signInAs(p *oidcfake.Provider, email string) wire.TokenReply {
	m.t.Helper()
	raw, err := p.Sign(oidcfake.Claims{Email: email, EmailVerified: true})
	if err != nil {
		m.t.Fatal(err)
	}
	return m.signIn(raw)
}

// refresh refreshes token and wants 200.
func (m *machine) refresh(token string) wire.TokenReply {
	m.t.Helper()
	r := m.call(http.MethodPost, wire.Refresh{}.Path(), "", wire.Refresh{RefreshToken: token})
	var tr wire.TokenReply
	if err := json.Unmarshal(r.Body, &tr); r.Status != http.StatusOK || err != nil || tr.RefreshToken == "" {
		m.t.Fatalf("refresh = %s; want 200 with the next pair", r)
	}
	return tr
}

func TestGivenForgedSignInsWhenTheyComeToRiffServerThenItReadsTheKeysOfTheProviderAtMostOnceAMinute(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	s := start(t, serverOpts{args: signInArgs(p, "--owner", "ada@example.com")})
	m := newMachine(t, s.URL)
	m.signInAs(p, "ada@example.com")
	if n := p.KeyFetches(); n != 1 {
		t.Fatalf("%d reads of the keys after the first sign-in; want 1", n)
	}
	for range 22 {
		forged, err := p.Forge(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true})
		if err != nil {
			t.Fatal(err)
		}
		r := m.call(http.MethodPost, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: forged, Key: m.jwk()})
		refusedWith(t, r, wire.BadToken, http.StatusUnauthorized)
	}
	if n := p.KeyFetches(); n != 1 {
		t.Errorf("%d reads of the keys after 22 forged sign-ins; want 1 (at most one a minute)", n)
	}
	m.signInAs(p, "ada@example.com")
	s.checkLines()
}

func TestGivenARefreshTokenReusedWhenRiffServerIsKilledRightAfterTheReplyThenTheSignInStaysEnded(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	dir := t.TempDir()
	args := signInArgs(p, "--owner", "ada@example.com")
	s := start(t, serverOpts{dir: dir, args: args})
	m := newMachine(t, s.URL)
	first := m.signInAs(p, "ada@example.com")
	second := m.refresh(first.RefreshToken)
	third := m.refresh(second.RefreshToken)
	// signins.json holds generation 3 (as after refreshes an hour
	// apart); then generation 1 comes again: a copy, and the sign-in
	// ends. A kill -9 right after that reply must not bring it back.
	savedGeneration(t, dir, 3)
	r := m.call(http.MethodPost, wire.Refresh{}.Path(), "", wire.Refresh{RefreshToken: first.RefreshToken})
	refusedWith(t, r, wire.BadToken, http.StatusUnauthorized)
	s.kill()

	s2 := start(t, serverOpts{dir: dir, args: args})
	m.url = s2.URL
	refusedWith(t, m.call(http.MethodPost, wire.Whoami{}.Path(), third.AccessToken, wire.Whoami{Me: person("ada")}), wire.BadToken, http.StatusUnauthorized)
	refusedWith(t, m.call(http.MethodPost, wire.Refresh{}.Path(), "", wire.Refresh{RefreshToken: third.RefreshToken}), wire.BadToken, http.StatusUnauthorized)
	s2.checkLines()
}

func TestGivenRefreshesInUnderASecondWhenRiffServerIsKilledBetweenThemThenTheNewestTokenRefreshesAfterTheStart(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	dir := t.TempDir()
	args := signInArgs(p, "--owner", "ada@example.com")
	s := start(t, serverOpts{dir: dir, args: args})
	m := newMachine(t, s.URL)
	tok := m.signInAs(p, "ada@example.com")
	// Three rounds: refreshes one after the other, then a kill -9 right
	// after the last reply; the start takes the newest token.
	for round, n := range []int{3, 2, 1} {
		for range n {
			tok = m.refresh(tok.RefreshToken)
		}
		s.kill()
		s = start(t, serverOpts{dir: dir, args: args})
		m.url = s.URL
		r := m.call(http.MethodPost, wire.Refresh{}.Path(), "", wire.Refresh{RefreshToken: tok.RefreshToken})
		if r.Status != http.StatusOK {
			t.Fatalf("round %d: the refresh of the newest token after the kill -9 = %s; want 200: the sign-in is lost", round, r)
		}
		if err := json.Unmarshal(r.Body, &tok); err != nil {
			t.Fatal(err)
		}
	}
	s.checkLines()
}

func TestGivenAnyUmaskWhenRiffServerKeepsItsFolderThenItsFoldersAre0700AndItsFiles0600(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	for _, umask := range []string{"000", "022"} {
		t.Run("umask "+umask, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "riff-data")
			args := signInArgs(p, "--owner", "ada@example.com")
			s := start(t, serverOpts{dir: dir, args: args, umask: umask})
			m := newMachine(t, s.URL)
			tok := m.signInAs(p, "ada@example.com") // signins.json
			m.refresh(tok.RefreshToken)
			s.stop() // a last checkpoint
			files, signIns := 0, 0
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				info, err := d.Info()
				if err != nil {
					return err
				}
				want := fs.FileMode(0o600)
				if d.IsDir() {
					want = 0o700
				} else {
					files++
				}
				if strings.Contains(path, rifflog.SignInsName) {
					signIns++
				}
				if got := info.Mode().Perm(); got != want {
					t.Errorf("%s has mode %04o under umask %s; want %04o", path, got, umask, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if files < 3 || signIns == 0 {
				t.Fatalf("%d files, %d of signins.json; want the chunks, a checkpoint and signins.json", files, signIns)
			}
		})
	}
}

// savedGeneration polls the object signins.json in dir until its one
// sign-in is at generation gen (the saver writes within a second).
func savedGeneration(t *testing.T, dir string, gen uint64) {
	t.Helper()
	store, err := rifflogdir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _, err := store.Load(context.Background(), rifflog.SignInsName)
		var f struct {
			SignIns []struct {
				Generation uint64 `json:"generation"`
			} `json:"sign_ins"`
		}
		if err == nil && json.Unmarshal(data, &f) == nil && len(f.SignIns) == 1 && f.SignIns[0].Generation == gen {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("signins.json did not hold generation %d in 30 s (%v): %s", gen, err, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
