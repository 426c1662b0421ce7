package riffengine_test

import (
	"runtime"
	"testing"

	"github.com/como-technologies/riff/riffengine"
)

// The decision (docs/decisions.md, "The checkpoint maker at the lowest
// priority"): with no GOMAXPROCS in the environment, the runtime gets
// one processor more than it had.
func TestGivenNoGOMAXPROCSWhenAProgramSetsTheProcsForCheckpointsThenTheRuntimeHasOneMore(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	if got := riffengine.SetProcsForCheckpoints(); got != before+1 || runtime.GOMAXPROCS(0) != before+1 {
		t.Fatalf("SetProcsForCheckpoints = %d, the runtime has %d; want %d", got, runtime.GOMAXPROCS(0), before+1)
	}
}

// A GOMAXPROCS of the environment is the program's choice: it stays.
func TestGivenGOMAXPROCSWhenAProgramSetsTheProcsForCheckpointsThenTheRuntimeKeepsItsNumber(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	if got := riffengine.SetProcsForCheckpoints(); got != before || runtime.GOMAXPROCS(0) != before {
		t.Fatalf("SetProcsForCheckpoints = %d, the runtime has %d; want %d", got, runtime.GOMAXPROCS(0), before)
	}
}
