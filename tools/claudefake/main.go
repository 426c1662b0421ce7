// Command claudefake is a fake claude -p for the tests of the riff
// daemon: it reads user messages as stream-json on stdin, writes the
// events of stream-json on stdout, and runs the steps of
// $CLAUDEFAKE_SCRIPT (separated by ;): tool (one tool call and its
// result), wait-wake (waits for a message on stdin, then gives a tool
// result: a message mid-turn joins the turn there, as with Claude Code),
// push (commits the work of the folder and pushes its branch), write:FILE
// (a file of work that is not committed), riff:ARGS (a riff command, words
// split at spaces), await:PATH
// (waits until PATH exists), touch:PATH, and result (the end of the
// turn). Each line of its input goes to $CLAUDEFAKE_INPUT.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			keep(sc.Text())
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The first prompt.
	if _, ok := <-lines; !ok {
		os.Exit(1)
	}
	emit(map[string]any{"type": "system", "subtype": "init"})
	n := 0
	tool := func(what string) {
		n++
		id := fmt.Sprintf("tool-%d", n)
		emit(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": what}}}}})
		emit(map[string]any{"type": "user", "message": map[string]any{"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
	}
	for _, step := range strings.Split(os.Getenv("CLAUDEFAKE_SCRIPT"), ";") {
		step = strings.TrimSpace(step)
		switch {
		case step == "tool":
			tool("true")
		case step == "wait-wake":
			select {
			case <-lines:
			case <-time.After(2 * time.Minute):
			}
			tool("read the wake")
		case step == "push":
			for _, args := range [][]string{{"add", "-A"}, {"commit", "--quiet", "--allow-empty", "-m", "the work"}, {"push", "--quiet", "origin", "HEAD"}} {
				if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
					fmt.Fprintf(os.Stderr, "claudefake: git %v: %v: %s\n", args, err, out)
					os.Exit(3)
				}
			}
			tool("git push")
		case strings.HasPrefix(step, "await:"):
			for {
				if _, err := os.Stat(strings.TrimPrefix(step, "await:")); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		case strings.HasPrefix(step, "write:"):
			// A file of work that is not committed.
			_ = os.WriteFile(strings.TrimPrefix(step, "write:"), []byte("work\n"), 0o600)
			tool("write a file")
		case strings.HasPrefix(step, "riff:"):
			// A riff command of the session, as the Bash tool runs it: it
			// goes through the socket of the session.
			args := strings.Fields(strings.TrimPrefix(step, "riff:"))
			if out, err := exec.Command("riff", args...).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "claudefake: riff %v: %v: %s\n", args, err, out)
				os.Exit(4)
			}
			tool("riff " + strings.Join(args, " "))
		case strings.HasPrefix(step, "touch:"):
			_ = os.WriteFile(strings.TrimPrefix(step, "touch:"), nil, 0o600)
		case step == "result":
			emit(map[string]any{"type": "result", "subtype": "success", "result": "done"})
		}
	}
	// As claude -p with stream-json input: a message after the result
	// runs as a second turn, until the end of the input.
	for range lines {
		keep("second turn")
		emit(map[string]any{"type": "result", "subtype": "success", "result": "second turn"})
	}
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func keep(line string) {
	path := os.Getenv("CLAUDEFAKE_INPUT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
