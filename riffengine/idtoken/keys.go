package idtoken

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is the oidc.KeySet of a checker: the keys of the jwks_uri of the
// provider, read again when a token names a key that it does not hold,
// at most once each every. go-oidc's RemoteKeySet reads them again for
// each such token, so that each forged token costs a read of the
// provider.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time
	every  time.Duration

	mu   sync.Mutex
	keys []jose.JSONWebKey
	// readAt is the start of the last read (zero: none yet). reading
	// closes when the read in flight ends (nil: none): the calls that come
	// meanwhile wait for it instead of reading too.
	readAt  time.Time
	reading chan struct{}
}

func newKeySet(url string, client *http.Client, now func() time.Time, every time.Duration) *keySet {
	return &keySet{url: url, client: client, now: now, every: every}
}

// keysReadFor bounds one read of the keys.
const keysReadFor = 10 * time.Second

// The algorithms that a token's header may name (the verifier of go-oidc
// checked them against the provider's before this).
var signingAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

// errUnknownKey is the refusal of a token whose key the provider did not
// give, when the keys were read less than every ago.
var errUnknownKey = errors.New("the ID token is signed by a key that the provider did not give")

// VerifySignature gives the payload of a token that a key of the
// provider signed.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSigned(jwt, signingAlgs)
	if err != nil {
		return nil, fmt.Errorf("the ID token is no JWS: %v", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("the ID token must have one signature")
	}
	keyID := jws.Signatures[0].Header.KeyID
	k.mu.Lock()
	keys := k.keys
	k.mu.Unlock()
	if payload, ok := verifyWith(jws, keyID, keys); ok {
		return payload, nil
	}
	keys, err = k.readAgain(ctx)
	if err != nil {
		return nil, err
	}
	if payload, ok := verifyWith(jws, keyID, keys); ok {
		return payload, nil
	}
	return nil, errUnknownKey
}

// verifyWith checks jws with the keys of keyID (each key when the token
// names none).
func verifyWith(jws *jose.JSONWebSignature, keyID string, keys []jose.JSONWebKey) ([]byte, bool) {
	for _, key := range keys {
		if keyID != "" && key.KeyID != keyID {
			continue
		}
		if payload, err := jws.Verify(&key); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// readAgain reads the keys when the last read started at least every
// ago (or there was none), and waits for a read in flight. Within every
// of the last read it reads nothing and gives errUnknownKey: a provider
// that rotates its keys publishes the new key before it signs with it,
// so a real new key is read at most a minute late, and a flood of forged
// tokens costs one read a minute.
func (k *keySet) readAgain(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	if wait := k.reading; wait != nil {
		k.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.keys, nil
	}
	if !k.readAt.IsZero() && k.now().Sub(k.readAt) < k.every {
		k.mu.Unlock()
		return nil, fmt.Errorf("%w (its keys were read less than %s ago)", errUnknownKey, k.every)
	}
	k.readAt = k.now()
	done := make(chan struct{})
	k.reading = done
	k.mu.Unlock()

	// The read serves every call that waits for it, so the end of the
	// context of this one does not end it.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keysReadFor)
	keys, err := k.read(rctx)
	cancel()

	k.mu.Lock()
	defer k.mu.Unlock()
	if err == nil {
		k.keys = keys
	}
	k.reading = nil
	close(done)
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// read gets the JWKS of the provider. A key of a type or an algorithm
// that go-jose does not know is left out, as RFC 7517 §5 asks.
func (k *keySet) read(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("riff-server cannot read the keys of the provider: %w", err)
	}
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("riff-server cannot read the keys of the provider: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("riff-server cannot read the keys of the provider: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("riff-server cannot read the keys of the provider: %s", resp.Status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the keys of the provider do not read: %v", err)
	}
	known := map[string]bool{}
	for _, a := range signingAlgs {
		known[string(a)] = true
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var meta struct {
			Alg string `json:"alg"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("the keys of the provider do not read: %v", err)
		}
		if meta.Alg != "" && !known[meta.Alg] {
			continue
		}
		var key jose.JSONWebKey
		if err := json.Unmarshal(raw, &key); err != nil {
			if errors.Is(err, jose.ErrUnsupportedKeyType) {
				continue
			}
			return nil, fmt.Errorf("a key of the provider does not read: %v", err)
		}
		if !key.IsPublic() {
			continue // a provider never publishes a private key
		}
		keys = append(keys, key)
	}
	return keys, nil
}
