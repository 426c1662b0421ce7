// Command signalriff must not compile: a signal cannot reach the riff.
// It differs from signalpresence only in the value that the last signal
// gets: the riff, which [riffstate.Signal] does not take.
// TestASignalCannotReachTheRiff builds both.
package main

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffstate"
)

func main() {
	mike := name.Who{User: "mike", Session: "a6cf"}
	presence, riff := riffstate.NewPresence(), riffstate.NewRiff()
	riffstate.Place{Place: name.Place{Host: "pangolin", Repo: "como-technologies/riff"}}.Set(presence, mike, riffstate.Now{Ms: 1})
	riffstate.Alive{Activity: "works"}.Set(riff, mike, riffstate.Now{Ms: 2})
	_ = riff
}
