package door_test

import (
	"testing"

	"github.com/como-technologies/riff/riffclient/door"
)

func TestGivenTheIDsOfADoorCommandWhenItsSessionIsNamedThenTheGivenWinsThenTheAgentToolsEnvThenTheFallback(t *testing.T) {
	for _, tc := range []struct{ given, agent, fallback, want string }{
		{"f1f1f1f1", "c3c3c3c3", "h4h4h4h4", "f1f1f1f1"},
		{"", "c3c3c3c3", "h4h4h4h4", "c3c3c3c3"},
		{"", "", "h4h4h4h4", "h4h4h4h4"},
		{"", "", "", ""},
	} {
		if got := door.SessionOf(tc.given, tc.agent, tc.fallback); got != tc.want {
			t.Errorf("SessionOf(%q, %q, %q) = %q; want %q", tc.given, tc.agent, tc.fallback, got, tc.want)
		}
	}
}
