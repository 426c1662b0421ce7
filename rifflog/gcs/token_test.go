package gcs_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/gcs"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// tokenFaults stands in front of the fake server for the two ways a
// token fails:
//   - the client cannot get a token: the request never leaves the
//     client, the way golang.org/x/oauth2's Transport fails when its
//     token source does (the error of RoundTrip, no answer);
//   - the service refuses the token: a 401 answer, as GCS gives for an
//     expired or revoked token.
type tokenFaults struct {
	base http.RoundTripper // the client side
	next http.Handler      // the server side

	mu      sync.Mutex
	noToken int       // requests whose token the client fails to get
	refuse  time.Time // the service answers 401 until then
	seen401 int
}

func (f *tokenFaults) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := f.noToken > 0
	if fail {
		f.noToken--
	}
	f.mu.Unlock()
	if fail {
		return nil, errors.New(`oauth2: cannot fetch token: Post "http://metadata.google.internal/": dial tcp: i/o timeout`)
	}
	return f.base.RoundTrip(r)
}

func (f *tokenFaults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	refuse := time.Now().Before(f.refuse)
	if refuse {
		f.seen401++
	}
	f.mu.Unlock()
	if refuse {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"code":401,"message":"Invalid Credentials","errors":[{"reason":"authError","message":"Invalid Credentials"}]}}`)
		return
	}
	f.next.ServeHTTP(w, r)
}

func tokenFake(t *testing.T, opts gcs.Options) (*tokenFaults, *gcs.Store, *storage.Client) {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	f := &tokenFaults{next: srv.HTTPHandler()}
	hs := httptest.NewServer(f)
	t.Cleanup(hs.Close)
	f.base = hs.Client().Transport
	client, err := storage.NewClient(context.Background(),
		option.WithEndpoint(hs.URL+"/storage/v1/"),
		option.WithoutAuthentication(),
		option.WithHTTPClient(&http.Client{Transport: f}),
		storage.WithJSONReads())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return f, gcs.New(client, bucket, opts), client
}

// TestClientDoesNotRetry401 shows what the storage client itself does
// with a 401: its retry rule does not retry it, and the error is a
// *googleapi.Error with code 401. So the store has to class it.
func TestClientDoesNotRetry401(t *testing.T) {
	f, _, client := tokenFake(t, fast)
	f.mu.Lock()
	f.refuse = time.Now().Add(time.Hour)
	f.mu.Unlock()
	w := client.Bucket(bucket).Object("log/x").If(storage.Conditions{DoesNotExist: true}).
		Retryer(storage.WithPolicy(storage.RetryAlways)).NewWriter(context.Background())
	w.ChunkSize = 0
	w.Write([]byte("x"))
	err := w.Close()
	var g *googleapi.Error
	if !errors.As(err, &g) || g.Code != http.StatusUnauthorized {
		t.Fatalf("write with a refused token = %v; want a 401 *googleapi.Error", err)
	}
	if storage.ShouldRetry(err) {
		t.Errorf("storage.ShouldRetry(401) = true; want false (the store's own rule retries it)")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen401 != 1 {
		t.Errorf("the client sent %d requests with RetryAlways; want 1 (no retry of a 401)", f.seen401)
	}
}

// TestTokenFailures: a write whose token fails for a while is retried
// and done, within the store's default 10 s; a token that keeps failing
// past RetryFor stops the store for good.
func TestTokenFailures(t *testing.T) {
	ctx := context.Background()
	t.Run("the client cannot get a token for 3 requests", func(t *testing.T) {
		f, s, _ := tokenFake(t, fast)
		f.mu.Lock()
		f.noToken = 3
		f.mu.Unlock()
		w, err := rifflog.Write(ctx, s, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1}`)}})
		if err != nil {
			t.Fatalf("Write while the token fails = %v; want nil", err)
		}
		f.mu.Lock()
		left := f.noToken
		f.mu.Unlock()
		if left != 0 || w.Last() != 1 || s.Stopped() != nil {
			t.Errorf("after the retries: %d token failures left, last %d, stopped %v; want 0, 1, nil", left, w.Last(), s.Stopped())
		}
	})
	t.Run("the service answers 401 for 1.5 s, default options", func(t *testing.T) {
		f, s, _ := tokenFake(t, gcs.Options{}) // RetryFor 10 s, backoff 100 ms to 2 s
		f.mu.Lock()
		f.refuse = time.Now().Add(1500 * time.Millisecond)
		f.mu.Unlock()
		start := time.Now()
		w, err := rifflog.Write(ctx, s, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1}`)}})
		if err != nil {
			t.Fatalf("Write while the service answers 401 = %v; want nil", err)
		}
		f.mu.Lock()
		seen := f.seen401
		f.mu.Unlock()
		if seen < 2 || w.Last() != 1 || s.Stopped() != nil {
			t.Errorf("after %v: %d answers 401, last %d, stopped %v; want at least 2, 1, nil", time.Since(start), seen, w.Last(), s.Stopped())
		}
		if got, err := s.Get(ctx, rifflog.ChunkName(1)); err != nil || len(got) == 0 {
			t.Errorf("Get of the chunk = %q, %v", got, err)
		}
	})
	t.Run("the service answers 401 past RetryFor", func(t *testing.T) {
		f, s, _ := tokenFake(t, gcs.Options{FirstBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, RetryFor: time.Second})
		f.mu.Lock()
		f.refuse = time.Now().Add(time.Hour)
		f.mu.Unlock()
		if err := s.Put(ctx, "log/a", []byte("x")); !errors.Is(err, rifflog.ErrStoreStopped) {
			t.Fatalf("Put while every token is refused = %v; want ErrStoreStopped", err)
		}
		f.mu.Lock()
		seen := f.seen401
		f.refuse = time.Time{}
		f.mu.Unlock()
		if seen < 2 {
			t.Errorf("%d answers 401 before the store gave up; want at least 2 (retried)", seen)
		}
		if err := s.Put(ctx, "log/b", []byte("x")); !errors.Is(err, rifflog.ErrStoreStopped) {
			t.Errorf("Put after the store gave up = %v; want ErrStoreStopped", err)
		}
	})
}
