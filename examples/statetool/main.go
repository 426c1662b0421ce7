// Command statetool runs commands of a riff on riffstate alone: no
// server, no log, no clock. The state takes the time of each command as
// a value, so the same commands always give the same state. Tests, tools
// and simulations use it this way.
package main

import (
	"fmt"
	"os"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

func main() {
	rows, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "statetool:", err)
		os.Exit(1)
	}
	for _, row := range rows {
		fmt.Println(row)
	}
}

// run makes a riff, resumes it, lets two sessions claim, opens their
// watches, tries a claim of a held item, and gives the refusal and the
// rows of who.
func run() ([]string, error) {
	s := riffstate.New(riffstate.Options{})
	now := riffstate.Now{Ms: 1_790_000_000_000}
	mike, err := caller("riff://mike@pangolin/acme/app")
	if err != nil {
		return nil, err
	}
	a6cf, err := caller("riff://mike@pangolin/acme/app?session=a6cf")
	if err != nil {
		return nil, err
	}
	b7d0, err := caller("riff://ann@lynx/acme/app?session=b7d0")
	if err != nil {
		return nil, err
	}
	steps := []func() error{
		func() error {
			_, _, err := riffstate.Run(s, riffstate.MakeRiff{ID: "riff-1"}, riffstate.ServerCaller(), now)
			return err
		},
		func() error {
			_, _, err := riffstate.Run(s, riffstate.Resume{Resume: wire.Resume{Me: mike.URI, Riff: true}}, mike, now)
			return err
		},
		func() error {
			_, _, err := riffstate.Run(s, riffstate.Claim{Claim: wire.Claim{Me: a6cf.URI, Item: "issue-12"}}, a6cf, now)
			return err
		},
		func() error {
			_, _, err := riffstate.Run(s, riffstate.Claim{Claim: wire.Claim{Me: b7d0.URI, Item: "issue-13"}}, b7d0, now)
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
		now.Ms += 1000
	}
	// Each session opens its watch (riff relay watch): a session with no
	// open watch is offline in who.
	for _, c := range []riffstate.Caller{a6cf, b7d0} {
		riffstate.WatchStarted{}.Set(s.Presence(), c.Who(), now)
	}
	var rows []string
	// A second claim of issue-12 is refused: a live session holds it.
	if _, _, err := riffstate.Run(s, riffstate.Claim{Claim: wire.Claim{Me: b7d0.URI, Item: "issue-12"}}, b7d0, now); err != nil {
		rows = append(rows, "refused: "+err.Error())
	}
	for _, row := range s.Written().Who(a6cf, false, now).Rows {
		rows = append(rows, fmt.Sprintf("%s %s %s", row.URI, row.State, row.Detail))
	}
	return rows, nil
}

// caller gives the caller of a session URI.
func caller(uri string) (riffstate.Caller, error) {
	u, err := name.ParseURI(uri)
	if err != nil {
		return riffstate.Caller{}, err
	}
	return riffstate.CallerOf(u), nil
}
