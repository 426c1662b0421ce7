package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"sort"
	"syscall"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
)

// The paths of the control socket.
const (
	PathStatus = "/daemon/status"
	PathRun    = "/daemon/run"
)

// AskBudget is the longest wait for the daemon to answer a look:
// "The riff daemon gave no answer in 5 s".
const AskBudget = 5 * time.Second

// Status is the answer of the daemon to riff daemon status.
type Status struct {
	Pid      int             `json:"pid"`
	Build    string          `json:"build"`
	Session  name.SessionURI `json:"session"`
	Sessions []SessionStatus `json:"sessions"`
}

// SessionStatus is one container session of the daemon.
type SessionStatus struct {
	URI       name.SessionURI `json:"uri"`
	Item      name.Item       `json:"item"`
	Container string          `json:"container"`
	Phase     string          `json:"phase"`
}

// controlHandler serves the control socket.
func (d *Daemon) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathStatus, func(w http.ResponseWriter, r *http.Request) {
		writeJSONReply(w, http.StatusOK, d.Status())
	})
	mux.HandleFunc("POST "+PathRun, func(w http.ResponseWriter, r *http.Request) {
		var req RunRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			writeJSONReply(w, http.StatusBadRequest, map[string]string{"error": "the run request is no JSON that riff can read: " + err.Error()})
			return
		}
		reply, err := d.RunItem(r.Context(), req)
		if err != nil {
			status := http.StatusInternalServerError
			var re *RunError
			if errors.As(err, &re) {
				status = http.StatusConflict
			}
			writeJSONReply(w, status, map[string]string{"error": err.Error()})
			return
		}
		writeJSONReply(w, http.StatusOK, reply)
	})
	return mux
}

// Status gives the state of the daemon and of each of its sessions.
func (d *Daemon) Status() Status {
	d.mu.Lock()
	st := Status{Pid: d.c.Pid, Build: d.c.Client.Build().String(), Session: d.me, Sessions: []SessionStatus{}}
	all := make([]*session, 0, len(d.sessions))
	for _, s := range d.sessions {
		all = append(all, s)
	}
	d.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		st.Sessions = append(st.Sessions, SessionStatus{URI: s.kept.URI, Item: s.kept.Item, Container: s.kept.Container, Phase: s.kept.Phase})
		s.mu.Unlock()
	}
	sort.Slice(st.Sessions, func(i, j int) bool { return st.Sessions[i].Container < st.Sessions[j].Container })
	return st
}

func writeJSONReply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Control talks to the daemon of this machine on its control socket.
type Control struct {
	// Socket is the path of the control socket.
	Socket string
}

// NoAnswerError is a daemon that gave no answer on its socket.
type NoAnswerError struct {
	Socket string
	Err    error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("the riff daemon gave no answer on %s: %s", e.Socket, noAnswerWords(e.Err))
}

// noAnswerWords says why a daemon gave no answer, in words and not as
// the URL error of Go (the URL of the socket is made up).
func noAnswerWords(err error) string {
	var timeout net.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no daemon listens there"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "no daemon listens there (the socket is left from a daemon that ended)"
	case errors.As(err, &timeout) && timeout.Timeout():
		return "it gave no answer in time"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		err = op.Err
	}
	return err.Error()
}
func (e *NoAnswerError) Unwrap() error { return e.Err }

func (c Control) client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "unix", c.Socket)
		},
	}}
}

// Status asks the daemon for its status, within 5 s.
func (c Control) Status(ctx context.Context) (Status, error) {
	var st Status
	err := c.do(ctx, AskBudget, http.MethodGet, PathStatus, nil, &st)
	return st, err
}

// Run asks the daemon to run an item. The start of a container can take
// a while (a clone, podman): the wait is at most 5 minutes.
func (c Control) Run(ctx context.Context, req RunRequest) (RunReply, error) {
	var reply RunReply
	err := c.do(ctx, 5*time.Minute, http.MethodPost, PathRun, req, &reply)
	return reply, err
}

// ReplyError is a refusal of the daemon: its text.
type ReplyError struct{ Text string }

func (e *ReplyError) Error() string { return e.Text }

func (c Control) do(ctx context.Context, timeout time.Duration, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://riff-daemon"+path, body)
	if err != nil {
		return err
	}
	resp, err := c.client(timeout).Do(req)
	if err != nil {
		return &NoAnswerError{Socket: c.Socket, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return &NoAnswerError{Socket: c.Socket, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			return &ReplyError{Text: e.Error}
		}
		return &ReplyError{Text: fmt.Sprintf("the riff daemon answered %s", resp.Status)}
	}
	return json.Unmarshal(raw, out)
}
