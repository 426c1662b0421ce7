package local

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
)

// maxAncestors bounds the walk up the parents of a process.
const maxAncestors = 32

// AgentSession gives the session ID of the Claude Code that runs the
// process pid, for a command that gets no hook input (riff relay watch
// in a Monitor) when its env names none (Claude Code 2.1.332 gives
// CLAUDE_CODE_SESSION_ID; riffclient/door.SessionOf reads it first). Claude
// Code keeps one file for each live session, CONFIG/sessions/PID.json
// with its sessionId, CONFIG being $CLAUDE_CONFIG_DIR or ~/.claude. The
// session is the one of the nearest ancestor of pid with such a file;
// parent gives the parent of a process (ParentPID on Linux).
func AgentSession(getenv func(string) string, pid int, parent func(int) (int, error)) (string, bool) {
	config := getenv("CLAUDE_CONFIG_DIR")
	if config == "" {
		if getenv("HOME") == "" {
			return "", false
		}
		config = filepath.Join(getenv("HOME"), ".claude")
	}
	for range maxAncestors {
		if pid <= 1 {
			return "", false
		}
		if id, ok := sessionOfPID(config, pid); ok {
			return id, true
		}
		next, err := parent(pid)
		if err != nil || next == pid {
			return "", false
		}
		pid = next
	}
	return "", false
}

// sessionOfPID reads the session file of a Claude Code process.
func sessionOfPID(config string, pid int) (string, bool) {
	raw, err := os.ReadFile(filepath.Join(config, "sessions", strconv.Itoa(pid)+".json"))
	if err != nil {
		return "", false
	}
	var f struct {
		PID       int    `json:"pid"`
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(raw, &f) != nil || (f.PID != 0 && f.PID != pid) || name.CheckSessionID(f.SessionID) != nil {
		return "", false
	}
	return f.SessionID, true
}

// ParentPID gives the parent of a process from /proc (Linux); elsewhere
// it fails, and AgentSession finds no session.
func ParentPID(pid int) (int, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The name of the process is in parentheses and may hold spaces: the
	// fields after its last ")" are the state, then the parent.
	s := string(raw)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, fmt.Errorf("the stat of process %d has no name", pid)
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return 0, fmt.Errorf("the stat of process %d has no parent", pid)
	}
	return strconv.Atoi(fields[1])
}
