package mcptools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
)

// SessionID gives the session ID of an agent session: the given one
// (riff: --session, then RIFF_SESSION), else the one of its agent tool
// (agentID: the CLAUDE_CODE_SESSION_ID that Claude Code gives its MCP
// server, door.AgentSessionEnv), else a new one, and made says so: the
// hooks of the agent tool then do not reach its keep-alive (docs/agents.md, "Step 2: the session ID").
// An ID that is no session ID is an error that names it.
func SessionID(given, agentID string) (id string, made bool, err error) {
	id = given
	if id == "" {
		id = agentID
	}
	if id == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, fmt.Errorf("riff cannot make a session ID: %s", err)
		}
		id, made = hex.EncodeToString(b[:]), true
	}
	if err := name.CheckSessionID(id); err != nil {
		return "", false, fmt.Errorf("the session ID %q is not a session ID: %s", id, err)
	}
	return id, made, nil
}
