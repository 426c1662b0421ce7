package signin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

var person = name.SessionURI{User: "mike", Host: "pangolin"}

// machineOf opens the Machine of f in dir, as one riff process does.
func machineOf(t *testing.T, f *fakeRiff, dir string, kr Keyring) *Machine {
	t.Helper()
	u := f.url(t)
	m, err := Open(Options{Dir: dir, Server: u, Client: testClient(t, u), Keyring: kr})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// signedIn gives a folder with a sign-in of f, made by SignIn.
func signedIn(t *testing.T, f *fakeRiff) (string, *Machine) {
	t.Helper()
	dir := t.TempDir()
	m := machineOf(t, f, dir, nil)
	k, err := m.SignIn(context.Background(), "id:mike:mike@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if k.User != "mike" || k.Email != "mike@example.com" || k.Riff != "riff-1" {
		t.Fatalf("stored %+v", k)
	}
	return dir, m
}

func TestGivenASignInWhenACallIsMadeThenItCarriesThePersonTokenAndASessionSwapsItsOwn(t *testing.T) {
	f := newFakeRiff(t)
	dir, _ := signedIn(t, f)
	m := machineOf(t, f, dir, nil)
	ctx := context.Background()
	tok, err := m.Token(ctx, person)
	k, _, _ := m.Stored()
	if err != nil || tok != k.Access {
		t.Fatalf("Token(person) = %q, %v; want the access token %q", tok, err, k.Access)
	}
	session := person
	session.Session = "a6cf2205"
	s1, err := m.Token(ctx, session)
	if err != nil || s1 == k.Access {
		t.Fatalf("Token(session) = %q, %v; want a session token of its own", s1, err)
	}
	s2, _ := m.Token(ctx, session)
	if s2 != s1 || f.count("/v1/token/swap") != 1 {
		t.Errorf("second Token(session) = %q after %d swaps; want the same token from memory, one swap", s2, f.count("/v1/token/swap"))
	}
	// A session token lives in memory only.
	data, _ := os.ReadFile(filepath.Join(dir, signinDir, tokensFile))
	if strings.Contains(string(data), s1) {
		t.Errorf("tokens.json holds the session token")
	}
}

func TestGivenASessionTokenThatExpiresSoonWhenAProcessRunsLongThenItSwapsAgain(t *testing.T) {
	f := newFakeRiff(t)
	dir, _ := signedIn(t, f)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	u := f.url(t)
	m, _ := Open(Options{Dir: dir, Server: u, Client: testClient(t, u), Now: clock})
	session := person
	session.Session = "a6cf2205"
	ctx := context.Background()
	s1, err := m.Token(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	// 59 minutes on: the session token of an hour has less than the
	// margin left. The person token too: it is refreshed first.
	mu.Lock()
	now = now.Add(59*time.Minute + 30*time.Second)
	mu.Unlock()
	s2, err := m.Token(ctx, session)
	if err != nil || s2 == s1 {
		t.Fatalf("Token after 59 minutes = %q, %v; want a new swap", s2, err)
	}
	if f.count("/v1/token/swap") != 2 || f.count("/v1/token/refresh") != 1 {
		t.Errorf("%d swaps, %d refreshes; want 2 and 1", f.count("/v1/token/swap"), f.count("/v1/token/refresh"))
	}
}

func TestGivenTwoProcessesWhenTheyRefreshAtOnceThenOneRefreshGoesOutAndTheSignInStays(t *testing.T) {
	f := newFakeRiff(t)
	dir, _ := signedIn(t, f)
	ctx := context.Background()
	// Three processes of the machine hold the same access token.
	var ms []*Machine
	var stale string
	for range 3 {
		m := machineOf(t, f, dir, nil)
		tok, err := m.Token(ctx, person)
		if err != nil {
			t.Fatal(err)
		}
		stale = tok
		ms = append(ms, m)
	}
	f.forget()
	f.mu.Lock()
	f.hold = 150 * time.Millisecond
	f.mu.Unlock()
	var wg sync.WaitGroup
	again := make([]bool, len(ms))
	for i, m := range ms {
		wg.Go(func() { again[i] = m.Refused(ctx, person, stale, wire.BadToken) })
	}
	wg.Wait()
	for i, ok := range again {
		if !ok {
			t.Errorf("process %d: Refused = false; want a new token", i)
		}
	}
	if n := f.count("/v1/token/refresh"); n != 1 {
		t.Errorf("%d refreshes; want 1: the others read the new pair under the lock", n)
	}
	var toks []string
	for _, m := range ms {
		tok, err := m.Token(ctx, person)
		if err != nil {
			t.Fatalf("Token after the refreshes: %v; want the sign-in to stay", err)
		}
		toks = append(toks, tok)
	}
	if toks[0] == stale || toks[0] != toks[1] || toks[1] != toks[2] {
		t.Errorf("tokens %q; want one new token for all", toks)
	}
	for _, c := range f.chains {
		if c.ended {
			t.Errorf("the server ended the sign-in")
		}
	}
}

func TestGivenAnEndedSignInWhenTheRefreshIsRefusedThenTheMachineKeepsItAndTheNextCommandAsksNothing(t *testing.T) {
	f := newFakeRiff(t)
	dir, m := signedIn(t, f)
	ctx := context.Background()
	tok, _ := m.Token(ctx, person)
	f.forget()
	f.endAll()
	if !m.Refused(ctx, person, tok, wire.BadToken) {
		t.Errorf("Refused = false; want true: the next try says the lost sign-in")
	}
	if _, err := m.Token(ctx, person); !errors.Is(err, ErrEnded) {
		t.Fatalf("Token = %v; want %v", err, ErrEnded)
	}
	k, ok, _ := m.Stored()
	if !ok || !k.Ended || k.Refresh != "" || k.Access != "" {
		t.Errorf("stored %+v; want ended, with no token", k)
	}
	// The next command: no request at all.
	before := 0
	for _, n := range f.calls {
		before += n
	}
	next := machineOf(t, f, dir, nil)
	c := authClient(t, f, next)
	_, err := riffclient.Send(ctx, c, wire.Who{Me: person})
	var auth *riffclient.AuthError
	if !errors.As(err, &auth) || err.Error() != "The sign-in of this machine ended. Run riff login." {
		t.Errorf("the next call = %v; want the text of docs/login.md", err)
	}
	after := 0
	for _, n := range f.calls {
		after += n
	}
	if after != before {
		t.Errorf("%d requests after the end; want none", after-before)
	}
	// riff login in another terminal: the sign-in is back for the
	// running process.
	if _, err := machineOf(t, f, dir, nil).SignIn(ctx, "id:mike:mike@example.com"); err != nil {
		t.Fatal(err)
	}
	if tok, err := next.Token(ctx, person); err != nil || tok == "" {
		t.Errorf("Token after riff login = %q, %v; want the new token", tok, err)
	}
}

func TestGivenARestartWithNoBucketWhenTheRefreshIsRefusedThenTheSignInIsRemovedAndTheRiffIsNew(t *testing.T) {
	f := newFakeRiff(t)
	dir, m := signedIn(t, f)
	ctx := context.Background()
	tok, _ := m.Token(ctx, person)
	f.restart()
	c := authClient(t, f, m)
	_, err := riffclient.Send(ctx, c, wire.Who{Me: person})
	if !errors.Is(err, ErrNewRiff) || err.Error() != "This riff is new. Run riff login." {
		t.Fatalf("the call = %v; want %q", err, ErrNewRiff)
	}
	_ = tok
	if _, ok, _ := m.Stored(); ok {
		t.Errorf("the old sign-in is still stored")
	}
	// The command after it runs with no sign-in: no token, no error of
	// the sign-in.
	next := machineOf(t, f, dir, nil)
	if tok, err := next.Token(ctx, person); tok != "" || err != nil {
		t.Errorf("Token of the next command = %q, %v; want none", tok, err)
	}
}

func TestGivenAKeyringThatDoesNotWorkWhenTheKeyIsMadeThenItIsAFileOfMode0600(t *testing.T) {
	f := newFakeRiff(t)
	dir := t.TempDir()
	m := machineOf(t, f, dir, failingKeyring{})
	if _, err := m.SignIn(context.Background(), "id:mike:"); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{keyFile, tokensFile, lockFile} {
		info, err := os.Stat(filepath.Join(dir, signinDir, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", file, info.Mode().Perm())
		}
	}
	// The next process finds the key in the file.
	next := machineOf(t, f, dir, failingKeyring{})
	if tok, err := next.Token(context.Background(), person); err != nil || tok == "" {
		t.Errorf("Token = %q, %v", tok, err)
	}

	// A keyring that works holds the key: no file.
	dir2 := t.TempDir()
	kr := &memKeyring{}
	if _, err := machineOf(t, f, dir2, kr).SignIn(context.Background(), "id:ada:"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir2, signinDir, keyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("key file with a working keyring: %v; want none", err)
	}
	if len(kr.secrets) != 1 {
		t.Errorf("keyring holds %d secrets; want the key", len(kr.secrets))
	}
	if tok, err := machineOf(t, f, dir2, kr).Token(context.Background(), person); err != nil || tok == "" {
		t.Errorf("Token with the keyring = %q, %v", tok, err)
	}
}

func TestGivenTwoRiffsWhenAMachineSignsInToBothThenEachKeepsItsOwnSignIn(t *testing.T) {
	a, b := newFakeRiff(t), newFakeRiff(t)
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := machineOf(t, a, dir, nil).SignIn(ctx, "id:mike:"); err != nil {
		t.Fatal(err)
	}
	if _, err := machineOf(t, b, dir, nil).SignIn(ctx, "id:ada:"); err != nil {
		t.Fatal(err)
	}
	ka, _, _ := machineOf(t, a, dir, nil).Stored()
	kb, _, _ := machineOf(t, b, dir, nil).Stored()
	if ka.User != "mike" || kb.User != "ada" || ka.Key != kb.Key {
		t.Errorf("stored %+v and %+v; want one per riff, with the one device key", ka, kb)
	}
}

func TestGivenAnotherKeyWhenTheSignInIsUsedThenItSaysToRunRiffLogin(t *testing.T) {
	f := newFakeRiff(t)
	dir, _ := signedIn(t, f)
	if err := os.Remove(filepath.Join(dir, signinDir, keyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := machineOf(t, f, dir, nil).Token(context.Background(), person); !errors.Is(err, ErrOtherKey) {
		t.Errorf("Token with no key = %v; want %v", err, ErrOtherKey)
	}
}

// authClient is the client of a riff command with the sign-in m.
func authClient(t *testing.T, f *fakeRiff, m *Machine) *riffclient.Client {
	t.Helper()
	b, _ := build.ParseBuild(testBuild)
	return riffclient.New(f.url(t), riffclient.Options{Build: b, Auth: m, Budget: 5 * time.Second})
}

func TestGivenARefreshWhoseReplyIsLostWhenRiffTriesAgainThenTheGenerationBeforeGivesANewPairAndTheSignInStays(t *testing.T) {
	f := newFakeRiff(t)
	dir, m := signedIn(t, f)
	ctx := context.Background()
	stale, _ := m.Token(ctx, person)
	f.forget()
	f.mu.Lock()
	f.drop = 1
	f.mu.Unlock()
	if !m.Refused(ctx, person, stale, wire.BadToken) {
		t.Fatal("Refused = false; want a new pair after the lost reply")
	}
	if n := f.count("/v1/token/refresh"); n != 2 {
		t.Errorf("%d refreshes; want 2: the lost one and its try again", n)
	}
	tok, err := machineOf(t, f, dir, nil).Token(ctx, person)
	if err != nil || tok == stale || tok == "" {
		t.Errorf("Token = %q, %v; want the new token", tok, err)
	}
}

func TestGivenASignInWhenAProcessAsksTheKeyFirstThenItIsTheKeyOfTheSignIn(t *testing.T) {
	f := newFakeRiff(t)
	dir, _ := signedIn(t, f)
	m := machineOf(t, f, dir, nil)
	key := m.Key()
	k, _, _ := m.Stored()
	if key == nil || thumbprint(key) != k.Key || !m.HasSignIn() {
		t.Errorf("Key before any token = %v; want the key of the sign-in (a post signs with it first)", key)
	}
	if other := machineOf(t, newFakeRiff(t), dir, nil); other.Key() != nil || other.HasSignIn() {
		t.Errorf("a riff with no stored sign-in has a key or a sign-in")
	}
}
