package loadtool

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Script is the input of "riffload run": the calls of each client. Client
// c sends the calls of list c mod the number of lists, in turn, again and
// again.
type Script struct {
	Clients [][]Call `json:"clients"`
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
	return func(c, i int) (string, []byte) {
		calls := s.Clients[c%len(s.Clients)]
		k := calls[i%len(calls)]
		return k.Path, k.Body
	}, nil
}
