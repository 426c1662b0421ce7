package loadtool

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Given a Durable server, when a load of 4 clients sends 300 calls,
// then each body is in exactly one chunk file, in the order each client
// sent it, the chunks count as Written says, and no temporary file is
// left.
func TestDurableKeepsEachBodyInOneChunk(t *testing.T) {
	dir := t.TempDir()
	d, err := NewDurable(dir, ClaimReply(1), Prune{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	defer d.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 4, Count: 300,
		Body: func(c, i int) (string, []byte) { return "/v1/claim", fmt.Appendf(nil, `{"c":%d,"i":%d}`, c, i) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 300 {
		t.Fatalf("result %+v", res)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("a temporary file is left: %s", e.Name())
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	chunks, calls := d.Written()
	if chunks != len(entries) || calls != 300 || len(lines) != 300 {
		t.Fatalf("Written = %d chunks, %d calls; the directory has %d files and %d lines; want %d files and 300 of each",
			chunks, calls, len(entries), len(lines), chunks)
	}
	next := map[int]int{}
	for _, line := range lines {
		var c, i int
		if _, err := fmt.Sscanf(line, `{"c":%d,"i":%d}`, &c, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if i != next[c] {
			t.Errorf("client %d: call %d after call %d", c, i, next[c]-1)
		}
		next[c] = i + 1
	}
}

// Given a Durable server whose directory is gone, when a call comes,
// then it gets a 503 that names the failure, and the server still
// answers the next call the same way.
func TestDurableRefusesWhenTheChunkFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chunks")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := NewDurable(dir, ClaimReply(1), Prune{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		w := httptest.NewRecorder()
		d.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/claim", strings.NewReader("{}")))
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "no such file") {
			t.Errorf("reply %d %q, want 503 with the failure", w.Code, w.Body.String())
		}
	}
	if chunks, calls := d.Written(); chunks != 0 || calls != 0 {
		t.Errorf("Written = %d, %d; want none", chunks, calls)
	}
}

// Given a Durable server with calls waiting, when it closes, then each
// call gets an answer and Close returns.
func TestDurableCloseAnswersEachCall(t *testing.T) {
	d, err := NewDurable(t.TempDir(), ClaimReply(1), Prune{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for k := range codes {
		wg.Go(func() {
			w := httptest.NewRecorder()
			d.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte("{}"))))
			codes[k] = w.Code
		})
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, c := range codes {
		if !slices.Contains([]int{http.StatusOK, http.StatusServiceUnavailable}, c) {
			t.Errorf("codes %v, want each 200 or 503", codes)
			break
		}
	}
}

func TestNewDurableNeedsADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := NewDurable(p, ClaimReply(1), Prune{}); err == nil {
			t.Errorf("NewDurable(%s) gave no error", p)
		}
	}
}

// Given a Durable server that prunes each 50 calls and keeps 100 (and
// one that recycles), when a load of 4 clients sends 300 calls and the
// server closes, then the chunks left are the newest ones, they hold at
// least the last 100 calls and no chunk that the rule deletes, and
// Pruned counts the rest; the recycling one wrote chunks over recycled
// files and leaves at most maxSpares of them.
func TestDurablePruneKeepsTheNewestCalls(t *testing.T) {
	for _, recycle := range []bool{false, true} {
		t.Run(fmt.Sprintf("recycle %v", recycle), func(t *testing.T) { durablePrune(t, recycle) })
	}
}

func durablePrune(t *testing.T, recycle bool) {
	dir := t.TempDir()
	d, err := NewDurable(dir, ClaimReply(1), Prune{Every: 50, Keep: 100, Recycle: recycle})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 4, Count: 300,
		Body: func(c, i int) (string, []byte) { return "/v1/claim", fmt.Appendf(nil, `{"c":%d,"i":%d}`, c, i) }})
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Calls != 300 {
		t.Fatalf("result %+v", res)
	}
	all, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var entries []os.DirEntry
	spares := 0
	for _, e := range all {
		switch {
		case strings.HasPrefix(e.Name(), ".spare-") && recycle:
			spares++
		case strings.HasPrefix(e.Name(), "."):
			t.Errorf("a temporary file is left: %s", e.Name())
		default:
			entries = append(entries, e)
		}
	}
	chunks, calls := d.Written()
	deleted, over, err := d.Pruned()
	if err != nil {
		t.Fatalf("Pruned: %v", err)
	}
	if deleted == 0 || deleted+len(entries) != chunks || calls != 300 {
		t.Fatalf("Written = %d chunks, %d calls; Pruned = %d; the directory has %d chunks",
			chunks, calls, deleted, len(entries))
	}
	if recycle && (over == 0 || spares > maxSpares || spares+over > deleted) {
		t.Errorf("recycling: %d chunks written over %d recycled files, %d spares left", over, deleted, spares)
	}
	if !recycle && over != 0 {
		t.Errorf("with no recycling, %d chunks written over recycled files", over)
	}
	// The chunks are named by their order from 1: the ones left are
	// the last ones.
	var sizes []int
	for k, e := range entries {
		if want := fmt.Sprintf("%020d", deleted+k+1); e.Name() != want {
			t.Fatalf("file %d is %s, want %s: an older chunk is left or a newer one gone", k, e.Name(), want)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var c, i int
			if _, err := fmt.Sscanf(line, `{"c":%d,"i":%d}`, &c, &i); err != nil {
				t.Fatalf("%s: line %q: %v (old bytes of a recycled file?)", e.Name(), line, err)
			}
		}
		sizes = append(sizes, strings.Count(string(data), "\n"))
	}
	left := 0
	for _, n := range sizes {
		left += n
	}
	// The last prune came at 300 calls, so its cutoff is call 200: each
	// chunk that ends at or before it is gone, each that ends after it
	// is kept.
	if left < 100 || left-sizes[0] >= 100 {
		t.Errorf("the chunks left hold %d calls (the oldest %d), want at least 100 and the oldest past call 200", left, sizes[0])
	}
}

// Given the refused prunes, when NewDurable gets one, then it gives an
// error that names both values.
func TestNewDurableRefusesAHalfPrune(t *testing.T) {
	if d, err := NewDurable(t.TempDir(), ClaimReply(1), Prune{Recycle: true}); err == nil || !strings.Contains(err.Error(), "recycle with no prune") {
		if err == nil {
			d.Close()
		}
		t.Errorf("NewDurable with Recycle and no prune = %v, want the error of a recycle with no prune", err)
	}
	for _, p := range []Prune{{Every: 10}, {Keep: 10}, {Every: -1, Keep: 10}, {Every: 10, Keep: -1}} {
		d, err := NewDurable(t.TempDir(), ClaimReply(1), p)
		if err == nil {
			d.Close()
			t.Errorf("NewDurable(%+v) gave no error", p)
			continue
		}
		if want := fmt.Sprintf("prune every %d calls, keep %d", p.Every, p.Keep); !strings.Contains(err.Error(), want) {
			t.Errorf("NewDurable(%+v) = %q, want it to name %q", p, err, want)
		}
	}
}
