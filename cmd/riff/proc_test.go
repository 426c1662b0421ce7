package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// proc is a riff process that runs beside a test (riff tail, riff relay
// watch), with its output captured: the test waits for its lines and
// ends it as a person does.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
	done   chan struct{}
	// what names the process in a failure; limit is the longest wait
	// for a line.
	what  string
	limit time.Duration
}

// startProc starts cmd with its output captured, ends it (Ctrl-C) at the
// end of the test, and waits until its stream is open.
func startProc(t *testing.T, cmd *exec.Cmd, what string, limit time.Duration) *proc {
	t.Helper()
	p := &proc{t: t, cmd: cmd, done: make(chan struct{}), what: what, limit: limit}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s %v:\n--- stdout\n%s--- stderr\n%s", what, cmd.Args[1:], p.stdout.String(), p.stderr.String())
		}
	})
	p.waitErr("(open)")
	return p
}

// waitOut waits until stdout holds text.
func (p *proc) waitOut(text string) { p.t.Helper(); p.wait(&p.stdout, "stdout", text) }

// waitErr waits until stderr holds text.
func (p *proc) waitErr(text string) { p.t.Helper(); p.wait(&p.stderr, "stderr", text) }

// wait waits until b holds text, for at most the limit of p. A process
// that ended with the text in b is no failure.
func (p *proc) wait(b *syncBuffer, which, text string) {
	p.t.Helper()
	deadline := time.Now().Add(p.limit)
	for !strings.Contains(b.String(), text) {
		select {
		case <-p.done:
			if strings.Contains(b.String(), text) {
				return
			}
			p.t.Fatalf("%s ended before its %s held %q", p.what, which, text)
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the %s of %s does not hold %q after %v", which, p.what, text, p.limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends the process as Ctrl-C does (the Monitor too), and checks
// that it exits 0 within 10 s. A process that ended is left alone.
func (p *proc) stop() {
	p.t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Errorf("%s did not end in 10 s after Ctrl-C", p.what)
		return
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Errorf("%s exit %d after Ctrl-C; want 0", p.what, code)
	}
}
