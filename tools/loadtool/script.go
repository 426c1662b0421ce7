package loadtool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Script is the input of "riffload run": the calls of each client. Client
// c sends the calls of list c mod the number of lists, in turn, again and
// again.
//
// With Expand, the path and the body of each call are templates: each
// "{c}" becomes the number of the client (from 1) and each "{i}" the
// number of the turn through its list (from 1), so that a load can make
// a new session or a new item at each turn (the fresh-session and the
// pile-up loads of docs/performance.md) while the calls of one turn
// share their names. A template must stay JSON once expanded: the
// placeholders stand inside strings.
type Script struct {
	Clients [][]Call `json:"clients"`
	Expand  bool     `json:"expand,omitempty"`
}

// Call is one call of a script: a POST of Body to Path.
type Call struct {
	Path string          `json:"path"`
	Body json.RawMessage `json:"body"`
}

// Body gives the calls of the script as a BodyFunc; the error names a
// script with no client or a client with no call.
func (s Script) Body() (BodyFunc, error) {
	if len(s.Clients) == 0 {
		return nil, errors.New("the script has no client")
	}
	for c, calls := range s.Clients {
		if len(calls) == 0 {
			return nil, fmt.Errorf("the script's client %d has no call", c)
		}
	}
	if !s.Expand {
		return func(c, i int) (string, []byte) {
			calls := s.Clients[c%len(s.Clients)]
			k := calls[i%len(calls)]
			return k.Path, k.Body
		}, nil
	}
	return func(c, i int) (string, []byte) {
		calls := s.Clients[c%len(s.Clients)]
		k := calls[i%len(calls)]
		turn := i/len(calls) + 1
		return string(expand(nil, []byte(k.Path), c+1, turn)), expand(nil, k.Body, c+1, turn)
	}, nil
}

// expand appends t with each "{c}" replaced by c and each "{i}" by i.
func expand(dst, t []byte, c, i int) []byte {
	for {
		at := bytes.IndexByte(t, '{')
		if at < 0 || at+2 >= len(t) || t[at+2] != '}' || (t[at+1] != 'c' && t[at+1] != 'i') {
			if at < 0 {
				return append(dst, t...)
			}
			dst = append(dst, t[:at+1]...)
			t = t[at+1:]
			continue
		}
		dst = append(dst, t[:at]...)
		if t[at+1] == 'c' {
			dst = strconv.AppendInt(dst, int64(c), 10)
		} else {
			dst = strconv.AppendInt(dst, int64(i), 10)
		}
		t = t[at+3:]
	}
}
