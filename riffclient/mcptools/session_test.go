package mcptools_test

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffclient/mcptools"
	"github.com/como-technologies/riff/riffcore/name"
)

func TestGivenTheIDsOfAnAgentSessionWhenItsSessionIsNamedThenTheGivenWinsThenTheAgentToolsThenANewOne(t *testing.T) {
	if id, made, err := mcptools.SessionID("f1f1f1f1", "c3c3c3c3"); id != "f1f1f1f1" || made || err != nil {
		t.Errorf("a given ID = %q, %v, %v", id, made, err)
	}
	if id, made, err := mcptools.SessionID("", "c3c3c3c3"); id != "c3c3c3c3" || made || err != nil {
		t.Errorf("the ID of the agent tool = %q, %v, %v", id, made, err)
	}
	a, made, err := mcptools.SessionID("", "")
	b, _, _ := mcptools.SessionID("", "")
	if !made || err != nil || name.CheckSessionID(a) != nil || a == b {
		t.Errorf("no ID gives %q, %q (made %v, %v); want two new session IDs", a, b, made, err)
	}
	if _, _, err := mcptools.SessionID("", "not an id!"); err == nil || !strings.Contains(err.Error(), `"not an id!"`) {
		t.Errorf("a bad ID of the agent tool = %v; want an error that names it", err)
	}
}
