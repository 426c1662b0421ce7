package riffengine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestCallerTextLeavesOutThePathsOfTheDisk(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a file error", fmt.Errorf("a chunk failed for good: put 00000000000000000003.chunk: %w",
			&fs.PathError{Op: "write", Path: "/srv/data/.tmp-3", Err: syscall.ENOSPC}),
			"a chunk failed for good: put 00000000000000000003.chunk: write: no space left on device"},
		{"a link error", fmt.Errorf("put x: %w", &os.LinkError{Op: "link", Old: "/srv/data/.tmp-1", New: "/srv/data/x", Err: syscall.EEXIST}),
			"put x: link: file exists"},
		{"no file error", errors.New("lost the lease: another instance"), "lost the lease: another instance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := callerText(tc.err); got != tc.want {
				t.Errorf("callerText(%v) = %q; want %q", tc.err, got, tc.want)
			}
		})
	}
}
