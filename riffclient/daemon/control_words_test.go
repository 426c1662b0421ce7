package daemon

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGivenNoDaemonWhenStatusAsksThenTheErrorSaysSoInWords: a person
// reads the error of riff daemon status; Go's URL error of the made-up
// URL of the socket is no text for a person.
func TestGivenNoDaemonWhenStatusAsksThenTheErrorSaysSoInWords(t *testing.T) {
	dir := t.TempDir()
	left := filepath.Join(dir, "left.sock")
	l, err := net.Listen("unix", left)
	if err != nil {
		t.Fatal(err)
	}
	// A closed listener leaves no file on Linux: make the file again so
	// that a connect is refused, as with the socket of a daemon killed -9.
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	for socket, want := range map[string]string{
		filepath.Join(dir, "none.sock"): "no daemon listens there",
		left:                            "no daemon listens there (the socket is left from a daemon that ended)",
	} {
		_, err := Control{Socket: socket}.Status(context.Background())
		var na *NoAnswerError
		if !errors.As(err, &na) {
			t.Fatalf("Status on %s = %v; want a NoAnswerError", socket, err)
		}
		if got := err.Error(); got != "the riff daemon gave no answer on "+socket+": "+want || strings.Contains(got, "http://") {
			t.Errorf("the error = %q; want %q after the socket", got, want)
		}
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("the socket file is gone: %v", err)
	}
}
