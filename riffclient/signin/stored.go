package signin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// The files of the sign-in under the folder.
const (
	signinDir  = "signin"
	tokensFile = "tokens.json"
	lockFile   = "lock"
)

// Stored is the stored sign-in of this machine for one server, as
// tokens.json holds it.
type Stored struct {
	// Riff is the ID of the riff: a server with another ID is a new riff.
	Riff string `json:"riff"`
	// User is the USER of the person in the riff; Email its email.
	User  string `json:"user"`
	Email string `json:"email,omitempty"`
	// Key is the thumbprint of the device key of the sign-in.
	Key     string `json:"key"`
	Access  string `json:"access_token,omitempty"`
	Refresh string `json:"refresh_token,omitempty"`
	// ExpiresMs is when the access token expires (Unix ms); 0: unknown.
	ExpiresMs int64 `json:"access_expires_ms,omitempty"`
	// RenewMs is when riff refreshes the access token (Unix ms), a margin
	// before ExpiresMs; 0: at its first refusal.
	RenewMs int64 `json:"access_renew_ms,omitempty"`
	// Ended says that the server ended the sign-in: riff asks it no more
	// until riff login.
	Ended bool `json:"ended,omitempty"`
}

// tokens is the JSON of tokens.json: the sign-in of each server URL.
type tokens struct {
	Servers map[string]Stored `json:"servers"`
}

// folder is the folder SIGNIN of the sign-in of this machine.
type folder string

// readAll reads tokens.json: empty when it is not there.
func (f folder) readAll() (tokens, error) {
	t := tokens{Servers: map[string]Stored{}}
	data, err := os.ReadFile(filepath.Join(string(f), tokensFile))
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("read the sign-in of this machine: %w", err)
	}
	return parseTokens(data)
}

// parseTokens reads the JSON of tokens.json; on an error it gives no
// sign-in, never half of one.
func parseTokens(data []byte) (tokens, error) {
	var t tokens
	if err := json.Unmarshal(data, &t); err != nil {
		return tokens{Servers: map[string]Stored{}}, fmt.Errorf("the sign-in of this machine (%s) is not JSON: %w. Run riff login", tokensFile, err)
	}
	if t.Servers == nil {
		t.Servers = map[string]Stored{}
	}
	return t, nil
}

// read gives the sign-in of server, and whether there is one.
func (f folder) read(server string) (Stored, bool, error) {
	t, err := f.readAll()
	if err != nil {
		return Stored{}, false, err
	}
	k, ok := t.Servers[server]
	return k, ok, nil
}

// write stores the sign-in of server; a nil k removes it. The caller holds
// the lock: a write reads the file again under it, so the sign-ins of the
// other servers stay.
func (f folder) write(server string, k *Stored) error {
	t, err := f.readAll()
	if err != nil {
		// A file that does not read is replaced: riff login mends it.
		t = tokens{Servers: map[string]Stored{}}
	}
	if k == nil {
		delete(t.Servers, server)
	} else {
		t.Servers[server] = *k
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the sign-in of this machine: %w", err)
	}
	if err := writePrivate(filepath.Join(string(f), tokensFile), append(data, '\n')); err != nil {
		return fmt.Errorf("keep the sign-in of this machine: %w", err)
	}
	return nil
}

// lockRetry is the wait between two tries of the lock.
const lockRetry = 20 * time.Millisecond

// lock takes the lock of the machine: one refresh or sign-in at a time,
// across the processes of the machine. unlock gives it back.
func (f folder) lock(ctx context.Context) (unlock func(), err error) {
	if err := os.MkdirAll(string(f), 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the sign-in: %w", err)
	}
	l := flock.New(filepath.Join(string(f), lockFile), flock.SetPermissions(0o600))
	ok, err := l.TryLockContext(ctx, lockRetry)
	if err != nil || !ok {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("take the lock of the sign-in of this machine: %w", err)
	}
	return func() { _ = l.Unlock() }, nil
}
