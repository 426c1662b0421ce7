package signin

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

// fakeRiff is a riff-server of the tests for the token path: it checks
// each proof with dpop.Verify, and keeps the refresh chains as
// riff-server does (the current generation gives the next; the one
// before gives a new pair and ends the current one; an older one ends
// the sign-in; the key first).
type fakeRiff struct {
	t   *testing.T
	srv *httptest.Server

	mu   sync.Mutex
	riff string
	// issuer is the issuer that the provider route names; "" is
	// http://issuer.
	issuer string
	chains map[string]*chain
	access map[string]grant
	// calls counts the calls of each path.
	calls map[string]int
	// hold delays each refresh, so that two refreshes meet.
	hold time.Duration
	// expires is the expires_secs of each access token.
	expires int64
	// drop cuts the connection of this many refreshes after their
	// change: the reply is lost.
	drop int
}

type chain struct {
	key, user, email string
	gen              int
	secrets          map[int]string // the current generation and the one before
	ended            bool
}

type grant struct {
	chain, session string
}

func newFakeRiff(t *testing.T) *fakeRiff {
	f := &fakeRiff{t: t, riff: "riff-1", chains: map[string]*chain{}, access: map[string]grant{}, calls: map[string]int{}, expires: 3600}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRiff) url(t *testing.T) *url.URL {
	u, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// restart is a restart with no bucket: a new riff ID, and no sign-in.
func (f *fakeRiff) restart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.riff = "riff-2"
	f.chains, f.access = map[string]*chain{}, map[string]grant{}
}

// forget ends each access token: the next call gets bad_token.
func (f *fakeRiff) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.access = map[string]grant{}
}

func (f *fakeRiff) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[path]
}

func (f *fakeRiff) endAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.chains {
		c.ended = true
	}
}

func refuse(w http.ResponseWriter, code wire.Code, reason string) {
	w.Header().Set(wire.HeaderRefused, string(code))
	w.WriteHeader(code.Status())
	fmt.Fprintf(w, `{"reason":%q}`, reason)
}

func (f *fakeRiff) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(wire.HeaderBuild, testBuild)
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls[r.URL.Path]++
	hold := f.hold
	f.mu.Unlock()
	if r.URL.Path == (wire.SignInProvider{}).Path() {
		f.mu.Lock()
		defer f.mu.Unlock()
		issuer := f.issuer
		if issuer == "" {
			issuer = "http://issuer"
		}
		json.NewEncoder(w).Encode(wire.ProviderReply{SignIn: true, Riff: f.riff, Issuer: issuer, ClientID: "riff"})
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get(wire.HeaderAuthorization), "DPoP ")
	proof, err := dpop.Verify(r.Header.Get(wire.HeaderDPoP), r.Method, "http://"+r.Host+r.URL.Path, token, time.Now())
	if err != nil {
		refuse(w, wire.BadProof, err.Error())
		return
	}
	if r.URL.Path == (wire.Refresh{}).Path() && hold > 0 {
		time.Sleep(hold)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case wire.SignIn{}.Path():
		var in wire.SignIn
		json.Unmarshal(body, &in)
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(in.Key); err != nil {
			refuse(w, wire.BadRequest, "key: "+err.Error())
			return
		}
		pub, ok := jwk.Key.(*ecdsa.PublicKey)
		if !ok {
			refuse(w, wire.BadRequest, "key: not an EC key")
			return
		}
		tp, _ := signed.Thumbprint(pub)
		if tp != proof.Thumbprint {
			refuse(w, wire.BadProof, "the proof is not of the key")
			return
		}
		user, email, _ := strings.Cut(strings.TrimPrefix(in.IDToken, "id:"), ":")
		id := rand.Text()[:8]
		c := &chain{key: proof.Thumbprint, user: user, email: email, secrets: map[int]string{}}
		f.chains[id] = c
		f.reply(w, id, c)
	case wire.Refresh{}.Path():
		var in wire.Refresh
		json.Unmarshal(body, &in)
		parts := strings.Split(in.RefreshToken, ".")
		if len(parts) != 3 {
			refuse(w, wire.BadToken, "no such token")
			return
		}
		c, ok := f.chains[parts[0]]
		gen, _ := strconv.Atoi(parts[1])
		switch {
		case !ok || c.ended:
			refuse(w, wire.BadToken, "no such token")
		case c.key != proof.Thumbprint:
			refuse(w, wire.BadProof, "another key")
		case (gen == c.gen || gen == c.gen-1) && c.secrets[gen] != parts[2]:
			refuse(w, wire.BadToken, "no such token")
		case gen == c.gen && f.drop > 0:
			f.drop--
			f.reply(httptest.NewRecorder(), parts[0], c)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case gen == c.gen:
			f.reply(w, parts[0], c)
		case gen == c.gen-1:
			// A lost reply: end the current pair, give a new one.
			f.reply(w, parts[0], c)
		case gen < c.gen-1:
			c.ended = true
			refuse(w, wire.BadToken, "reused: the sign-in ended")
		default:
			refuse(w, wire.BadToken, "no such token")
		}
	case wire.Swap{}.Path():
		g, ok := f.access[token]
		if !ok || g.session != "" || f.chains[g.chain].ended {
			refuse(w, wire.BadToken, "no such token")
			return
		}
		var in wire.Swap
		json.Unmarshal(body, &in)
		s := "session-" + rand.Text()
		f.access[s] = grant{chain: g.chain, session: in.Session}
		json.NewEncoder(w).Encode(wire.TokenReply{AccessToken: s, ExpiresSecs: f.expires, User: f.chains[g.chain].user, Riff: f.riff})
	default:
		g, ok := f.access[token]
		if !ok || f.chains[g.chain].ended {
			refuse(w, wire.BadToken, "no such token")
			return
		}
		fmt.Fprintf(w, `{"session":%q}`, g.session)
	}
}

// reply gives the next pair of chain id. f.mu is held.
func (f *fakeRiff) reply(w http.ResponseWriter, id string, c *chain) {
	prev := c.secrets[c.gen]
	c.gen++
	secret := rand.Text()
	c.secrets = map[int]string{c.gen: secret}
	if prev != "" {
		c.secrets[c.gen-1] = prev
	}
	access := "access-" + rand.Text()
	f.access[access] = grant{chain: id}
	json.NewEncoder(w).Encode(wire.TokenReply{
		AccessToken: access, ExpiresSecs: f.expires,
		RefreshToken: fmt.Sprintf("%s.%d.%s", id, c.gen, secret),
		User:         c.user, Email: c.email, Riff: f.riff,
	})
}

// testClient is a client of the token path of u.
func testClient(t *testing.T, u *url.URL) *riffclient.Client {
	b, err := build.ParseBuild(testBuild)
	if err != nil {
		t.Fatal(err)
	}
	return riffclient.New(u, riffclient.Options{Build: b, Budget: 5 * time.Second})
}

// failingKeyring is a keyring that does not work here, as the Secret
// Service with no D-Bus.
type failingKeyring struct{}

func (failingKeyring) Get(string, string) (string, error) { return "", fmt.Errorf("no D-Bus") }
func (failingKeyring) Set(string, string, string) error   { return fmt.Errorf("no D-Bus") }
func (failingKeyring) Delete(string, string) error        { return fmt.Errorf("no D-Bus") }

// memKeyring is a keyring that works.
type memKeyring struct {
	mu      sync.Mutex
	secrets map[string]string
}

func (k *memKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.secrets[service+"\x00"+user]
	if !ok {
		return "", ErrNotInKeyring
	}
	return s, nil
}

func (k *memKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.secrets == nil {
		k.secrets = map[string]string{}
	}
	k.secrets[service+"\x00"+user] = secret
	return nil
}

func (k *memKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.secrets, service+"\x00"+user)
	return nil
}
