//go:build unix

package earlier

import (
	"os/exec"
	"syscall"
)

// detach runs the fetch in a session of its own, with no terminal: ssh
// then cannot ask for a passphrase or a host key in the terminal of the
// person or of the agent tool (the relay runs inside it), and fails
// instead of waiting for the limit. At the limit the whole session of
// the fetch ends (git, ssh, a helper), not git alone.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
