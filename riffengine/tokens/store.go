package tokens

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The default lives of the tokens.
const (
	// DefaultAccessLife is how long an access token of a person holds.
	DefaultAccessLife = time.Hour
	// DefaultSessionLife is how long a session token holds.
	DefaultSessionLife = time.Hour
)

// Options set a [Store].
type Options struct {
	// Now is the clock of the store; nil is time.Now.
	Now func() time.Time
	// Rand gives the secrets of the tokens; nil is crypto/rand.
	Rand io.Reader
	// AccessLife is the life of an access token of a person (1 h by
	// default); SessionLife the life of a session token (1 h by default).
	AccessLife  time.Duration
	SessionLife time.Duration
	// Ended, when set, hears the end of each sign-in (Token.SignIn) in
	// the step that ends its tokens, under the lock of the store: the
	// engine ends the streams of the sign-in there, before the reply of
	// the command that ended it. It must not block or call the store.
	Ended func(signIn string)
}

// hash is the sha256 of a token: the store keeps nothing else of it.
type hash [sha256.Size]byte

func hashOf(token string) hash { return sha256.Sum256([]byte(token)) }

// signIn is one sign-in: the person, the device key, the position of the
// log at its start, and its one chain of refresh tokens.
type signIn struct {
	chain    string
	person   Person
	key      string
	position uint64
	started  time.Time

	// gen is the current generation, current the hash of its refresh
	// token. prevGen and prev are the generation that a lost reply can
	// bring back and the hash of its token (prevGen 0: none).
	gen     uint64
	current hash
	prevGen uint64
	prev    hash
	// loose is set by a Load: the first refresh of the chain takes the
	// saved generation or the next one as good, since the snapshot can
	// be one generation behind after a crash.
	loose bool
	// genVersion is the version of the store whose snapshot is the first
	// to hold the current generation (0: the loaded snapshot holds it).
	// The reply of the next refresh waits until it is saved, so that the
	// saved snapshot is never more than one generation behind the
	// newest refresh token that a client got.
	genVersion uint64
}

// access is a live access token: of the person (session "") or of a
// session.
type access struct {
	chain   string
	session string
	expires time.Time
	// pair is the generation of the refresh token that came with the
	// token (0 for a session token): a lost reply ends the pair of the
	// current generation.
	pair uint64
}

// Store holds the sign-ins of a riff. It is safe for use by many
// goroutines: one mutex guards all of it, and no method does I/O or
// blocks while it holds it. The engine's saver writes the snapshot
// (Snapshot, Saved) and the token layer calls the rest.
type Store struct {
	opts Options

	mu      sync.Mutex
	signIns map[string]*signIn // by chain ID
	tokens  map[hash]*access   // every live access token, by hash
	floors  map[string]uint64  // by user: no sign-in starts below it
	// version counts the changes of what the snapshot holds; saved is
	// the version of the last good write, failing whether the last
	// write failed.
	version uint64
	saved   uint64
	failing bool
	// savedCh closes when saved grows (nil: nobody waits).
	savedCh chan struct{}
	// changed gets a value after a change, for the saver.
	changed chan struct{}
	// pruneAt is the number of tokens at which the next add removes
	// the expired ones: a session token of a process that ended is
	// never looked up again.
	pruneAt int
}

// minPrune is the least number of tokens before a prune.
const minPrune = 1024

// addLocked keeps a new access token, and removes the expired ones
// once the map doubled since the last prune (so the cost of a prune is
// spread over the adds).
func (s *Store) addLocked(token string, a *access) {
	s.tokens[hashOf(token)] = a
	if len(s.tokens) < s.pruneAt {
		return
	}
	now := s.opts.Now()
	for h, t := range s.tokens {
		if !now.Before(t.expires) {
			delete(s.tokens, h)
		}
	}
	s.pruneAt = max(minPrune, 2*len(s.tokens))
}

// New makes an empty store.
func New(opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.AccessLife <= 0 {
		opts.AccessLife = DefaultAccessLife
	}
	if opts.SessionLife <= 0 {
		opts.SessionLife = DefaultSessionLife
	}
	return &Store{
		opts:    opts,
		signIns: map[string]*signIn{},
		tokens:  map[hash]*access{},
		floors:  map[string]uint64{},
		changed: make(chan struct{}, 1),
		pruneAt: minPrune,
	}
}

// secret gives n random bytes as base64url with no padding (no dot, so a
// refresh token splits on its dots).
func (s *Store) secret(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// The sizes of the random parts of the tokens, in bytes.
const (
	chainBytes  = 16
	secretBytes = 32
)

// changedLocked counts a change of the snapshot and wakes the saver.
func (s *Store) changedLocked() uint64 {
	s.version++
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return s.version
}

// Start makes a sign-in of p with the device key (its thumbprint) at the
// position of the log: a new chain at generation 1 and an access token.
// It gives the pair and the version of the snapshot that holds the
// sign-in: the caller replies only once that version is saved
// ([Store.Saved]). It gives ErrEnded when position is below the floor
// of p.User (see End), and changes nothing then.
func (s *Store) Start(p Person, key string, position uint64) (Pair, uint64, error) {
	if p.User == "" || key == "" {
		return Pair{}, 0, fmt.Errorf("start a sign-in: the user and the key must not be empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if position < s.floors[p.User] {
		return Pair{}, 0, ErrEnded
	}
	chain, err := s.secret(chainBytes)
	if err != nil {
		return Pair{}, 0, err
	}
	if _, taken := s.signIns[chain]; taken {
		return Pair{}, 0, fmt.Errorf("start a sign-in: the random chain ID is taken; the randomness is broken")
	}
	si := &signIn{chain: chain, person: p, key: key, position: position, started: s.opts.Now()}
	pair, err := s.nextPairLocked(si)
	if err != nil {
		return Pair{}, 0, err
	}
	s.signIns[chain] = si
	version := s.changedLocked()
	si.genVersion = version
	return pair, version, nil
}

// nextPairLocked moves the chain to its next generation (the current one
// becomes the one before it) and gives the new refresh token with a new
// access token of the person. It changes nothing when randomness fails.
func (s *Store) nextPairLocked(si *signIn) (Pair, error) {
	sec, err := s.secret(secretBytes)
	if err != nil {
		return Pair{}, err
	}
	acc, err := s.secret(secretBytes)
	if err != nil {
		return Pair{}, err
	}
	gen := si.gen + 1
	refresh := si.chain + "." + strconv.FormatUint(gen, 10) + "." + sec
	if si.gen > 0 {
		si.prevGen, si.prev = si.gen, si.current
	}
	si.gen, si.current = gen, hashOf(refresh)
	expires := s.opts.Now().Add(s.opts.AccessLife)
	s.addLocked(acc, &access{chain: si.chain, expires: expires, pair: gen})
	return Pair{Access: acc, Refresh: refresh, Token: si.token("", expires)}, nil
}

func (si *signIn) token(session string, expires time.Time) Token {
	return Token{Person: si.person, Session: session, Key: si.key, Position: si.position, Expires: expires, SignIn: si.chain}
}

// ParseRefresh splits a refresh token chain.generation.secret. It gives
// ErrUnknown for any other shape.
func ParseRefresh(token string) (chain string, gen uint64, secret string, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || !isBase64URL(parts[0], chainBytes) || !isBase64URL(parts[2], secretBytes) {
		return "", 0, "", fmt.Errorf("a refresh token has the shape chain.generation.secret: %w", ErrUnknown)
	}
	g := parts[1]
	if g == "" || len(g) > 20 || g[0] == '0' {
		return "", 0, "", fmt.Errorf("the generation of a refresh token is a number from 1: %w", ErrUnknown)
	}
	gen, perr := strconv.ParseUint(g, 10, 64)
	if perr != nil {
		return "", 0, "", fmt.Errorf("the generation of a refresh token is a number from 1: %w", ErrUnknown)
	}
	return parts[0], gen, parts[2], nil
}

// isBase64URL says whether v is n bytes in base64url with no padding.
func isBase64URL(v string, n int) bool {
	if len(v) != base64.RawURLEncoding.EncodedLen(n) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == n && base64.RawURLEncoding.EncodeToString(b) == v
}

// Refresh takes a refresh token and the thumbprint of the key of its
// proof, and gives the next pair. In order:
//
//   - a token of another shape, or of a chain that the store does not
//     hold: ErrUnknown;
//   - a key that is not the key of the sign-in: ErrWrongKey, and the
//     sign-in stays;
//   - while the last write of the snapshot failed: ErrNotSaved, and
//     nothing changes;
//   - the current generation: the next pair;
//   - the generation before the current one (its reply was lost): the
//     pair of the current generation ends, a new pair comes, and the
//     sign-in stays;
//   - an older generation: ErrReused, and the sign-in ends;
//   - the current or the previous generation with another secret, or a
//     generation after the current one: ErrUnknown, and the sign-in
//     stays (nobody reuses a token that was never given).
//
// After a Load, the first refresh of each chain takes the saved
// generation or the next one as good: a crash can lose the write of the
// last refresh. Only the device key guards the next one then, since the
// store never kept its hash.
//
// The reply waits for the write of the version Pair.SaveFirst (also with
// ErrReused, whose Pair holds only it): the end of a sign-in by reuse is
// written before its reply, and a new pair of generation G+1 goes out
// only once the saved snapshot holds generation G, so that a crash
// loses at most one generation and the first refresh after the load
// takes the newest token.
func (s *Store) Refresh(refresh, key string) (Pair, error) {
	chain, gen, _, err := ParseRefresh(refresh)
	if err != nil {
		return Pair{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	si, ok := s.signIns[chain]
	if !ok {
		return Pair{}, ErrUnknown
	}
	if key != si.key {
		return Pair{}, ErrWrongKey
	}
	if s.failing {
		return Pair{}, ErrNotSaved
	}
	h := hashOf(refresh)
	switch {
	case gen == si.gen && h == si.current:
	case si.loose && gen == si.gen+1:
		// The write of this generation was lost: take it as the
		// current one, so that the next pair follows it.
		before := *si
		si.prevGen, si.prev = si.gen, si.current
		si.gen, si.current = gen, h
		pair, err := s.nextPairLocked(si)
		if err != nil {
			*si = before
			return Pair{}, err
		}
		si.loose = false
		// The snapshot never held generation gen: this change is the
		// first that does.
		si.genVersion = s.changedLocked()
		pair.SaveFirst = si.genVersion
		return pair, nil
	case gen == si.prevGen && si.prevGen != 0 && h == si.prev:
		// A lost reply: the pair of the current generation never
		// reached the client. End it, and give a new one in its place;
		// the token of the previous generation stays the previous one,
		// since this reply can be lost too.
		lost, prevGen, prev, need := si.gen, si.prevGen, si.prev, si.genVersion
		pair, err := s.nextPairLocked(si)
		if err != nil {
			return Pair{}, err
		}
		s.endPairLocked(si.chain, lost)
		si.prevGen, si.prev, si.loose = prevGen, prev, false
		si.genVersion = s.changedLocked()
		pair.SaveFirst = need
		return pair, nil
	case gen < si.gen:
		s.endLocked(si)
		return Pair{SaveFirst: s.changedLocked()}, ErrReused
	default:
		return Pair{}, ErrUnknown
	}
	need := si.genVersion
	pair, err := s.nextPairLocked(si)
	if err != nil {
		return Pair{}, err
	}
	si.loose = false
	si.genVersion = s.changedLocked()
	pair.SaveFirst = need
	return pair, nil
}

// endPairLocked ends the access token of the person that came with the
// refresh token of generation gen of the chain.
func (s *Store) endPairLocked(chain string, gen uint64) {
	for h, a := range s.tokens {
		if a.chain == chain && a.session == "" && a.pair == gen {
			delete(s.tokens, h)
		}
	}
}

// endLocked ends a sign-in: its chain and each of its access tokens, of
// the person and of its sessions.
func (s *Store) endLocked(si *signIn) {
	delete(s.signIns, si.chain)
	for h, a := range s.tokens {
		if a.chain == si.chain {
			delete(s.tokens, h)
		}
	}
	if s.opts.Ended != nil {
		s.opts.Ended(si.chain)
	}
}

// Holds says whether the sign-in (Token.SignIn) is live: a stream that
// joined the engine's hub checks it, since its sign-in can end between
// the check of its token and the join.
func (s *Store) Holds(signIn string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.signIns[signIn]
	return ok
}

// Swap takes an access token of a person and the thumbprint of the key
// of its proof, and gives a session token for the session ID: an access
// token only (no refresh token). It ends no other token, and changes
// nothing that the snapshot holds, so it works while a write of the
// snapshot fails. An unknown or expired token gives ErrUnknown, a
// session token ErrSessionSwap, another key ErrWrongKey.
func (s *Store) Swap(accessToken, key, session string) (Pair, error) {
	if session == "" {
		return Pair{}, fmt.Errorf("swap: a session token needs a session ID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, si, err := s.lookupLocked(accessToken)
	if err != nil {
		return Pair{}, err
	}
	if a.session != "" {
		return Pair{}, ErrSessionSwap
	}
	if key != si.key {
		return Pair{}, ErrWrongKey
	}
	tok, err := s.secret(secretBytes)
	if err != nil {
		return Pair{}, err
	}
	expires := s.opts.Now().Add(s.opts.SessionLife)
	s.addLocked(tok, &access{chain: si.chain, session: session, expires: expires})
	return Pair{Access: tok, Token: si.token(session, expires)}, nil
}

// lookupLocked finds a live access token and its sign-in; an expired one
// goes.
func (s *Store) lookupLocked(token string) (*access, *signIn, error) {
	h := hashOf(token)
	a, ok := s.tokens[h]
	if !ok {
		return nil, nil, ErrUnknown
	}
	si, ok := s.signIns[a.chain]
	if !ok || !s.opts.Now().Before(a.expires) {
		delete(s.tokens, h)
		return nil, nil, ErrUnknown
	}
	return a, si, nil
}

// Lookup gives what an access token (of a person or of a session)
// proves, or ErrUnknown for a token that the store does not know or
// that expired.
func (s *Store) Lookup(accessToken string) (Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, si, err := s.lookupLocked(accessToken)
	if err != nil {
		return Token{}, err
	}
	return si.token(a.session, a.expires), nil
}

// End ends each sign-in of user that started before position (the
// position of a member_removed or signins_ended record), with each of
// its tokens, and keeps position as the floor of the user: no sign-in
// of the user starts below it. It gives how many sign-ins ended.
func (s *Store) End(user string, position uint64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if position > s.floors[user] {
		s.floors[user] = position
	}
	n := 0
	for _, chain := range slices.Sorted(maps.Keys(s.signIns)) {
		si := s.signIns[chain]
		if si.person.User == user && si.position < position {
			s.endLocked(si)
			n++
		}
	}
	if n > 0 {
		s.changedLocked()
	}
	return n
}

// LiveKeys gives the sorted thumbprints of the device keys of the live
// sign-ins of user, each once.
func (s *Store) LiveKeys(user string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for _, si := range s.signIns {
		if si.person.User == user {
			keys = append(keys, si.key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// Live gives the number of live sign-ins.
func (s *Store) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.signIns)
}

// ChainKey gives the thumbprint of the device key of the sign-in whose
// chain the refresh token names, whatever its generation and secret:
// the token layer remembers the proof of a refresh only for that key, so
// that a refresh token of no held chain, or a proof of another key,
// fills no replay cache. It changes nothing.
func (s *Store) ChainKey(refresh string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	si, _, ok := s.chainOfLocked(refresh)
	if !ok {
		return "", false
	}
	return si.key, true
}

// chainOfLocked gives the sign-in whose chain the refresh token names,
// and the generation that the token names; s.mu is held.
func (s *Store) chainOfLocked(refresh string) (*signIn, uint64, bool) {
	chain, gen, _, err := ParseRefresh(refresh)
	if err != nil {
		return nil, 0, false
	}
	si, ok := s.signIns[chain]
	return si, gen, ok
}

// KeyOfRefresh gives the thumbprint of the device key of the sign-in of
// a refresh token that the store holds (its current generation or the
// one before it), for the line of a refused refresh: the line names the
// key of the token, not the key of a proof that somebody else made.
func (s *Store) KeyOfRefresh(refresh string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	si, gen, ok := s.chainOfLocked(refresh)
	if !ok {
		return "", false
	}
	h := hashOf(refresh)
	if (gen == si.gen && h == si.current) || (gen == si.prevGen && si.prevGen != 0 && h == si.prev) {
		return si.key, true
	}
	return "", false
}
