package record

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestIntern: a short text that comes again comes from the table (from
// its third time on: it goes in at its second miss); a long one is never
// kept; a slot taken by another text gives the new text, not the old one.
func TestIntern(t *testing.T) {
	d := NewDecoder()
	d.intern([]byte("como/repo1"))
	d.intern([]byte("como/repo1"))
	a := d.intern([]byte("como/repo1"))
	b := d.intern([]byte("como/repo1"))
	if a != "como/repo1" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("intern = %q at %p, %q at %p; want one string", a, unsafe.StringData(a), b, unsafe.StringData(b))
	}
	if n := testing.AllocsPerRun(100, func() { d.intern([]byte("como/repo1")) }); n != 0 {
		t.Errorf("intern of a text in the table: %v allocations; want 0", n)
	}
	// A text that comes once costs the one allocation of its string.
	buf := make([]byte, 0, 32)
	k := 0
	if n := testing.AllocsPerRun(100, func() {
		k++
		buf = strconv.AppendInt(append(buf[:0], "session-"...), int64(k), 10)
		d.intern(buf)
	}); n != 1 {
		t.Errorf("intern of new texts: %v allocations; want 1", n)
	}
	long := strings.Repeat("x", internMax+1)
	if got := d.intern([]byte(long)); got != long || unsafe.StringData(got) == unsafe.StringData(d.intern([]byte(long))) {
		t.Errorf("intern of %d bytes came from the table", len(long))
	}
	// Far more texts than slots: each comes back as itself.
	for i := range 4 * internSlots {
		want := fmt.Sprintf("issue-%d", i)
		if got := d.intern([]byte(want)); got != want {
			t.Fatalf("d.intern(%q) = %q", want, got)
		}
	}
	if got := d.intern(nil); got != "" {
		t.Errorf("d.intern(nil) = %q", got)
	}
}

// TestInternAtOnce decodes lines on 8 goroutines at once, which share
// one decoder and its table (run with -race): each record equals the one of the slow path.
func TestInternAtOnce(t *testing.T) {
	var lines [][]byte
	for i := range 200 {
		lines = append(lines, fmt.Appendf(nil, `{"position":%d,"written_at_ms":1,"by":{"session":"u%d/s%d"},"command":"claim","change":{"claimed":{"session":"riff://u%d@host/o/repo%d?session=s%d","thread":"o/repo%d","item":"issue-%d"}}}`,
			i+1, i%7, i%5, i%7, i%3, i%5, i%3, i%11))
	}
	shared := NewDecoder()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 2000 {
				line := lines[(g*31+k)%len(lines)]
				fast, ok := decodeFast(line, shared)
				slow, err := decodeSlow(line)
				if !ok || err != nil || !reflect.DeepEqual(fast, slow) {
					t.Errorf("decode %s: fast %v (%v), slow %v (%v)", line, fast, ok, slow, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestGivenMoreNamesThanSlotsWhenTheyComeAgainThenEachReadsAsItself:
// lines of far more causes, sessions, threads and items than a table has
// slots, each read three times in a row with one decoder (so each goes
// in the tables at its second read and comes from them at its third),
// read as the slow path reads them: a slot that holds another text is a
// miss.
func TestGivenMoreNamesThanSlotsWhenTheyComeAgainThenEachReadsAsItself(t *testing.T) {
	d := NewDecoder()
	for i := range 3 * internSlots {
		line := fmt.Appendf(nil, `{"position":%d,"written_at_ms":1,"by":{"session":"u%d/s%d"},"command":"claim","change":{"released":{"session":"riff://u%d@h%d/o/repo%d?session=s%d","thread":"o/repo%d","item":"issue-%d"}}}`,
			i+1, i%97, i, i%97, i%13, i, i, i, i)
		slow, err := decodeSlow(line)
		if err != nil {
			t.Fatalf("decodeSlow(%s) = %v", line, err)
		}
		for range 3 {
			fast, ok := decodeFast(line, d)
			if !ok || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("decode %s: fast %+v (%v), slow %+v", line, fast, ok, slow)
			}
		}
	}
}
