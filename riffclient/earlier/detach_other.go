//go:build !unix

package earlier

import "os/exec"

// detach does nothing here: GIT_TERMINAL_PROMPT=0 and the limit of the
// fetch keep it from waiting long.
func detach(*exec.Cmd) {}
