package tokens

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// FormatVersion is the version of the format of signins.json that this
// build writes, and the newest that it reads.
const FormatVersion = 1

// snapshotFile is signins.json (docs/tokens.md has the format).
type snapshotFile struct {
	Version int           `json:"version"`
	SignIns []savedSignIn `json:"sign_ins"`
}

type savedSignIn struct {
	Chain       string `json:"chain"`
	User        string `json:"user"`
	Email       string `json:"email,omitempty"`
	Key         string `json:"key"`
	Position    uint64 `json:"position"`
	StartedAtMs int64  `json:"started_at_ms"`
	Generation  uint64 `json:"generation"`
	// Current is the hex sha256 of the refresh token of Generation;
	// Previous the one of PreviousGeneration (0 and "": none).
	Current            string        `json:"current"`
	PreviousGeneration uint64        `json:"previous_generation,omitempty"`
	Previous           string        `json:"previous,omitempty"`
	Access             []savedAccess `json:"access,omitempty"`
}

// savedAccess is a live access token of the person of a sign-in.
type savedAccess struct {
	Hash        string `json:"hash"`
	Generation  uint64 `json:"generation"`
	ExpiresAtMs int64  `json:"expires_at_ms"`
}

// People tells a load what the log knows of a user: whether the people
// know it, and the position of its last member_removed or signins_ended
// record (0: none).
type People func(user string) (known bool, ended uint64)

// Dropped counts the sign-ins that a load dropped, by why.
type Dropped struct {
	// AfterLog: the position of the sign-in is after the position of
	// the log (a log that went back, for example after log cut).
	AfterLog int
	// UnknownUser: the people of the log do not know its user.
	UnknownUser int
	// Ended: it started before the last removal or end of the sign-ins
	// of its user.
	Ended int
}

// Total is the number of dropped sign-ins.
func (d Dropped) Total() int { return d.AfterLog + d.UnknownUser + d.Ended }

// Snapshot gives the bytes of signins.json for the sign-ins now, and the
// version of the store that they hold. It holds no session token and no
// expired access token. The bytes are the same for the same sign-ins.
func (s *Store) Snapshot() ([]byte, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	byChain := map[string][]savedAccess{}
	for h, a := range s.tokens {
		if a.session != "" || !now.Before(a.expires) {
			continue
		}
		byChain[a.chain] = append(byChain[a.chain], savedAccess{Hash: hex.EncodeToString(h[:]), Generation: a.pair, ExpiresAtMs: a.expires.UnixMilli()})
	}
	f := snapshotFile{Version: FormatVersion, SignIns: []savedSignIn{}}
	for _, chain := range slices.Sorted(maps.Keys(s.signIns)) {
		si := s.signIns[chain]
		acc := byChain[chain]
		slices.SortFunc(acc, func(a, b savedAccess) int { return cmp.Compare(a.Hash, b.Hash) })
		saved := savedSignIn{
			Chain: chain, User: si.person.User, Email: si.person.Email, Key: si.key,
			Position: si.position, StartedAtMs: si.started.UnixMilli(),
			Generation: si.gen, Current: hex.EncodeToString(si.current[:]),
			Access: acc,
		}
		if si.prevGen != 0 {
			saved.PreviousGeneration, saved.Previous = si.prevGen, hex.EncodeToString(si.prev[:])
		}
		f.SignIns = append(f.SignIns, saved)
	}
	data, err := json.Marshal(f)
	if err != nil {
		// The file holds strings and numbers only.
		panic(fmt.Sprintf("encode signins.json: %v", err))
	}
	return data, s.version
}

// Version gives the version of what the snapshot holds: it grows with
// each change (a sign-in, a refresh, an end).
func (s *Store) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Changed gets a value after a change of what the snapshot holds: the
// saver waits on it. One value stands for any number of changes.
func (s *Store) Changed() <-chan struct{} { return s.changed }

// Saved tells the store how a write of the snapshot of a version went.
// A failure makes each Refresh give ErrNotSaved until a write works, so
// that the saved snapshot falls no more generations behind.
func (s *Store) Saved(version uint64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failing = true
		s.wakeSavedLocked() // a refresh that waits for a write gives up
		return
	}
	s.failing = false
	if version > s.saved {
		s.saved = version
		s.wakeSavedLocked()
	}
}

func (s *Store) wakeSavedLocked() {
	if s.savedCh != nil {
		close(s.savedCh)
		s.savedCh = nil
	}
}

// SavedVersion gives the version of the last good write of the snapshot,
// whether the last write failed, and a channel that closes when a later
// version is saved or a write fails.
func (s *Store) SavedVersion() (saved uint64, failing bool, next <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.savedCh == nil {
		s.savedCh = make(chan struct{})
	}
	return s.saved, s.failing, s.savedCh
}

// Unsaved says whether the store changed since its last good write.
func (s *Store) Unsaved() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version > s.saved
}

// ErrBadSnapshot is the error of a Load of bytes that are not a
// signins.json that this build reads.
var ErrBadSnapshot = errors.New("signins.json does not read")

// Load puts the sign-ins of a signins.json in place of the ones of the
// store, and ends each session token. It drops each sign-in whose
// position is after logPosition (the last position of the log), whose
// user the people of the log do not know, or whose position is below the
// last member_removed or signins_ended record of its user; Dropped
// counts them. The first refresh of each chain then takes the saved
// generation or the next one as good. Bytes that do not read give an
// error that wraps ErrBadSnapshot, and change nothing. The floors of End
// stay.
func (s *Store) Load(data []byte, logPosition uint64, people People) (Dropped, error) {
	f, err := decodeSnapshot(data)
	if err != nil {
		return Dropped{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	signIns := map[string]*signIn{}
	tokens := map[hash]*access{}
	var d Dropped
	for _, ss := range f.SignIns {
		known, ended := people(ss.User)
		switch {
		case ss.Position > logPosition:
			d.AfterLog++
			continue
		case !known:
			d.UnknownUser++
			continue
		case ss.Position < ended || ss.Position < s.floors[ss.User]:
			d.Ended++
			continue
		}
		si := &signIn{
			chain: ss.Chain, person: Person{User: ss.User, Email: ss.Email}, key: ss.Key,
			position: ss.Position, started: time.UnixMilli(ss.StartedAtMs),
			gen: ss.Generation, prevGen: ss.PreviousGeneration, loose: true,
		}
		si.current, _ = decodeHash(ss.Current)
		if ss.PreviousGeneration != 0 {
			si.prev, _ = decodeHash(ss.Previous)
		}
		signIns[ss.Chain] = si
		for _, sa := range ss.Access {
			expires := time.UnixMilli(sa.ExpiresAtMs)
			if !now.Before(expires) {
				continue
			}
			h, _ := decodeHash(sa.Hash)
			tokens[h] = &access{chain: ss.Chain, expires: expires, pair: sa.Generation}
		}
	}
	s.signIns, s.tokens = signIns, tokens
	// What the store holds now is what the object holds, less the drops:
	// a drop makes a change to write.
	s.saved = s.version
	if d.Total() > 0 {
		s.changedLocked()
	}
	return d, nil
}

// decodeSnapshot decodes and checks the bytes of a signins.json.
func decodeSnapshot(data []byte) (snapshotFile, error) {
	var f snapshotFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return snapshotFile{}, fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	if dec.More() {
		return snapshotFile{}, fmt.Errorf("%w: more than one JSON value", ErrBadSnapshot)
	}
	if f.Version < 1 || f.Version > FormatVersion {
		return snapshotFile{}, fmt.Errorf("%w: version %d, and this build reads versions 1 to %d", ErrBadSnapshot, f.Version, FormatVersion)
	}
	seen := map[string]bool{}
	access := map[string]bool{}
	for i, ss := range f.SignIns {
		bad := func(what string) error {
			return fmt.Errorf("%w: sign-in %d: %s", ErrBadSnapshot, i, what)
		}
		switch {
		case !isBase64URL(ss.Chain, chainBytes):
			return snapshotFile{}, bad("the chain ID is not 16 bytes of base64url")
		case seen[ss.Chain]:
			return snapshotFile{}, bad("the chain comes twice")
		case ss.User == "":
			return snapshotFile{}, bad("no user")
		case ss.Key == "":
			return snapshotFile{}, bad("no key")
		case ss.Generation == 0:
			return snapshotFile{}, bad("generation 0")
		case !isHash(ss.Current):
			return snapshotFile{}, bad("the hash of the current generation is not a hex sha256")
		case ss.PreviousGeneration >= ss.Generation:
			return snapshotFile{}, bad("the previous generation is not before the current one")
		case ss.PreviousGeneration != 0 && !isHash(ss.Previous):
			return snapshotFile{}, bad("the hash of the previous generation is not a hex sha256")
		case ss.PreviousGeneration == 0 && ss.Previous != "":
			return snapshotFile{}, bad("a hash of a previous generation with no generation")
		}
		seen[ss.Chain] = true
		for _, sa := range ss.Access {
			if !isHash(sa.Hash) {
				return snapshotFile{}, bad("the hash of an access token is not a hex sha256")
			}
			if access[sa.Hash] {
				return snapshotFile{}, bad("an access token comes twice")
			}
			access[sa.Hash] = true
		}
	}
	return f, nil
}

func decodeHash(v string) (hash, error) {
	var h hash
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("not a hex sha256")
	}
	copy(h[:], b)
	return h, nil
}

// isHash says whether v is a hex sha256 in lower case, as Snapshot
// writes it.
func isHash(v string) bool {
	h, err := decodeHash(v)
	return err == nil && v == hex.EncodeToString(h[:])
}
