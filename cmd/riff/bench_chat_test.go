package main

// The measure of the history of riff chat (issue 22): the time from the
// start of riff chat to the last of the 200 kept lines of chat on its
// output, with the real binaries on loopback. The guide's ceiling is 1
// second. Command and figures: docs/performance.md, section "The history
// of riff chat".
//
//	cd cmd && go test -run '^$' -bench 'BenchmarkChatHistory' -benchtime 20x -count 3 ./riff/

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// BenchmarkChatHistory: a riff whose chat had 250 lines (the server
// keeps the last 200); each round starts riff chat through a pipe and
// waits for the last kept line. It reports the median of the rounds
// (history-ms) beside the ceiling of the guide (ceiling-ms).
func BenchmarkChatHistory(b *testing.B) {
	bin := binaries(b, "", "./riff", "./riff-server")
	_, server := startBenchServer(b, bin)
	dir := b.TempDir()
	c := benchClient(b, server, nil)
	me := name.SessionURI{User: "brett", Host: "heron"}
	const posted = 250
	for i := 1; i <= posted; i++ {
		call := wire.Post{Me: me, Thread: "chat", Body: fmt.Sprintf("line %d of the history of the chat, with a few words more", i)}
		if _, err := riffclient.Send(context.Background(), c, call); err != nil {
			b.Fatalf("post %d: %v", i, err)
		}
	}
	last := fmt.Sprintf("line %d of the history", posted)
	var rounds []time.Duration
	b.ResetTimer()
	for range b.N {
		rounds = append(rounds, chatHistoryOnce(b, bin, dir, server, last))
	}
	b.StopTimer()
	slices.Sort(rounds)
	median := rounds[len(rounds)/2]
	b.ReportMetric(float64(median.Microseconds())/1000, "history-ms")
	b.ReportMetric(1000, "ceiling-ms")
	b.ReportMetric(0, "ns/op")
}

// chatHistoryOnce starts riff chat, waits until its output holds the
// line last, and ends it; it gives the time to the line.
func chatHistoryOnce(b *testing.B, bin, dir, server, last string) time.Duration {
	b.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), "chat", "--color", "never")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "USER=mike", "RIFF_HOST=thelio", "RIFF_SERVER="+server, "NO_COLOR=", testLocalEnv+"=http://127.0.0.1:1")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	p := startBenchProc(b, cmd)
	for !strings.Contains(out.String(), last) {
		select {
		case <-p.done:
			b.Fatalf("riff chat ended before the history:\n%s", out.String())
		default:
		}
		if time.Since(start) > 30*time.Second {
			b.Fatalf("riff chat shows no history in 30 s:\n%s", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	if n := bytes.Count([]byte(out.String()), []byte("of the history of the chat")); n != 200 {
		b.Fatalf("riff chat shows %d lines of the history; want the 200 kept", n)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	<-p.done
	return took
}
