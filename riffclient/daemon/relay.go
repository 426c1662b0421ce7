package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffcore/wire"
)

// EnvSocket names the socket of the session inside its container: each
// riff there (the relay, riff relay mcp, the hooks) talks to the daemon
// through it, and to no riff-server.
const EnvSocket = "RIFF_SOCKET"

// SocketURL is the URL of the calls on a session's socket: the host is a
// name only, the socket is the way.
var SocketURL = &url.URL{Scheme: "http", Host: "riff-daemon"}

// SocketHTTP gives an HTTP client whose connections go to the unix
// socket at path.
func SocketHTTP(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
}

// StartBudget is the longest wait of the relay for the daemon at its
// start: a daemon that starts again answers within it.
const StartBudget = time.Minute

// Relay is riff relay -- claude: the entrypoint of a container. It asks
// the daemon what to start, starts claude with stream-json input and
// output and the riff tools (riff relay mcp over the socket), writes the
// first prompt and each wake of the first turn into its input, and
// tells the daemon at the end of the first turn which wakes claude never
// saw.
type Relay struct {
	// Socket is the path of the session's socket. Required.
	Socket string
	// Claude is the command of claude and its own arguments. Required.
	Claude []string
	// Riff is the riff of the MCP server of the tools: ContainerRiff
	// when empty.
	Riff string
	// Output gets the stream-json output of claude (the log of the
	// container); nil drops it.
	Output io.Writer
	// Log gets the lines of the relay; nil logs nothing.
	Log *slog.Logger
}

// written is one wake in the input of claude, with the number of tool
// results that claude had given when it was written.
type written struct {
	wake    wire.Wake
	results int
}

// Run runs claude to its end, and gives its exit code.
func (r Relay) Run(ctx context.Context) (int, error) {
	if len(r.Claude) == 0 {
		return 2, errors.New("riff relay needs the command of claude after --")
	}
	log := r.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	riff := r.Riff
	if riff == "" {
		riff = ContainerRiff
	}
	hc := SocketHTTP(r.Socket)
	start, err := r.start(ctx, hc)
	if err != nil {
		return 2, err
	}
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"riff": map[string]any{"type": "stdio", "command": riff, "args": []string{"relay", "mcp"}},
	}})
	args := append([]string{}, r.Claude[1:]...)
	args = append(args, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--session-id", start.Session, "--mcp-config", string(mcp))
	args = append(args, start.Args...)
	cmd := exec.Command(r.Claude[0], args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 2, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 2, err
	}
	if err := cmd.Start(); err != nil {
		return 2, fmt.Errorf("riff relay cannot start %s: %w", r.Claude[0], err)
	}
	var inMu sync.Mutex
	input := func(text string) error {
		line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
		inMu.Lock()
		defer inMu.Unlock()
		_, err := stdin.Write(append(line, '\n'))
		return err
	}
	if err := input(start.Prompt); err != nil {
		log.Warn("riff relay cannot write the first prompt", "error", err.Error())
	}

	events := make(chan string)
	var readers sync.WaitGroup
	readers.Go(func() {
		defer close(events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			if r.Output != nil {
				fmt.Fprintln(r.Output, line)
			}
			events <- line
		}
	})
	wakeCtx, stopWakes := context.WithCancel(ctx)
	wakes := make(chan wire.Wake)
	readers.Go(func() { r.followWakes(wakeCtx, hc, wakes, log) })

	var given []written
	results := 0
	ended := false
	endTurn := func() {
		if ended {
			return
		}
		ended = true
		stopWakes()
		var unseen []wire.Wake
		for _, g := range given {
			if g.results == results {
				unseen = append(unseen, g.wake)
			}
		}
		if err := r.post(ctx, hc, PathTurn, TurnEnded{Unseen: unseen}); err != nil {
			log.Warn("riff relay cannot tell the daemon the end of the first turn", "error", err.Error())
		}
		inMu.Lock()
		_ = stdin.Close()
		inMu.Unlock()
		if len(unseen) > 0 && cmd.Process != nil {
			// A wake that came after the last tool call would run as a
			// second turn: the session ended its work, so it does not.
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
loop:
	for {
		select {
		case line, ok := <-events:
			if !ok {
				break loop
			}
			switch kind, toolResult := eventKind(line); {
			case kind == "result":
				endTurn()
			case toolResult:
				results++
			}
		case w := <-wakes:
			if ended {
				// It came after the end of the first turn: claude never
				// sees it, so the daemon answers it.
				_ = r.post(ctx, hc, PathTurn, TurnEnded{Unseen: []wire.Wake{w}})
				continue
			}
			if err := input(door.WakeLine(w) + ". Read it with the read tool of riff, and act on it in this turn."); err != nil {
				log.Warn("riff relay cannot write a wake into the input of claude", "error", err.Error())
			}
			given = append(given, written{wake: w, results: results})
		}
	}
	endTurn()
	stopWakes()
	readers.Wait()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() < 0 {
			return 0, nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 2, err
	}
	return 0, nil
}

// eventKind reads the type of one line of the stream-json output, and
// whether it gives a tool result (a user event with tool_result).
func eventKind(line string) (string, bool) {
	var e struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal([]byte(line), &e) != nil {
		return "", false
	}
	if e.Type != "user" {
		return e.Type, false
	}
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(e.Message.Content, &parts) != nil {
		return e.Type, false
	}
	for _, p := range parts {
		if p.Type == "tool_result" {
			return e.Type, true
		}
	}
	return e.Type, false
}

// start asks the daemon what to start, within StartBudget.
func (r Relay) start(ctx context.Context, hc *http.Client) (StartReply, error) {
	ctx, cancel := context.WithTimeout(ctx, StartBudget)
	defer cancel()
	var last error
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, SocketURL.String()+PathStart, nil)
		resp, err := hc.Do(req)
		if err == nil {
			var s StartReply
			err = json.NewDecoder(resp.Body).Decode(&s)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				return s, nil
			}
			if err == nil {
				err = fmt.Errorf("status %s", resp.Status)
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return StartReply{}, fmt.Errorf("the riff daemon gave no answer on %s: %v", r.Socket, last)
		case <-time.After(wait):
		}
	}
}

// followWakes reads the wakes of the daemon for the input of claude, and
// opens the stream again after a break (a new start of the daemon),
// until ctx ends.
func (r Relay) followWakes(ctx context.Context, hc *http.Client, out chan<- wire.Wake, log *slog.Logger) {
	for wait := 250 * time.Millisecond; ctx.Err() == nil; wait = min(2*wait, 5*time.Second) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, SocketURL.String()+PathWakes, nil)
		resp, err := hc.Do(req)
		if err == nil {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				var w wire.Wake
				if json.Unmarshal(sc.Bytes(), &w) != nil {
					continue
				}
				wait = 250 * time.Millisecond
				select {
				case out <- w:
				case <-ctx.Done():
					resp.Body.Close()
					return
				}
			}
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// post posts v as JSON to a path of the daemon, and tries again while
// the daemon starts again, within StartBudget.
func (r Relay) post(ctx context.Context, hc *http.Client, path string, v any) error {
	body, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StartBudget)
	defer cancel()
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, SocketURL.String()+path, bytes.NewReader(body))
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}
