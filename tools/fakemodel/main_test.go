package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/como-technologies/riff/tools/messagesfake"
)

// TestGivenAPlanFileWhenARequestComesThenFakemodelAnswersByThePlanAndLogsIt:
// the first call of the plan, one log line with severity, and exit 0.
func TestGivenAPlanFileWhenARequestComesThenFakemodelAnswersByThePlanAndLogsIt(t *testing.T) {
	agent, err := readPlans(t, `{"plans": [{"name": "take", "when": "take", "steps": [{"tool": "claim", "input": {"item": "issue-7"}}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr syncBuf
	done := make(chan int, 1)
	go func() { done <- serve(ctx, agent, "127.0.0.1:0", pw, &stderr); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on http://127.0.0.1:") {
		t.Fatalf("fakemodel printed %q, %v", line, err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	body := `{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "take it"}], "tools": [{"name": "claim", "input_schema": {"type": "object"}}]}`
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), `"name":"claim"`) || !strings.Contains(string(raw), `"item":"issue-7"`) {
		t.Errorf("the reply is %s; want the claim of the plan", raw)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("fakemodel exited %d; want 0\n%s", code, stderr.String())
	}
	var logLine map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(stderr.String(), "\n", 2)[0]), &logLine); err != nil || logLine["severity"] != "INFO" || logLine["message"] != "request" {
		t.Errorf("the log line is %q (%v)", stderr.String(), err)
	}
}

// TestGivenABadPlanFileWhenFakemodelStartsThenItSaysWhatIsWrong: exit 1,
// and the error names the file and the fault.
func TestGivenABadPlanFileWhenFakemodelStartsThenItSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"plans": []}`, "no plan"},
		{`{"plans": [{"steps": [{"input": {}}]}]}`, "names no tool"},
		{`{"plans": [{"steps": []}], "blok": []}`, `unknown field "blok"`},
		{`{"plans": [{"steps": []}], "block": [{"contains": "git push"}]}`, "needs the text of an action"},
	} {
		path := filepath.Join(t.TempDir(), "plans.json")
		if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-plans", path}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), path) {
			t.Errorf("the plan file %s gave exit %d and %q; want 1 and %q", tc.file, code, stderr.String(), tc.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage") {
		t.Errorf("no flags gave %d %q; want 2 and the usage", code, stderr.String())
	}
}

func readPlans(t *testing.T, file string) (*messagesfake.Agent, error) {
	t.Helper()
	return messagesfake.ReadAgent(strings.NewReader(file))
}

// syncBuf is a buffer that the stand-in writes while the test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
