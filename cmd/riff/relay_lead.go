package main

import (
	"path/filepath"

	"github.com/como-technologies/riff/riffclient/notify"
)

// leadDesk is the desk of the lead in riff relay mcp: lead.wake of the
// settings file of the machine goes with each keep-alive, and each
// unanswered block in a reply is a desktop notification where the
// machine has a desktop (riffclient/notify). A fault is a warning line
// of the log of the relay, never an error of the session.
func (r *relay) leadDesk() *notify.Desk {
	marks := ""
	if r.local != "" {
		// The marks of the blocks notified, for the next relay of the lead.
		marks = filepath.Join(r.local, "notified")
	}
	return &notify.Desk{
		Getenv: r.c.env,
		Marks:  marks,
		Warn: func(msg string, err error) {
			r.log.Warn(msg, "error", err.Error())
		},
	}
}
