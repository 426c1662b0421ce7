package gcs_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/gcs"
	"github.com/como-technologies/riff/rifflog/internal/storetest"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

const bucket = "riff"

// faults wraps the fake server's handler: it answers the next requests
// that match with an error, or lets a request land and loses its answer.
type faults struct {
	next http.Handler

	mu       sync.Mutex
	fail     int    // how many matching requests get status
	status   int    // the status of a failed request
	lose     int    // how many matching requests land, then get a 503
	method   string // the method that matches ("" each)
	requests int    // requests seen
}

func (f *faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	match := f.method == "" || r.Method == f.method
	fail, lose := match && f.fail > 0, false
	if fail {
		f.fail--
	} else if match && f.lose > 0 {
		f.lose--
		lose = true
	}
	status := f.status
	f.mu.Unlock()
	switch {
	case fail:
		http.Error(w, `{"error":{"code":`+http.StatusText(status)+`}}`, status)
	case lose:
		f.next.ServeHTTP(httptest.NewRecorder(), r) // the write lands; its answer is lost
		http.Error(w, "lost", http.StatusServiceUnavailable)
	default:
		f.next.ServeHTTP(w, r)
	}
}

func (f *faults) set(fn func(f *faults)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// fake starts a fake GCS server behind a real loopback listener, with
// faults in front of it.
func fake(t *testing.T) (*faults, func(opts gcs.Options) (*gcs.Store, *storage.Client)) {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	f := &faults{next: srv.HTTPHandler(), status: http.StatusServiceUnavailable}
	hs := httptest.NewServer(f)
	t.Cleanup(hs.Close)
	open := func(opts gcs.Options) (*gcs.Store, *storage.Client) {
		client, err := storage.NewClient(context.Background(),
			option.WithEndpoint(hs.URL+"/storage/v1/"),
			option.WithoutAuthentication(),
			option.WithHTTPClient(hs.Client()),
			storage.WithJSONReads())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		return gcs.New(client, bucket, opts), client
	}
	return f, open
}

var fast = gcs.Options{FirstBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, RetryFor: 5 * time.Second}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rifflog.Store {
		_, open := fake(t)
		s, _ := open(fast)
		return s
	})
}

// TestFakeRefusesSecondCreate shows that the fake server checks the
// precondition "does not exist" on a second create of the same name,
// for each upload method of the client.
func TestFakeRefusesSecondCreate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		chunkSize int
	}{
		{"multipart upload (the store's)", 0},
		{"resumable upload", 256 * 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, open := fake(t)
			_, client := open(fast)
			put := func(data string) error {
				w := client.Bucket(bucket).Object("log/x").If(storage.Conditions{DoesNotExist: true}).NewWriter(context.Background())
				w.ChunkSize = tc.chunkSize
				w.Write([]byte(data))
				return w.Close()
			}
			if err := put("one"); err != nil {
				t.Fatalf("first create = %v", err)
			}
			err := put("two")
			var g *googleapi.Error
			if !errors.As(err, &g) || g.Code != http.StatusPreconditionFailed {
				t.Fatalf("second create = %v; want a 412", err)
			}
			r, _ := client.Bucket(bucket).Object("log/x").NewReader(context.Background())
			var b bytes.Buffer
			b.ReadFrom(r)
			r.Close()
			if b.String() != "one" {
				t.Errorf("object after the second create = %q; want %q", b.String(), "one")
			}
		})
	}
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		status int
		fail   int
	}{
		{"three 503 answers", http.StatusServiceUnavailable, 3},
		{"two 429 answers", http.StatusTooManyRequests, 2},
		{"a 500 answer", http.StatusInternalServerError, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, open := fake(t)
			s, _ := open(fast)
			f.set(func(f *faults) { f.fail, f.status, f.method = tc.fail, tc.status, http.MethodPost })
			w, err := rifflog.Write(ctx, s, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1}`)}})
			if err != nil {
				t.Fatalf("Write through %d failures = %v", tc.fail, err)
			}
			f.set(func(f *faults) { f.fail, f.method = tc.fail, http.MethodGet })
			if _, err := rifflog.Replay(ctx, s, rifflog.From{}, func([]byte, uint64) error { return nil }); err != nil {
				t.Errorf("Replay through %d failures = %v", tc.fail, err)
			}
			f.mu.Lock()
			left := f.fail
			f.mu.Unlock()
			if left != 0 {
				t.Errorf("%d injected failures were not used", left)
			}
			if w.Last() != 1 || s.Stopped() != nil {
				t.Errorf("after the retries: last %d, stopped %v; want 1, nil", w.Last(), s.Stopped())
			}
		})
	}
}

// TestLostAnswer: a write lands but its answer is lost; the retry gets
// a 412, reads the object back, finds its bytes, and counts it done.
func TestLostAnswer(t *testing.T) {
	ctx := context.Background()
	f, open := fake(t)
	s, _ := open(fast)
	f.set(func(f *faults) { f.lose, f.method = 1, http.MethodPost })
	if err := s.Put(ctx, "log/a", []byte("bytes")); err != nil {
		t.Fatalf("Put with a lost answer = %v; want nil", err)
	}
	f.mu.Lock()
	left := f.lose
	f.mu.Unlock()
	if left != 0 {
		t.Fatalf("the lost answer was not used")
	}
	if got, _ := s.Get(ctx, "log/a"); string(got) != "bytes" || s.Stopped() != nil {
		t.Errorf("Get = %q, stopped %v; want %q, nil", got, s.Stopped(), "bytes")
	}
	// A second Put of the name, with other bytes, is a competing writer.
	if err := s.Put(ctx, "log/a", []byte("other")); !errors.Is(err, rifflog.ErrExists) {
		t.Errorf("Put of other bytes = %v; want ErrExists", err)
	}
}

// TestCompetingWriter: another instance wrote the chunk first; the 412
// on the first try stops the store for good.
func TestCompetingWriter(t *testing.T) {
	ctx := context.Background()
	_, open := fake(t)
	mine, _ := open(fast)
	theirs, _ := open(fast)
	if _, err := rifflog.Write(ctx, theirs, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1,"by":"them"}`)}}); err != nil {
		t.Fatal(err)
	}
	_, err := rifflog.Write(ctx, mine, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1,"by":"me"}`)}})
	if !errors.Is(err, rifflog.ErrExists) || !errors.Is(err, rifflog.ErrStoreStopped) {
		t.Fatalf("Write after a competing writer = %v; want ErrExists and ErrStoreStopped", err)
	}
	err = mine.Put(ctx, "log/other", []byte("x"))
	if !errors.Is(err, rifflog.ErrStoreStopped) {
		t.Errorf("Put after the stop = %v; want ErrStoreStopped", err)
	}
	data, _ := theirs.Get(ctx, rifflog.ChunkName(1))
	if !strings.Contains(string(data), "them") {
		t.Errorf("chunk = %q; want the competing writer's", data)
	}
}

// TestGivesUp: when every answer fails for longer than RetryFor, the
// store stops for good.
func TestGivesUp(t *testing.T) {
	ctx := context.Background()
	f, open := fake(t)
	s, _ := open(gcs.Options{FirstBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, RetryFor: 100 * time.Millisecond})
	f.set(func(f *faults) { f.fail, f.status = 1<<30, http.StatusServiceUnavailable })
	err := s.Put(ctx, "log/a", []byte("x"))
	if !errors.Is(err, rifflog.ErrStoreStopped) {
		t.Fatalf("Put while every answer fails = %v; want ErrStoreStopped", err)
	}
	f.set(func(f *faults) { f.fail = 0 })
	if err := s.Put(ctx, "log/b", []byte("x")); !errors.Is(err, rifflog.ErrStoreStopped) {
		t.Errorf("Put after the store gave up = %v; want ErrStoreStopped", err)
	}
}

func TestLeaseHandoverAcrossInstances(t *testing.T) {
	_, open := fake(t)
	s, _ := open(fast)
	storetest.Handover(t, s)
}
