package riffengine

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/riffstate"
)

// Identity is what a checked ID token of the provider says of a person:
// the verified email, and the hosted domain (the hd claim, "" with none).
type Identity struct {
	Email  string
	Domain string
}

// IDTokens checks the ID tokens of the provider of a riff with sign-in.
// Check gives the identity of a valid token: the issuer of the riff, the
// audience of its client, not expired, a verified email. Any other token
// gives an error whose text says what failed (it names no email). The
// binary implements it with go-oidc.
type IDTokens interface {
	Check(ctx context.Context, raw string) (Identity, error)
}

// Tokens is the token store as the token layer uses it: *tokens.Store.
type Tokens interface {
	Refresh(refresh, key string) (tokens.Pair, error)
	Swap(access, key, session string) (tokens.Pair, error)
	Lookup(access string) (tokens.Token, error)
	KeyOfRefresh(refresh string) (string, bool)
}

var _ Tokens = (*tokens.Store)(nil)

// SignInOptions set the token layer of a riff with sign-in.
type SignInOptions struct {
	// IDTokens checks the ID tokens of a sign-in; nil is a riff with
	// --require-sign-in and no provider: each call needs a token, and no
	// person can sign in.
	IDTokens IDTokens
	// Provider is what /v1/signin/provider tells riff login: the issuer,
	// the OAuth client (an installed app) and the scopes. SignIn and Riff
	// are set by the handler.
	Provider wire.ProviderReply
	// PublicURL is the scheme and host that the DPoP proofs name
	// (https://riff.example.com): behind a proxy or Cloud Run the server
	// sees another one. "" takes http:// and the Host of each call.
	PublicURL string
	// Now is the clock of the proofs; nil is time.Now.
	Now func() time.Time
}

// SignedIn is the token layer of a riff with sign-in: each call carries
// an access token (Authorization: DPoP TOKEN) and a DPoP proof of the
// device key of its sign-in, for this method, this URL and this token.
// It is safe for concurrent use.
type SignedIn struct {
	opts   SignInOptions
	tokens Tokens
	seen   *dpop.Seen
	// start is the start of this instance: it refuses each proof from
	// before it (the replay cache of an old instance is gone).
	start time.Time
}

var _ TokenLayer = (*SignedIn)(nil)

// NewSignedIn makes the token layer of a riff with sign-in over the
// token store of e (Engine.SignIns). It gives an error for an engine
// with no sign-in.
func NewSignedIn(e *Engine, opts SignInOptions) (*SignedIn, error) {
	if e.SignIns() == nil {
		return nil, errors.New("the token layer of sign-in needs an engine with sign-in (Options.SignIn)")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	return &SignedIn{opts: opts, tokens: e.SignIns(), seen: dpop.NewSeen(0), start: opts.Now()}, nil
}

// The texts of the refusals of the token layer.
const (
	textNoToken     = "this riff has sign-in: each call needs a token. Run riff login"
	textProofBefore = "the proof is from before this riff-server started: riff makes a new one for each try"
)

// Prove checks the token and the proof of a call, then that the token
// may act as me: a person token only as a person URI of its user, a
// session token only as its session of its user. On a refusal the proof
// holds the key of the token when the token was valid (for the denied
// line), and is zero otherwise.
func (l *SignedIn) Prove(r *http.Request, me name.SessionURI) (Proof, *wire.Refused) {
	t, refused := l.check(r)
	if refused != nil {
		return Proof{caller: riffstate.Caller{Key: t.Key}}, refused
	}
	return l.proveAs(r, t, me)
}

// proveAs is the part of Prove after the check of the token t: that t
// may act as me, the me of the body. The handler checks the token first,
// from the headers, and reads the body after it.
func (l *SignedIn) proveAs(r *http.Request, t tokens.Token, me name.SessionURI) (Proof, *wire.Refused) {
	keyOnly := Proof{caller: riffstate.Caller{Key: t.Key}}
	if me.IsZero() {
		return keyOnly, wire.Refuse(wire.BadRequest, "this call names no me: a call with a token names the caller that the token acts as")
	}
	if len(me.Unknown) > 0 {
		return keyOnly, wire.Refuse(wire.BadRequest, "the URI %s has a part that this riff-server does not know: %s", me.Bare(), quote.Input(strings.Join(me.Unknown, "&")))
	}
	if refused := notYou(t, me); refused != nil {
		return keyOnly, refused
	}
	c := riffstate.CallerOf(me)
	c.Key, c.SignedInAt = t.Key, t.Position
	return Proof{caller: c, call: headerValue(r.Header, headerCall), held: streamOwner{signIn: t.SignIn, expires: t.Expires}}, nil
}

// notYou says whether a token may act as me. A person token does not act
// as a session: each process of a session swaps it for a session token
// of its own (POST /v1/token/swap), so a copied person token in a
// session's process shows.
func notYou(t tokens.Token, me name.SessionURI) *wire.Refused {
	switch {
	case me.User != t.User:
		return wire.Refuse(wire.NotYou, "the token of %s may not act as %s", t.User, me.Bare())
	case t.Session == "" && !me.IsPerson():
		return wire.Refuse(wire.NotYou, "a person token acts only as its person, not as the session %s: riff swaps it for a session token", me.Bare())
	case t.Session != "" && me.Session != t.Session:
		return wire.Refuse(wire.NotYou, "the token of the session %s/%s may not act as %s", t.User, shortID(t.Session), me.Bare())
	}
	return nil
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// check proves the token of a call: the header Authorization, the token
// in the store, the proof of its key for the method, the URL and the
// token, from this instance, seen once. It gives the token, or the
// refusal with the token when the token was valid.
func (l *SignedIn) check(r *http.Request) (tokens.Token, *wire.Refused) {
	auth := r.Header.Get(wire.HeaderAuthorization)
	if auth == "" {
		return tokens.Token{}, wire.Refuse(wire.NoToken, "%s", textNoToken)
	}
	scheme, access, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "DPoP") || access == "" {
		return tokens.Token{}, wire.Refuse(wire.BadToken, "the header Authorization must be DPoP TOKEN")
	}
	t, err := l.tokens.Lookup(access)
	if err != nil {
		return tokens.Token{}, tokenRefusal(err)
	}
	if _, refused := l.proof(r, access, t.Key); refused != nil {
		return t, refused
	}
	return t, nil
}

// proof checks the DPoP proof of a call for the method, the public URL
// of its path and access ("" on the token path), and that its key is key
// ("" takes the key of the proof). It then remembers the proof. It gives
// the thumbprint of the key of the proof.
func (l *SignedIn) proof(r *http.Request, access, key string) (string, *wire.Refused) {
	now := l.opts.Now()
	p, err := dpop.Verify(r.Header.Get(wire.HeaderDPoP), r.Method, l.url(r), access, now)
	if err != nil {
		return "", wire.Refuse(wire.BadProof, "the DPoP proof is refused: %v", err)
	}
	if key != "" && p.Thumbprint != key {
		return "", wire.Refuse(wire.BadProof, "the DPoP proof is not of the device key of the token")
	}
	// iat has whole seconds: a proof of the second of the start passes.
	if p.IssuedAt.Before(l.start.Truncate(time.Second)) {
		return "", wire.Refuse(wire.BadProof, "%s", textProofBefore)
	}
	if err := l.seen.Add(p, now); err != nil {
		if errors.Is(err, dpop.ErrFull) {
			return "", &wire.Refused{Code: wire.BadProof, Reason: "riff-server holds too many proofs now; riff tries again", Status: http.StatusServiceUnavailable}
		}
		return "", wire.Refuse(wire.BadProof, "the DPoP proof is refused: %v", err)
	}
	return p.Thumbprint, nil
}

// url is the URL that a proof of the call names: the public URL and the
// path.
func (l *SignedIn) url(r *http.Request) string {
	base := l.opts.PublicURL
	if base == "" {
		base = "http://" + r.Host
	}
	return base + r.URL.Path
}

// tokenRefusal maps an error of the token store to the code of the token
// layer. ErrNotSaved is no refusal: 503, the client tries again.
func tokenRefusal(err error) *wire.Refused {
	switch {
	case errors.Is(err, tokens.ErrWrongKey):
		return wire.Refuse(wire.BadProof, "%v", err)
	case errors.Is(err, tokens.ErrReused), errors.Is(err, tokens.ErrEnded):
		return wire.Refuse(wire.BadToken, "%v", err)
	case errors.Is(err, tokens.ErrNotSaved):
		return &wire.Refused{Code: wire.BadToken, Reason: err.Error(), Status: http.StatusServiceUnavailable}
	case errors.Is(err, tokens.ErrUnknown):
		return wire.Refuse(wire.BadToken, "%v", err)
	}
	return &wire.Refused{Code: wire.BadToken, Reason: "riff-server: " + callerText(err), Status: http.StatusInternalServerError}
}

// deviceKey reads the public JWK of a sign-in: a P-256 public key.
func deviceKey(raw []byte) (string, *wire.Refused) {
	var jwk jose.JSONWebKey
	if len(raw) == 0 {
		return "", wire.Refuse(wire.BadRequest, "the sign-in has no key: give the public JWK of the device key")
	}
	if err := jwk.UnmarshalJSON(raw); err != nil {
		return "", wire.Refuse(wire.BadRequest, "the key of the sign-in is no JWK: %v", err)
	}
	pub, ok := jwk.Key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return "", wire.Refuse(wire.BadRequest, "the key of the sign-in must be a public P-256 key (ES256)")
	}
	thumb, err := signed.Thumbprint(pub)
	if err != nil {
		return "", wire.Refuse(wire.BadRequest, "the key of the sign-in: %v", err)
	}
	return thumb, nil
}

// SignIn signs a person in, as the token path does after its checks of
// the ID token and of the proof of key (a thumbprint): the command admit
// with the sign-in as its caller, then a sign-in of the token store at
// the position of the pending copy at the check of admit, then the wait
// for the write of signins.json. A person who may not join is refused
// (not_member, as *wire.Refused); a remove or a revoke of the person
// that comes between gives tokens.ErrEnded.
func (e *Engine) SignIn(ctx context.Context, who Identity, key string) (tokens.Pair, error) {
	if e.signIns == nil {
		return tokens.Pair{}, wire.Refuse(wire.NoSignIn, "this riff has no sign-in")
	}
	email := riffstate.NormalEmail(who.Email)
	user, err := riffstate.UserOfEmail(email)
	if err != nil {
		return tokens.Pair{}, err
	}
	call := Authenticated[riffstate.Admit]{cmd: riffstate.Admit{Email: email, Domain: who.Domain}, caller: riffstate.SignInCaller(user)}
	checked, _, _, err := check[riffstate.Admit, riffstate.AdmitReply](e, call, riffstate.Asked{})
	if err != nil {
		return tokens.Pair{}, err
	}
	at := checked.en.at
	checked.queue()
	q := Queued[riffstate.AdmitReply]{e: e, en: checked.en, cmd: call.cmd, caller: call.caller}
	applied, err := q.applied(ctx)
	if err != nil {
		return tokens.Pair{}, err
	}
	reply, err := applied.reply()
	if err != nil {
		return tokens.Pair{}, err
	}
	e.mu.Lock()
	beforeStart := e.beforeStart
	e.mu.Unlock()
	if beforeStart != nil {
		beforeStart()
	}
	// A remove or a revoke of the person whose record came after the
	// check of admit ended the sign-ins from before its position, and
	// keeps that floor: Start refuses a position below it (ErrEnded).
	pair, version, err := e.signIns.Start(tokens.Person{User: reply.User, Email: email}, key, at)
	if err != nil {
		return tokens.Pair{}, err
	}
	if err := e.WaitSaved(ctx, version); err != nil {
		return tokens.Pair{}, err
	}
	return pair, nil
}

// nameOwner sends name_owner for the setting --owner, once after the
// load of a riff with sign-in, and waits for its write.
func (e *Engine) nameOwner(ctx context.Context) error {
	owner := e.opts.StateOptions.Owner
	if !e.opts.StateOptions.SignIn || owner == "" {
		return nil
	}
	if _, err := RunServer[riffstate.NameOwner, struct{}](ctx, e, riffstate.NameOwner{Email: owner}); err != nil {
		return fmt.Errorf("name the owner of --owner: %w", err)
	}
	return nil
}
