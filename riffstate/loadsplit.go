package riffstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// The threads of a riff are almost all the bytes of a large checkpoint
// (at 12 months of the seeds' scale, 40.2 MB of its 40.3 MB: the kept
// messages). A load decodes them once, in pieces on every core, and
// gives the second copy of the riff a copy of them, in place of a second
// decode of the whole state (docs/performance.md, "Issue 23, the
// start"). The rest of the checkpoint is decoded twice, as before.

// splitThreadsAt is the size of the threads of a checkpoint from which
// LoadCheckpoint decodes them in pieces: under it, the two decodes of
// the whole state at once cost about as much as the pieces and the copy.
const splitThreadsAt = 1 << 20

// loadSplit is LoadCheckpoint with the threads decoded in pieces, when
// they take at least minThreads bytes. ok is false when they do not, or
// when data has not the form that json.Marshal writes for a checkpoint
// (threadsOf): then the caller decodes it whole.
func loadSplit(data []byte, opts Options, minThreads int) (s *State, ok bool, err error) {
	cp, twin, ok, err := decodeSplit(data, minThreads)
	if !ok || err != nil {
		return nil, ok, err
	}
	return loaded(data, opts, cp, twin), true, nil
}

// decodeSplit decodes the checkpoint data and a second copy of its riff
// (twin) as the two decodes of the whole of it would
// (FuzzDecodeSplitIsTheDecodeOfTheWhole), with its threads decoded once,
// in pieces, and copied.
func decodeSplit(data []byte, minThreads int) (cp Checkpoint, twin *Riff, ok bool, err error) {
	value, starts, ok := threadsOf(data)
	if !ok || value.end-value.start < minThreads {
		return cp, nil, false, nil
	}
	start, end := value.start, value.end
	pieces := piecesOf(data, value, starts, 2*runtime.GOMAXPROCS(0))
	rest := make([]byte, 0, len(data)-(end-start)+2)
	rest = append(append(append(rest, data[:start]...), "{}"...), data[end:]...)
	var (
		second struct {
			Riff *Riff `json:"riff"`
		}
		errs     = make([]error, len(pieces)+2)
		threads  = make([]map[name.Thread]*Thread, len(pieces))
		finished sync.WaitGroup
	)
	finished.Go(func() { cp, errs[0] = decodeCheckpoint(rest) })
	finished.Go(func() { errs[1] = json.Unmarshal(rest, &second) })
	names := record.NewDecoder() // the pieces share the names of their messages
	for i, piece := range pieces {
		finished.Go(func() {
			var ok bool
			if threads[i], ok = decodeThreadsFast(piece, names); !ok {
				errs[2+i] = json.Unmarshal(piece, &threads[i])
			}
		})
	}
	finished.Wait()
	if err := errs[0]; err != nil {
		return cp, nil, true, err
	}
	for _, err := range errs[1:] {
		if err != nil {
			return cp, nil, true, fmt.Errorf("load checkpoint: %w", err)
		}
	}
	all := threads[0]
	for _, more := range threads[1:] {
		// In the order of the object: a name that comes again takes the
		// later value, as in a decode of the whole object.
		maps.Copy(all, more)
	}
	cp.Riff.Threads, second.Riff.Threads = all, copyThreads(all)
	return cp, second.Riff, true, nil
}

// copyThreads gives a copy of threads that shares nothing that Apply
// changes: each thread, its members and its list of messages are new.
// The messages themselves are values that Apply never changes in place
// (it appends a message and drops the oldest), so their payloads,
// selectors and woken sessions are shared.
func copyThreads(threads map[name.Thread]*Thread) map[name.Thread]*Thread {
	out := make(map[name.Thread]*Thread, len(threads))
	for n, t := range threads {
		if t == nil {
			out[n] = nil
			continue
		}
		c := *t
		c.Members = maps.Clone(t.Members)
		c.Messages = slices.Clone(t.Messages)
		c.kept = nil // the clone's messages move in an array of its own
		out[n] = &c
	}
	return out
}

// threadsOf walks the checkpoint data once, and gives the span of the
// value of the threads of its riff and where each member of it starts
// (its name), when data is an object in the compact form of
// json.Marshal, with nothing after it, whose members "riff" and, in it,
// "threads" are objects. ok is false for any other form, and when a
// name of either object is one that encoding/json could take for "riff"
// or "threads" with other bytes (an escape, a byte that is not ASCII,
// another letter case), or comes twice.
func threadsOf(data []byte) (threads span, starts []int, ok bool) {
	end, ok := onlyMember(data, 0, "riff", func(at int) (int, bool) {
		return onlyMember(data, at, "threads", func(at int) (int, bool) {
			end, ok := eachMember(data, at, func(_ []byte, member, at int) (int, bool) {
				starts = append(starts, member)
				return skipValue(data, at)
			})
			threads = span{at, end}
			return end, ok
		})
	})
	if !ok || end != len(data) {
		return span{}, nil, false
	}
	return threads, starts, true
}

// onlyMember walks the compact object at data[at] and gives the start
// of the value of its member key to value, which gives the end of the
// value; it skips every other member. ok is false when no member, or
// more than one, is named key, or when a name is not clear (nameIs).
func onlyMember(data []byte, at int, key string, value func(at int) (end int, ok bool)) (end int, ok bool) {
	named := 0
	end, ok = eachMember(data, at, func(name []byte, _, at int) (int, bool) {
		is, clear := nameIs(name, key)
		switch {
		case !clear:
			return 0, false
		case !is:
			return skipValue(data, at)
		}
		if named++; named > 1 {
			return 0, false
		}
		return value(at)
	})
	return end, ok && named == 1
}

// nameIs says whether the name of a member is key (is), and whether it
// is clear: that encoding/json, which takes a name in any letter case
// for the name of a field, takes it for key only when it is key. A name
// with an escape or a byte that is not ASCII is not clear.
func nameIs(name []byte, key string) (is, clear bool) {
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf {
			return false, false
		}
	}
	if !bytes.EqualFold(name, []byte(key)) {
		return false, true
	}
	return string(name) == key, string(name) == key
}

// span is the bytes data[start:end] of a value.
type span struct{ start, end int }

// piecesOf cuts the members of the object threads of data, which start
// at starts, into pieces of whole members, about n of the same size,
// each a compact object of its own.
func piecesOf(data []byte, threads span, starts []int, n int) [][]byte {
	if len(starts) == 0 {
		return [][]byte{data[threads.start:threads.end]}
	}
	var pieces [][]byte
	size := (threads.end-threads.start)/max(n, 1) + 1
	from := starts[0]
	for _, at := range starts[1:] {
		if at-from >= size {
			pieces = append(pieces, asObject(data[from:at-1])) // at-1 is the comma
			from = at
		}
	}
	return append(pieces, asObject(data[from:threads.end-1]))
}

// asObject gives members, names and values with the commas between
// them, as an object of their own.
func asObject(members []byte) []byte {
	out := make([]byte, 0, len(members)+2)
	out = append(out, '{')
	out = append(out, members...)
	return append(out, '}')
}

// eachMember walks the compact object at data[at]: value gets the name
// of each member (its bytes between the quotes), where the member
// starts, and where its value starts, and gives the end of the value,
// or false to stop the walk. eachMember gives the end of the object. ok
// is false when value stopped it or the object is not in the compact
// form (a space, a byte out of place). It checks no value: the decode
// that reads them does.
func eachMember(data []byte, at int, value func(name []byte, member, at int) (end int, ok bool)) (end int, ok bool) {
	if at >= len(data) || data[at] != '{' {
		return 0, false
	}
	i := at + 1
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		nameEnd, ok := skipString(data, i)
		if !ok || nameEnd >= len(data) || data[nameEnd] != ':' {
			return 0, false
		}
		valueEnd, ok := value(data[i+1:nameEnd-1], i, nameEnd+1)
		if !ok || valueEnd >= len(data) {
			return 0, false
		}
		switch data[valueEnd] {
		case ',':
			i = valueEnd + 1
		case '}':
			return valueEnd + 1, true
		default:
			return 0, false
		}
	}
}

// skipString gives the end of the string that starts at data[i]: the
// first quote after it with an even count of backslashes before it.
func skipString(data []byte, i int) (end int, ok bool) {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		quote := j + k
		backslashes := 0
		for b := quote - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return quote + 1, true
		}
		j = quote + 1
	}
}

// maxSplitDepth is the deepest nesting of a value that the split walks:
// the types of a checkpoint nest far less. A deeper value goes to the
// decode of the whole, whose limit of nesting counts from the top (a
// piece starts two levels lower).
const maxSplitDepth = 64

// skipValue gives the end of the compact value at data[i]: a string; an
// object or an array, to the bracket that closes it (outside strings),
// at most maxSplitDepth deep; else a literal or a number, to the next
// comma or bracket.
func skipValue(data []byte, i int) (end int, ok bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				e, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				if depth++; depth > maxSplitDepth {
					return 0, false
				}
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			case ' ', '\t', '\n', '\r':
				return 0, false
			}
		}
		return 0, false
	}
	j := i
	for ; j < len(data); j++ {
		switch data[j] {
		case ',', '}', ']':
			return j, j > i
		case ' ', '\t', '\n', '\r':
			return 0, false
		}
	}
	return j, j > i
}
