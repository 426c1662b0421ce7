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
	Start(p tokens.Person, key string, position uint64) (tokens.Pair, uint64, error)
	Refresh(refresh, key string) (tokens.Pair, error)
	Swap(access, key, session string) (tokens.Pair, error)
	Lookup(access string) (tokens.Token, error)
	ChainKey(refresh string) (string, bool)
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
// It also runs the token path: the sign-in, the refresh and the swap.
// It is safe for concurrent use.
type SignedIn struct {
	e      *Engine
	opts   SignInOptions
	tokens Tokens
	// seen is the replay cache: it holds only proofs of a key that a
	// token, an ID token or a refresh token proved (docs/tokens.md, "The
	// replay cache").
	seen *dpop.Seen
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
	// A riff with a provider whose settings and log let nobody join
	// could never get a person, nor an owner: the start says which
	// setting to give (docs/people.md, "The first owner").
	if opts.IDTokens != nil {
		var nobody error
		e.View(func(v riffstate.View, _ riffstate.Now) { nobody = v.MayBeJoined() })
		if nobody != nil {
			return nil, nobody
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	return &SignedIn{e: e, opts: opts, tokens: e.SignIns(), seen: dpop.NewSeen(0), start: opts.Now()}, nil
}

// The texts of the refusals of the token layer.
const (
	textNoToken     = "this riff has sign-in: each call needs a token. Run riff login"
	textProofBefore = "the proof is from before this riff-server started: riff makes a new one for each try"
	textFull        = "riff-server holds too many proofs now; riff tries again"
	textFacts       = "the facts of riff-server go to a signed-in person, not to a session token: riff server asks with the token of the person"
)

// Token checks the token of a call from its headers: Authorization, the
// token in the store, the proof of its key for the method, the URL and
// the token, from this instance, seen once.
func (l *SignedIn) Token(r *http.Request) (Token, *wire.Refused) {
	_, t, refused := l.token(r)
	return Token{t: t}, refused
}

// token is Token with the access token of the call. The proof is
// remembered only after the token proved its key, so that a caller with
// no valid token cannot fill the replay cache.
func (l *SignedIn) token(r *http.Request) (string, tokens.Token, *wire.Refused) {
	access, refused := accessToken(r.Header)
	if refused != nil {
		return "", tokens.Token{}, refused
	}
	t, err := l.tokens.Lookup(access)
	if err != nil {
		return "", tokens.Token{}, tokenRefusal(err)
	}
	p, refused := l.verify(r, access, t.Key)
	if refused == nil {
		refused = l.remember(p)
	}
	if refused != nil {
		return "", t, refused
	}
	return access, t, nil
}

// Prove checks that the token t may act as me: a person token only as
// a person URI of its user, a session token only as its session of its
// user. On a refusal the proof holds the key of the token (for the
// denied line).
func (l *SignedIn) Prove(r *http.Request, t Token, me name.SessionURI) (Proof, *wire.Refused) {
	keyOnly := Proof{caller: riffstate.Caller{Key: t.t.Key}}
	if me.IsZero() {
		return keyOnly, wire.Refuse(wire.BadRequest, "this call names no me: a call with a token names the caller that the token acts as")
	}
	if refused := unknownParts(me); refused != nil {
		return keyOnly, refused
	}
	if refused := notYou(t.t, me); refused != nil {
		return keyOnly, refused
	}
	c := riffstate.CallerOf(me)
	c.Key, c.SignedInAt = t.t.Key, t.t.Position
	return Proof{caller: c, call: headerValue(r.Header, headerCall), held: streamOwner{signIn: t.t.SignIn, expires: t.t.Expires}}, nil
}

// Facts gives the facts of the server only to a signed-in person: the
// token of a person, not of a session (docs/signin.md, "The token
// layer").
func (l *SignedIn) Facts(r *http.Request) (string, *wire.Refused) {
	_, t, refused := l.token(r)
	if refused != nil {
		return t.Key, refused
	}
	if t.Session != "" {
		return t.Key, wire.Refuse(wire.NotYou, "%s", textFacts)
	}
	return "", nil
}

// Provider is what /v1/signin/provider tells riff login.
func (l *SignedIn) Provider() wire.ProviderReply {
	p := l.opts.Provider
	p.SignIn = true
	if l.opts.IDTokens == nil {
		p.Reason = textNoProvider
	}
	return p
}

// textNoProvider is why no person can sign in to a riff with
// --require-sign-in and no provider.
const textNoProvider = "this riff requires sign-in and has no provider: give riff-server --issuer and --client-id"

// SignIn signs a person in, in this order: the key of the call (a public
// P-256 JWK), the proof of that key, the ID token, then the command
// admit through the one dispatch, with the sign-in as its caller. Only
// then, for a person who may join, the proof is remembered; then a
// sign-in of the token store at the position of the pending copy at the
// check of admit, and the wait for the write of signins.json. A remove
// or a revoke of the person that comes between gives bad_token
// (tokens.ErrEnded).
func (l *SignedIn) SignIn(r *http.Request, call wire.SignIn) (tokens.Pair, string, error) {
	key, refused := deviceKey(call.Key)
	if refused != nil {
		return tokens.Pair{}, "", refused
	}
	p, refused := l.verify(r, "", key)
	if refused != nil {
		return tokens.Pair{}, "", refused
	}
	if l.opts.IDTokens == nil {
		return tokens.Pair{}, "", wire.Refuse(wire.NotAllowed, "%s", textNoProvider)
	}
	who, err := l.opts.IDTokens.Check(r.Context(), call.IDToken)
	if err != nil {
		return tokens.Pair{}, "", wire.Refuse(wire.BadToken, "the ID token is refused: %v", err)
	}
	person, at, err := l.e.admit(r.Context(), who)
	if err != nil {
		return tokens.Pair{}, key, err
	}
	if refused := l.remember(p); refused != nil {
		return tokens.Pair{}, "", refused
	}
	// A remove or a revoke of the person whose record came after the
	// check of admit ended the sign-ins from before its position, and
	// keeps that floor: Start refuses a position below it (ErrEnded).
	pair, version, err := l.tokens.Start(person, key, at)
	if err != nil {
		return tokens.Pair{}, key, storeError(err)
	}
	if err := l.e.WaitSaved(r.Context(), version); err != nil {
		return tokens.Pair{}, key, err
	}
	return pair, "", nil
}

// Refresh gives the next pair of a chain. As on a call with a token, the
// token comes first: a refresh token of no chain that the store holds is
// refused before its proof is checked (bad_token), so a flood of garbage
// costs no check of a signature. The proof is then of any key; it is
// remembered only when the chain of the token is of that key, so that
// no refused refresh fills the replay cache. The rules of the chain are
// the store's (tokens.Store.Refresh).
func (l *SignedIn) Refresh(r *http.Request, call wire.Refresh) (tokens.Pair, string, error) {
	chainKey, held := l.tokens.ChainKey(call.RefreshToken)
	if !held {
		return tokens.Pair{}, "", tokenRefusal(tokens.ErrUnknown)
	}
	p, refused := l.verify(r, "", "")
	if refused != nil {
		return tokens.Pair{}, "", refused
	}
	if chainKey == p.Thumbprint {
		if refused := l.remember(p); refused != nil {
			return tokens.Pair{}, "", refused
		}
	}
	pair, err := l.tokens.Refresh(call.RefreshToken, p.Thumbprint)
	// The reply waits for the write of signins.json that it needs.
	pair, err = l.e.waitRefresh(r.Context(), pair, err)
	if err != nil {
		// The line of a proof of another key names the key of the
		// token's sign-in.
		key, _ := l.tokens.KeyOfRefresh(call.RefreshToken)
		return tokens.Pair{}, key, storeError(err)
	}
	return pair, "", nil
}

// Swap gives a session its own token for the person token of the call,
// proved as each call with a token. The store refuses a session token
// (not_you).
func (l *SignedIn) Swap(r *http.Request, call wire.Swap) (tokens.Pair, string, error) {
	if err := name.CheckSessionID(call.Session); err != nil {
		return tokens.Pair{}, "", wire.Refuse(wire.BadRequest, "%v", err)
	}
	access, t, refused := l.token(r)
	if refused != nil {
		return tokens.Pair{}, t.Key, refused
	}
	pair, err := l.tokens.Swap(access, t.Key, call.Session)
	if err != nil {
		return tokens.Pair{}, t.Key, storeError(err)
	}
	return pair, "", nil
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

// accessToken is the one reader of the header Authorization: exactly
// one, of the form DPoP TOKEN.
func accessToken(h http.Header) (string, *wire.Refused) {
	values := h.Values(wire.HeaderAuthorization)
	if len(values) == 0 || (len(values) == 1 && values[0] == "") {
		return "", wire.Refuse(wire.NoToken, "%s", textNoToken)
	}
	if len(values) > 1 {
		return "", wire.Refuse(wire.BadToken, "the call has %d headers Authorization: it carries one token", len(values))
	}
	scheme, access, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "DPoP") || access == "" {
		return "", wire.Refuse(wire.BadToken, "the header Authorization must be DPoP TOKEN")
	}
	return access, nil
}

// proofHeader gives the one header DPoP of a call ("" with none, which
// dpop.Verify refuses). More than one is refused: RFC 9449 §4.3 takes
// exactly one proof.
func proofHeader(h http.Header) (string, *wire.Refused) {
	values := h.Values(wire.HeaderDPoP)
	if len(values) > 1 {
		return "", wire.Refuse(wire.BadProof, "the call has %d headers DPoP: a call carries exactly one proof (RFC 9449 §4.3)", len(values))
	}
	if len(values) == 0 {
		return "", nil
	}
	return values[0], nil
}

// verify checks the DPoP proof of a call for the method, the public URL
// of its path and access ("" on the token path), that its key is key
// ("" takes the key of the proof), and that it is not from before the
// start of this instance. It does not remember the proof (remember).
func (l *SignedIn) verify(r *http.Request, access, key string) (dpop.Proof, *wire.Refused) {
	proof, refused := proofHeader(r.Header)
	if refused != nil {
		return dpop.Proof{}, refused
	}
	p, err := dpop.Verify(proof, r.Method, l.url(r), access, l.opts.Now())
	if err != nil {
		return dpop.Proof{}, wire.Refuse(wire.BadProof, "the DPoP proof is refused: %v", err)
	}
	if key != "" && p.Thumbprint != key {
		return dpop.Proof{}, wire.Refuse(wire.BadProof, "the DPoP proof is not of the device key of the token")
	}
	// iat has whole seconds: a proof of the second of the start passes.
	if p.IssuedAt.Before(l.start.Truncate(time.Second)) {
		return dpop.Proof{}, wire.Refuse(wire.BadProof, "%s", textProofBefore)
	}
	return p, nil
}

// remember puts a verified proof in the replay cache, by its key: a
// replay is bad_proof, a full cache 503 (the client tries again). The
// caller calls it only for a proof of a key that a valid token proved.
func (l *SignedIn) remember(p dpop.Proof) *wire.Refused {
	if err := l.seen.Add(p, l.opts.Now()); err != nil {
		if errors.Is(err, dpop.ErrFull) {
			return &wire.Refused{Code: wire.BadProof, Reason: textFull, Status: http.StatusServiceUnavailable}
		}
		return wire.Refuse(wire.BadProof, "the DPoP proof is refused: %v", err)
	}
	return nil
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
	case errors.Is(err, tokens.ErrSessionSwap):
		return wire.Refuse(wire.NotYou, "%v", err)
	case errors.Is(err, tokens.ErrReused), errors.Is(err, tokens.ErrEnded):
		return wire.Refuse(wire.BadToken, "%v", err)
	case errors.Is(err, tokens.ErrNotSaved):
		return &wire.Refused{Code: wire.BadToken, Reason: err.Error(), Status: http.StatusServiceUnavailable}
	case errors.Is(err, tokens.ErrUnknown):
		return wire.Refuse(wire.BadToken, "%v", err)
	}
	return &wire.Refused{Code: wire.BadToken, Reason: "riff-server: " + callerText(err), Status: http.StatusInternalServerError}
}

// storeError gives the refusal of an error of the token store on the
// token path; ErrNotSaved (503) and any other error stay as they are.
func storeError(err error) error {
	switch {
	case errors.Is(err, tokens.ErrNotSaved):
		return err
	case errors.Is(err, tokens.ErrUnknown), errors.Is(err, tokens.ErrReused), errors.Is(err, tokens.ErrEnded),
		errors.Is(err, tokens.ErrWrongKey), errors.Is(err, tokens.ErrSessionSwap):
		return tokenRefusal(err)
	}
	return err
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

// admit runs the command admit for the person of a checked ID token,
// through the one dispatch, with the sign-in as the caller (the class
// sign_in; the user is the USER of the email). It gives the person and
// the position of the pending copy at the check of admit: the position
// of the sign-in. A person who may not join is refused (not_member, as
// *wire.Refused).
func (e *Engine) admit(ctx context.Context, who Identity) (tokens.Person, uint64, error) {
	if e.signIns == nil {
		return tokens.Person{}, 0, wire.Refuse(wire.NoSignIn, "this riff has no sign-in")
	}
	// admit reads the email as the ID token gives it: a check after the
	// lower case would take a look-alike (docs/people.md, "Emails").
	email := riffstate.NormalEmail(who.Email)
	user, err := riffstate.UserOfEmail(who.Email)
	if err != nil {
		return tokens.Person{}, 0, err
	}
	call := Authenticated[riffstate.Admit]{cmd: riffstate.Admit{Email: who.Email, Domain: who.Domain}, caller: riffstate.SignInCaller(user)}
	replied, err := Dispatch[riffstate.Admit, riffstate.AdmitReply](ctx, e, call)
	if err != nil {
		return tokens.Person{}, 0, err
	}
	e.mu.Lock()
	beforeStart := e.beforeStart
	e.mu.Unlock()
	if beforeStart != nil {
		beforeStart()
	}
	return tokens.Person{User: replied.Reply.User, Email: email}, replied.at, nil
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
