package riffengine

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

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
	tokenRoute(s, wire.SignIn{}.Path(), s.tokens.SignIn)
	tokenRoute(s, wire.Refresh{}.Path(), s.tokens.Refresh)
	tokenRoute(s, wire.Swap{}.Path(), s.tokens.Swap)
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
	reply := s.tokens.Provider()
	reply.Riff = s.riffID()
	writeJSON(s, w, reply)
}

// tokenBody reads the body of a call of the token path into v. In a
// riff with no sign-in the call is refused with no_sign_in, before its
// body is read.
func tokenBody[T any](s *Handler, w http.ResponseWriter, r *http.Request) (T, bool) {
	var v T
	if !s.tokens.Provider().SignIn {
		s.refuse(w, wire.Refuse(wire.NoSignIn, textNoSignIn), 0)
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

// tokenRoute makes the route of a call of the token path: the body, the
// call of the token layer (which holds every rule of it), the reply.
func tokenRoute[T any](s *Handler, path string, call func(r *http.Request, v T) (tokens.Pair, string, error)) {
	s.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		v, ok := tokenBody[T](s, w, r)
		if !ok {
			return
		}
		pair, key, err := call(r, v)
		if err != nil {
			s.tokenFail(w, r, err, key)
			return
		}
		writeJSON(s, w, s.tokenReply(pair))
	})
}

func (s *Handler) tokenReply(p tokens.Pair) wire.TokenReply {
	secs := int64(p.Token.Expires.Sub(s.e.opts.Now()) / time.Second)
	return wire.TokenReply{AccessToken: p.Access, ExpiresSecs: max(secs, 0), RefreshToken: p.Refresh,
		User: p.Token.User, Email: p.Token.Email, Riff: s.riffID()}
}

// tokenFail writes the error of a call of the token path: a refusal of
// the token layer (with its denied line, key the key of a valid token),
// another refusal (not_member of admit has its refused line), a server
// that waits (503), or one that stopped.
func (s *Handler) tokenFail(w http.ResponseWriter, r *http.Request, err error, key string) {
	var refused *wire.Refused
	switch {
	case errors.As(err, &refused) && tokenLayerCode(refused.Code):
		s.deniedKey(w, r, refused, key)
	case errors.As(err, &refused):
		s.refuse(w, refused, 0)
	case errors.Is(err, tokens.ErrNotSaved):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	default:
		s.fail(w, err)
	}
}
