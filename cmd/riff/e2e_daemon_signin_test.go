package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestGivenARiffWithSignInWhenTheDaemonRunsAnItemThenEachCallOfTheWorkerGoesAsItsSessionAndItsPostIsSigned(t *testing.T) {
	p := newProvider(t)
	w := newDaemonWorldAt(t, "tool;riff:status writes-the-tests;riff:post --kind note done-by-the-worker;push;result", func(bin string) *riffServer {
		return startSignInServer(t, bin, "", p)
	})
	w.env = append(w.env, "RIFF_KEYRING=off", "DISPLAY=", "WAYLAND_DISPLAY=", "BROWSER=", "DBUS_SESSION_BUS_ADDRESS=")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	loginAs(t, ctx, w.bin, p, w.srv, w.state, "mike@example.com", w.env...)
	if _, errOut, code := w.riff("resume", "--riff"); code != 0 {
		t.Fatalf("riff resume --riff = %d %s", code, errOut)
	}
	d := w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-7"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	d.waitErr("riff daemon ended a session")
	w.until("who", []string{"who", "--all"}, "ended")
	read := w.until("the post of the worker", []string{"read", "--all"}, "done-by-the-worker")
	found := false
	for _, line := range strings.Split(read, "\n") {
		if strings.Contains(line, "done-by-the-worker") {
			found = true
			if !strings.Contains(line, "mike@pangolin:origin#issue-7") || !strings.Contains(line, "(verified)") {
				t.Errorf("the post of the worker = %q; want it from the worker session, signed", line)
			}
		}
	}
	if !found {
		t.Errorf("read = %s", read)
	}
	if log := w.srv.log.String(); strings.Contains(log, `"code":"bad_token"`) || strings.Contains(log, `"code":"no_token"`) {
		t.Errorf("riff-server refused a token of the daemon:\n%s", log)
	}
}
