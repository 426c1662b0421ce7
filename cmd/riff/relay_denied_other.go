//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// detach: with no sessions of unix, the sender starts as a plain child
// that holds no stream of the hook.
func detach(cmd *exec.Cmd) {}

// lockFile: with no flock, the key of each post keeps two senders from
// posting a record twice.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
