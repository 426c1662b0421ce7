package riffengine

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/riffstate"
)

// The routes of the token path: the provider, the sign-in, the refresh
// and the swap. They need no access token (the swap carries the person
// token), and no build check: riff login works when the versions do not
// match.

// tokenPath says whether a path is of the token path.
func tokenPath(path string) bool {
	switch path {
	case wire.SignInProvider{}.Path(), wire.SignIn{}.Path(), wire.Refresh{}.Path(), wire.Swap{}.Path():
		return true
	}
	return false
}

func (s *Handler) signInRoutes() {
	s.mux.HandleFunc("POST "+wire.SignInProvider{}.Path(), s.provider)
	s.mux.HandleFunc("POST "+wire.SignIn{}.Path(), s.signInCall)
	s.mux.HandleFunc("POST "+wire.Refresh{}.Path(), s.refreshCall)
	s.mux.HandleFunc("POST "+wire.Swap{}.Path(), s.swapCall)
}

// riffID gives the ID of the riff from the written copy.
func (s *Handler) riffID() string {
	var id string
	s.e.View(func(v riffstate.View, _ riffstate.Now) { id = v.Riff().ID })
	return id
}

// provider tells riff login how to sign in: in a riff with no sign-in,
// only that it has none.
func (s *Handler) provider(w http.ResponseWriter, r *http.Request) {
	reply := wire.ProviderReply{Riff: s.riffID()}
	if s.signIn != nil {
		reply = s.signIn.opts.Provider
		reply.SignIn, reply.Riff = true, s.riffID()
	}
	s.writeJSON(w, reply)
}

// tokenBody reads the body of a call of the token path into v. In a
// riff with no sign-in the call is refused with no_sign_in.
func tokenBody[T any](s *Handler, w http.ResponseWriter, r *http.Request) (T, bool) {
	var v T
	if s.signIn == nil {
		s.refuse(w, wire.Refuse(wire.NoSignIn, "this riff has no sign-in: it needs no riff login"), 0)
		return v, false
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return v, false
	}
	if err := json.Unmarshal(body, &v); err != nil {
		s.refuse(w, wire.Refuse(wire.BadRequest, "the body of %s does not read: %v", r.URL.Path, err), 0)
		return v, false
	}
	return v, true
}

// signInCall signs a person in: the proof of the sent key, the ID token,
// then Engine.SignIn (admit, the sign-in of the store, the wait for
// signins.json).
func (s *Handler) signInCall(w http.ResponseWriter, r *http.Request) {
	call, ok := tokenBody[wire.SignIn](s, w, r)
	if !ok {
		return
	}
	key, refused := deviceKey(call.Key)
	if refused != nil {
		s.refuse(w, refused, 0)
		return
	}
	thumb, refused := s.signIn.proof(r, "", key)
	if refused != nil {
		s.deniedKey(w, r, refused, "")
		return
	}
	if s.signIn.opts.IDTokens == nil {
		s.refuse(w, wire.Refuse(wire.NotAllowed, "this riff requires sign-in and has no provider: give riff-server --issuer and --client-id"), 0)
		return
	}
	who, err := s.signIn.opts.IDTokens.Check(r.Context(), call.IDToken)
	if err != nil {
		s.deniedKey(w, r, wire.Refuse(wire.BadToken, "the ID token is refused: %v", err), "")
		return
	}
	pair, err := s.e.SignIn(r.Context(), who, thumb)
	if err != nil {
		s.tokenFail(w, r, err, thumb)
		return
	}
	s.writeJSON(w, s.tokenReply(pair))
}

func (s *Handler) refreshCall(w http.ResponseWriter, r *http.Request) {
	call, ok := tokenBody[wire.Refresh](s, w, r)
	if !ok {
		return
	}
	thumb, refused := s.signIn.proof(r, "", "")
	if refused != nil {
		s.deniedKey(w, r, refused, "")
		return
	}
	pair, err := s.signIn.tokens.Refresh(call.RefreshToken, thumb)
	pair, err = s.e.waitRefresh(r.Context(), pair, err)
	if err != nil {
		// The line of a proof of another key names the key of the
		// token's sign-in.
		key, _ := s.signIn.tokens.KeyOfRefresh(call.RefreshToken)
		s.tokenFail(w, r, err, key)
		return
	}
	s.writeJSON(w, s.tokenReply(pair))
}

// swapCall gives a session its own token for the person token of the
// call, proved as each call with a token.
func (s *Handler) swapCall(w http.ResponseWriter, r *http.Request) {
	call, ok := tokenBody[wire.Swap](s, w, r)
	if !ok {
		return
	}
	if err := name.CheckSessionID(call.Session); err != nil {
		s.refuse(w, wire.Refuse(wire.BadRequest, "%v", err), 0)
		return
	}
	t, refused := s.signIn.check(r)
	if refused != nil {
		s.deniedKey(w, r, refused, t.Key)
		return
	}
	if t.Session != "" {
		s.deniedKey(w, r, wire.Refuse(wire.NotYou, "a session token cannot swap: swap the person token"), t.Key)
		return
	}
	_, access, _ := strings.Cut(r.Header.Get(wire.HeaderAuthorization), " ")
	pair, err := s.signIn.tokens.Swap(access, t.Key, call.Session)
	if err != nil {
		s.tokenFail(w, r, err, t.Key)
		return
	}
	s.writeJSON(w, s.tokenReply(pair))
}

func (s *Handler) tokenReply(p tokens.Pair) wire.TokenReply {
	secs := int64(p.Token.Expires.Sub(s.e.opts.Now()) / time.Second)
	return wire.TokenReply{AccessToken: p.Access, ExpiresSecs: max(secs, 0), RefreshToken: p.Refresh,
		User: p.Token.User, Email: p.Token.Email, Riff: s.riffID()}
}

// tokenFail writes the error of a call of the token path: a refusal of
// the store or of admit, a server that waits (503), or one that stopped.
func (s *Handler) tokenFail(w http.ResponseWriter, r *http.Request, err error, key string) {
	var refused *wire.Refused
	switch {
	case errors.As(err, &refused):
		// A refusal of admit (not_member) has its refused line.
		s.refuse(w, refused, 0)
	case errors.Is(err, tokens.ErrNotSaved):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case errors.Is(err, tokens.ErrUnknown), errors.Is(err, tokens.ErrReused), errors.Is(err, tokens.ErrEnded), errors.Is(err, tokens.ErrWrongKey):
		s.deniedKey(w, r, tokenRefusal(err), key)
	default:
		s.fail(w, err)
	}
}
