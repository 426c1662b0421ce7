//go:build unix

package main

import (
	"os"
	"syscall"
)

// resizeSignals gives the signals of a resize of the terminal.
func resizeSignals() []os.Signal { return []os.Signal{syscall.SIGWINCH} }
