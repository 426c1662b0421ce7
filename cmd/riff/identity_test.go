package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestRemovedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issue-12")
	var stdout, stderr syncBuffer
	s := &system{
		env: func(k string) string {
			return map[string]string{"USER": "mike", "PWD": dir, "RIFF_SERVER": "127.0.0.1:1"}[k]
		},
		stdout:   &stdout,
		stderr:   &stderr,
		getwd:    func() (string, error) { return "", os.ErrNotExist },
		hostname: func() (string, error) { return "pangolin", nil },
		terminal: func(io.Writer) (bool, int) { return false, 0 },
	}
	code := s.run(context.Background(), []string{"who"})
	want := "Error: riff cannot read its working directory " + dir + ". Change to a directory that exists\n"
	if code != exitFail || stderr.String() != want {
		t.Errorf("riff who in a removed directory = %d, %q; want %d, %q", code, stderr.String(), exitFail, want)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"red \x1b[31mtext\x1b[0m", "red text"},
		{"title \x1b]0;owned\x07 after", "title  after"},
		{"osc st \x1b]8;;http://x\x1b\\link", "osc st link"},
		{"line\nbreak\ttab", "line break tab"},
		{"bell\a and \u009b2J", "bell and "},
		{"raw byte \x9b2J", "raw byte �2J"},
		{"bidi \u202eevil", "bidi evil"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
