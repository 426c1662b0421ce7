package signin

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The faults of a sign-in (docs/login.md, "A lost sign-in"). Each riff
// command says them until riff login.
var (
	// ErrEnded: the server ended the sign-in (a reused refresh token, an
	// ended sign-in). riff stores the end on the machine and asks no more.
	ErrEnded = errors.New("The sign-in of this machine ended. Run riff login.")
	// ErrNewRiff: the server has another riff ID than the sign-in: riff
	// removed the old sign-in of the machine.
	ErrNewRiff = errors.New("This riff is new. Run riff login.")
	// ErrOtherKey: the device key of the machine is not the key of the
	// sign-in (the keyring changed, the key file was removed).
	ErrOtherKey = errors.New("The device key of this machine is not the key of its sign-in. Run riff login.")
)

// errNone is a machine with no sign-in for the server: its calls carry
// no token, as a riff with no sign-in wants.
var errNone = errors.New("this machine has no sign-in for this riff")

// margin is how long before its expiry a token is renewed: a refresh of
// the person token, a swap again of a session token. A token of a short
// life is renewed after three quarters of it: a margin as long as the
// life would renew it at each call, and the refreshes would outrun the
// writes of signins.json, which a start after a crash needs to be at
// most one generation behind.
const margin = 60 * time.Second

// renewAt gives when a token of life, given now, is renewed.
func renewAt(now time.Time, life time.Duration) time.Time {
	return now.Add(life - min(margin, life/4))
}

// Options are what a Machine needs.
type Options struct {
	// Dir is the local folder that outlives a logout (local.StateDir).
	Dir string
	// Server is the URL of the riff; its sign-in is stored under it.
	Server *url.URL
	// Client is a client of the server with no Auth: it sends the calls
	// of the token path.
	Client *riffclient.Client
	// Keyring holds the device key; nil: the key file only.
	Keyring Keyring
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Machine is the sign-in of this machine for one server, as one process
// sees it: it is the [riffclient.Auth] of the process. It is safe for
// concurrent use.
type Machine struct {
	folder folder
	server string
	client *riffclient.Client
	keys   keyStore
	now    func() time.Time

	mu sync.Mutex
	// key is the device key, once read.
	key *ecdsa.PrivateKey
	// fault is a fault of this process that the file no longer shows: the
	// sign-in that it removed for a new riff.
	fault error
	// sessions are the session tokens of this process, by session ID.
	sessions map[string]sessionToken
	// swap holds one swap at a time.
	swap sync.Mutex
}

// sessionToken is a session token of this process, and what it was
// swapped for.
type sessionToken struct {
	token string
	renew time.Time // when to swap again; zero: unknown
}

// Open gives the Machine of o.Server. It makes nothing and reads nothing
// yet: the folder is made at the first write, the key read at the first
// token.
func Open(o Options) (*Machine, error) {
	switch {
	case o.Dir == "":
		return nil, errors.New("signin.Open: no folder (Options.Dir; local.StateDir gives the one of riff)")
	case o.Server == nil:
		return nil, errors.New("signin.Open: no server (Options.Server)")
	case o.Client == nil:
		return nil, errors.New("signin.Open: no client of the token path (Options.Client)")
	}
	// The folder is made at the first write, under the lock: a command in
	// a riff with no sign-in makes nothing.
	dir := filepath.Join(o.Dir, signinDir)
	m := &Machine{
		folder:   folder(dir),
		server:   o.Server.String(),
		client:   o.Client,
		keys:     keyStore{dir: dir, keyring: o.Keyring},
		now:      o.Now,
		sessions: map[string]sessionToken{},
	}
	if m.now == nil {
		m.now = time.Now
	}
	// The key is read at the first token: a command in a riff with no
	// sign-in never asks the keyring.
	return m, nil
}

// Stored gives the sign-in stored for the server, and whether there is one
// (also one that ended).
func (m *Machine) Stored() (Stored, bool, error) { return m.folder.read(m.server) }

// Key gives the device key of the sign-in stored for the server; nil when
// there is none, or the key is not the key of the sign-in. It reads the
// key (the keyring or the file) at its first use.
func (m *Machine) Key() *ecdsa.PrivateKey {
	m.mu.Lock()
	key := m.key
	m.mu.Unlock()
	if key != nil {
		return key
	}
	k, ok, err := m.folder.read(m.server)
	if err != nil || !ok || k.Ended {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keyOf(k) != nil {
		return nil
	}
	return m.key
}

// HasSignIn says whether the machine stores a sign-in for the server, also
// one that ended: then the calls of riff carry it (or say that it ended).
func (m *Machine) HasSignIn() bool {
	_, ok, err := m.folder.read(m.server)
	return err == nil && ok
}

// Token gives the token of calls as me: the person token, or the session
// token of this process for me's session. It refreshes a person token
// that expires soon, and swaps again a session token that does. A lost
// sign-in gives its fault and sends no request.
func (m *Machine) Token(ctx context.Context, me name.SessionURI) (string, error) {
	k, err := m.live()
	if errors.Is(err, errNone) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if m.expiring(k.RenewMs) {
		if k, err = m.refresh(ctx, k.Access); err != nil {
			return "", err
		}
	}
	if me.Session == "" {
		return k.Access, nil
	}
	return m.sessionToken(ctx, me.Session, k)
}

// Refused takes a refused token: a session token is swapped again, a
// person token refreshed (under the lock of the machine, unless another
// process did it). It says true when one more try can work: a new token,
// or a lost sign-in that the next Token gives with no request.
func (m *Machine) Refused(ctx context.Context, me name.SessionURI, token string, code wire.Code) bool {
	if code != wire.BadToken {
		return false
	}
	if me.Session != "" {
		m.mu.Lock()
		s, ok := m.sessions[me.Session]
		if ok && s.token == token {
			delete(m.sessions, me.Session)
		}
		m.mu.Unlock()
		if ok && s.token == token {
			return true
		}
	}
	_, err := m.refresh(ctx, token)
	return err == nil || errors.Is(err, ErrEnded) || errors.Is(err, ErrNewRiff)
}

// Fault gives the fault of the sign-in that this process met, if any:
// the sign-in ended, or the riff is new.
func (m *Machine) Fault() error {
	_, err := m.live()
	if errors.Is(err, ErrEnded) || errors.Is(err, ErrNewRiff) || errors.Is(err, ErrOtherKey) {
		return err
	}
	return nil
}

// live reads the sign-in of the server from the folder, and gives it when
// it can make calls.
func (m *Machine) live() (Stored, error) {
	k, ok, err := m.folder.read(m.server)
	if err != nil {
		return Stored{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok {
		if m.fault != nil {
			return Stored{}, m.fault
		}
		return Stored{}, errNone
	}
	// A sign-in in the folder: a riff login after the fault of this
	// process.
	m.fault = nil
	if k.Ended {
		return Stored{}, ErrEnded
	}
	if err := m.keyOf(k); err != nil {
		return Stored{}, err
	}
	return k, nil
}

// keyOf makes sure that the key of this process is the key of k: a riff
// login in another terminal may have made the key. The caller holds mu.
func (m *Machine) keyOf(k Stored) error {
	if m.key != nil && thumbprint(m.key) == k.Key {
		return nil
	}
	key, err := m.keys.load(false)
	if err != nil {
		if errors.Is(err, errNoKey) {
			return ErrOtherKey
		}
		return err
	}
	m.key = key
	if thumbprint(key) != k.Key {
		return ErrOtherKey
	}
	return nil
}

func (m *Machine) expiring(renewMs int64) bool {
	return renewMs > 0 && !m.now().Before(time.UnixMilli(renewMs))
}

// refresh gives the sign-in after a refresh of the person token stale.
// It takes the lock of the machine and reads the folder again under it:
// when another process refreshed already, it takes that pair and sends
// nothing (a refresh token works once).
func (m *Machine) refresh(ctx context.Context, stale string) (Stored, error) {
	unlock, err := m.folder.lock(ctx)
	if err != nil {
		return Stored{}, err
	}
	defer unlock()
	k, err := m.live()
	if err != nil {
		return Stored{}, err
	}
	if k.Access != stale && !m.expiring(k.RenewMs) {
		return k, nil
	}
	reply, err := riffclient.SendProved(ctx, m.client, wire.Refresh{RefreshToken: k.Refresh}, m.Key(), "")
	var refused *wire.Refused
	switch {
	case errors.As(err, &refused) && refused.Code == wire.BadToken:
		return Stored{}, m.lost(ctx, k)
	case errors.As(err, &refused) && refused.Code == wire.BadProof:
		return Stored{}, ErrOtherKey
	case err != nil:
		// No reply, or a 503 to the end of the budget: the pair stays. A
		// reply that was lost makes this generation the one before the
		// current: the server takes it once more.
		return Stored{}, err
	}
	if otherRiff(reply.Riff, k.Riff) {
		return Stored{}, m.newRiff()
	}
	k = m.withReply(k, reply)
	if err := m.folder.write(m.server, &k); err != nil {
		return Stored{}, err
	}
	return k, nil
}

// lost stores that the server ended the sign-in k, or, when the server
// names another riff ID, removes it: the riff is new. The caller holds
// the lock.
func (m *Machine) lost(ctx context.Context, k Stored) error {
	p, err := riffclient.SendProved(ctx, m.client, wire.SignInProvider{}, nil, "")
	if err == nil && otherRiff(p.Riff, k.Riff) {
		return m.newRiff()
	}
	k.Ended, k.Access, k.Refresh, k.ExpiresMs, k.RenewMs = true, "", "", 0, 0
	if err := m.folder.write(m.server, &k); err != nil {
		return err
	}
	return ErrEnded
}

// newRiff removes the sign-in of the server: its riff is new. The caller
// holds the lock.
func (m *Machine) newRiff() error {
	if err := m.folder.write(m.server, nil); err != nil {
		return err
	}
	m.mu.Lock()
	m.fault = ErrNewRiff
	clear(m.sessions)
	m.mu.Unlock()
	return ErrNewRiff
}

// withReply gives k with the tokens of a sign-in or a refresh.
func (m *Machine) withReply(k Stored, r wire.TokenReply) Stored {
	k.Access = r.AccessToken
	if r.RefreshToken != "" {
		k.Refresh = r.RefreshToken
	}
	k.ExpiresMs, k.RenewMs = 0, 0
	if r.ExpiresSecs > 0 {
		life := time.Duration(r.ExpiresSecs) * time.Second
		k.ExpiresMs = m.now().Add(life).UnixMilli()
		k.RenewMs = renewAt(m.now(), life).UnixMilli()
	}
	if r.User != "" {
		k.User = r.User
	}
	if r.Email != "" {
		k.Email = r.Email
	}
	return k
}

// sessionToken gives the session token of this process for session: the
// one it has, or a new swap of the person token of k.
func (m *Machine) sessionToken(ctx context.Context, session string, k Stored) (string, error) {
	m.swap.Lock()
	defer m.swap.Unlock()
	m.mu.Lock()
	s, ok := m.sessions[session]
	m.mu.Unlock()
	if ok && (s.renew.IsZero() || m.now().Before(s.renew)) {
		return s.token, nil
	}
	reply, err := riffclient.SendProved(ctx, m.client, wire.Swap{Session: session}, m.Key(), k.Access)
	var refused *wire.Refused
	if errors.As(err, &refused) && refused.Code == wire.BadToken {
		// The person token: refresh it, and swap once more.
		if k, err = m.refresh(ctx, k.Access); err != nil {
			return "", err
		}
		reply, err = riffclient.SendProved(ctx, m.client, wire.Swap{Session: session}, m.Key(), k.Access)
	}
	if err != nil {
		return "", err
	}
	if otherRiff(reply.Riff, k.Riff) {
		unlock, lerr := m.folder.lock(ctx)
		if lerr != nil {
			return "", lerr
		}
		defer unlock()
		return "", m.newRiff()
	}
	s = sessionToken{token: reply.AccessToken}
	if reply.ExpiresSecs > 0 {
		s.renew = renewAt(m.now(), time.Duration(reply.ExpiresSecs)*time.Second)
	}
	m.mu.Lock()
	m.sessions[session] = s
	m.mu.Unlock()
	return s.token, nil
}

// SignIn signs this machine in with the ID token of the provider: it
// makes the device key when there is none, sends the public key with a
// proof of it, and stores the tokens. Login calls it.
func (m *Machine) SignIn(ctx context.Context, idToken string) (Stored, error) {
	unlock, err := m.folder.lock(ctx)
	if err != nil {
		return Stored{}, err
	}
	defer unlock()
	key, err := m.keys.load(true)
	if err != nil {
		return Stored{}, err
	}
	jwk, err := jose.JSONWebKey{Key: &key.PublicKey, Algorithm: string(jose.ES256), Use: "sig"}.MarshalJSON()
	if err != nil {
		return Stored{}, fmt.Errorf("encode the public device key: %w", err)
	}
	reply, err := riffclient.SendProved(ctx, m.client, wire.SignIn{IDToken: idToken, Key: jwk}, key, "")
	if err != nil {
		return Stored{}, err
	}
	k := m.withReply(Stored{Riff: reply.Riff, Key: thumbprint(key)}, reply)
	if err := m.folder.write(m.server, &k); err != nil {
		return Stored{}, err
	}
	m.mu.Lock()
	m.key, m.fault = key, nil
	clear(m.sessions)
	m.mu.Unlock()
	return k, nil
}

// thumbprint gives the thumbprint of the public key of key.
func thumbprint(key *ecdsa.PrivateKey) string {
	tp, err := signed.Thumbprint(&key.PublicKey)
	if err != nil {
		return ""
	}
	return tp
}

// otherRiff says whether the riff ID of a reply names another riff than
// the stored one: a reply that names none says nothing.
func otherRiff(reply, stored string) bool { return reply != "" && reply != stored }

var _ riffclient.Auth = (*Machine)(nil)
