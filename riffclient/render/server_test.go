package render

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// riff server shows each checkpoint that the start of the server passed
// over because it did not read, with why.
func TestGivenAStartThatPassedOverADamagedCheckpointWhenRiffServerRunsThenItShowsIt(t *testing.T) {
	why := "read checkpoint: checkpoint/00000000000000000004-1790856000000.json position 4: does not read: the state does not match its checksum"
	var got []Fact
	for _, f := range ServerFacts(wire.ServerFacts{Serves: true, UnreadCheckpoints: []string{why}}) {
		if strings.TrimSpace(f.Key) == "unread" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].Value, why) || got[0].Style != Bad {
		t.Errorf("ServerFacts gave the unread lines %+v; want one line in the style Bad with %q", got, why)
	}
	for _, f := range ServerFacts(wire.ServerFacts{Serves: true}) {
		if strings.TrimSpace(f.Key) == "unread" {
			t.Errorf("ServerFacts with every checkpoint read gave %+v", f)
		}
	}
}
