package loadtool

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRunCountsEachCall(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		Trivial(ClaimReply(1)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 4, Count: 200,
		Body: func(c, i int) (string, []byte) { return fmt.Sprintf("/c%d/%d", c, i%2), []byte("{}") }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 200 || res.WarmupCalls != 0 || res.CallsPerS <= 0 || res.P50Ms > res.P99Ms || res.P99Ms > res.MaxMs {
		t.Errorf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for path, n := range seen {
		if !strings.HasPrefix(path, "/c") {
			t.Errorf("path %s", path)
		}
		total += n
	}
	// Each client may have started one call more than the count before
	// it saw the end: those are not sent.
	if total != 200 {
		t.Errorf("the server got %d calls, want 200", total)
	}
}

func TestRunDurationAndWarmup(t *testing.T) {
	srv := httptest.NewServer(Trivial(ClaimReply(1)))
	defer srv.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 2, Duration: 100 * time.Millisecond,
		Warmup: 50 * time.Millisecond, Body: func(c, i int) (string, []byte) { return "/", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls == 0 || res.WarmupCalls == 0 || res.Seconds < 0.1 {
		t.Errorf("result %+v", res)
	}
}

func TestRunStopsOnRefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "held by another", http.StatusConflict)
	}))
	defer srv.Close()
	_, err := Run(context.Background(), Options{URL: srv.URL, Clients: 3, Count: 100,
		Body: func(c, i int) (string, []byte) { return "/v1/claim", []byte("{}") }})
	if err == nil || !strings.Contains(err.Error(), "status 409: held by another") {
		t.Errorf("Run = %v, want the status 409 and its text", err)
	}
}

func TestFsyncRate(t *testing.T) {
	res, err := FsyncRate(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fsyncs != 3 || res.PerS <= 0 {
		t.Errorf("result %+v", res)
	}
}

// Given a load with a Window, when it ends, then each measured call is in
// exactly one window, and each window counts the calls before it.
func TestGivenAWindowWhenTheLoadEndsThenEachCallIsInOneWindow(t *testing.T) {
	srv := httptest.NewServer(Trivial(ClaimReply(1)))
	defer srv.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 3, Count: 600, Window: time.Millisecond,
		Body: func(c, i int) (string, []byte) { return "/", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Windows) == 0 {
		t.Fatalf("no window in %+v", res)
	}
	sum := 0
	for n, w := range res.Windows {
		if w.CallsBefore != sum || math.Abs(w.EndS-float64(n+1)*0.001) > 1e-9 || (w.Calls > 0 && w.P50Ms > w.P99Ms) {
			t.Errorf("window %d = %+v after %d calls", n, w, sum)
		}
		sum += w.Calls
	}
	if sum != res.Calls {
		t.Errorf("the windows hold %d calls; the load measured %d", sum, res.Calls)
	}
}
