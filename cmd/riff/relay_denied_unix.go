//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own: a signal to the group of
// the agent tool does not reach it, and it holds no stream of the hook.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// lockFile takes the lock of path, waiting while another process holds
// it; unlock gives it back. The lock ends with the process too.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
