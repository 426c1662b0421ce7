//go:build !unix

package main

import "os"

// resizeSignals gives none: a system with no SIGWINCH draws the new
// width at the next look.
func resizeSignals() []os.Signal { return nil }
