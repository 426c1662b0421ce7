package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// The program with a stored sign-in, against riff-server with sign-in
// and riff login, is tested in cmd/riff
// (TestGivenASignInThatRiffLoginStoredWhenAGoProgramCallsTheRiffThenItCallsAsThePersonWithSignedPosts).

func TestGivenNoStoredSignInWhenTheProgramRunsThenItSaysWhatToRunAndCallsNothing(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	env := map[string]string{"RIFF_SERVER": srv.URL, "RIFF_HOME": t.TempDir(), "RIFF_KEYRING": "off"}
	var out strings.Builder
	err := run(context.Background(), []string{"hello"}, func(k string) string { return env[k] }, &out)
	want := "this machine has no stored sign-in for the riff at " + srv.URL + ". Run riff login"
	if err == nil || err.Error() != want {
		t.Errorf("run with no stored sign-in = %v; want %q", err, want)
	}
	if n := calls.Load(); n != 0 || out.Len() != 0 {
		t.Errorf("%d calls and the output %q; want none", n, out.String())
	}
}

func TestGivenNoWordsWhenTheProgramRunsThenItSaysSo(t *testing.T) {
	err := run(context.Background(), nil, func(string) string { return "" }, &strings.Builder{})
	if err == nil || err.Error() != "give the words to post in chat" {
		t.Errorf("run with no words = %v", err)
	}
}
