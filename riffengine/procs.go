package riffengine

import (
	"os"
	"runtime"
)

// SetProcsForCheckpoints gives the Go runtime one processor more than it
// has, unless GOMAXPROCS is set in the environment, and returns the
// number it has then. A program that runs an engine calls it once, at
// the start of main (cmd/riff-server and examples/embed do): the
// checkpoint maker runs at the lowest priority on a thread of its own,
// which keeps its processor while the system holds it back, and the
// extra one keeps it from taking a processor of the calls. The engine
// never calls it: the number is the process's setting, not a library's.
func SetProcsForCheckpoints() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	procs := runtime.GOMAXPROCS(0) + 1
	runtime.GOMAXPROCS(procs)
	return procs
}
