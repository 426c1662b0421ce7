package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"

	"github.com/como-technologies/riff/riffclient/denied"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/secret"
)

// riff relay denied is the PermissionDenied hook of Claude Code: the hook
// that runs after the auto mode classifier refused a tool call (Claude
// Code 2.1.88 and later). It reads the input of the hook, puts the
// record of the refusal in the outbox of the local folder, starts riff
// relay denied --send detached, and ends with exit 0 at once: it never
// waits for riff-server. The detached sender posts each record of the
// outbox (riffclient/denied). So a record that the server did not take
// waits for the next refusal, which posts it first (docs/agents.md,
// "The refusals of auto mode").

// relayDenied is the entry riff relay denied of the group relay.
func relayDenied() command {
	return command{
		name: "denied", usage: "denied [--send]", short: "post a refusal of auto mode to the thread denials (a hook)",
		long: `The PermissionDenied hook of Claude Code: it runs after the auto mode
classifier refused a tool call, with the input of the hook on stdin. It
never waits for riff-server: it puts the refusal as a record in the outbox
of the local folder, starts riff relay denied --send detached, and exits 0
at once.

The sender posts each record of the outbox, oldest first, as one note with
tags to the thread denials, then leaves the thread. When riff-server does
not answer, the record waits in the outbox, and the next refusal posts it
first. Each token of the session is [secret] in the record, and the input
is cut to 300 characters:

  denied reason=R tool=Bash head="git push" role=lead user=mike host=pangolin repo=OWNER/REPO session=25456ff6 claim=-: git push origin v3.2.0

The session is --session or RIFF_SESSION, else CLAUDE_CODE_SESSION_ID,
else the session_id of the input;
the place is the cwd of the input. riff denials counts the records.
`,
		flags: func(fs *flag.FlagSet) action {
			send := fs.Bool("send", false, "post the records of the outbox (riff starts this itself, detached)")
			return func(c *cli, ctx context.Context, args []string) error {
				if err := noArgs(args, "relay denied"); err != nil {
					return err
				}
				if *send {
					return c.sendDenied(ctx)
				}
				return c.relayDenied(ctx)
			}
		},
		interspersed: true,
	}
}

// relayDenied puts the refusal of the input in the outbox and starts the
// sender.
func (c *cli) relayDenied(ctx context.Context) error {
	raw, err := io.ReadAll(io.LimitReader(c.stdin, denied.MaxHookInput+1))
	if err != nil {
		return knownf("riff relay denied cannot read its input: %v", err)
	}
	if len(raw) > denied.MaxHookInput {
		return knownf("riff relay denied reads at most 1 MiB of input; it got more")
	}
	var in denied.Input
	if err := json.Unmarshal(raw, &in); err != nil {
		return knownf("riff relay denied reads the JSON of the PermissionDenied hook of Claude Code on stdin; the input is no JSON object: %v", err)
	}
	if in.ToolName == "" {
		return knownf("riff relay denied reads the JSON of the PermissionDenied hook of Claude Code on stdin; the input has no tool_name")
	}
	session := door.SessionOf(c.g.session, c.env(door.AgentSessionEnv), in.SessionID)
	if session == "" {
		return knownf("riff relay denied needs the session of the agent tool: the session_id of the input, CLAUDE_CODE_SESSION_ID, --session or RIFF_SESSION")
	}
	dir := in.Cwd
	if info, err := os.Stat(dir); dir == "" || err != nil || !info.IsDir() {
		if dir, err = c.workDir(); err != nil {
			return err
		}
	}
	me, err := c.meAt(ctx, dir, session)
	if err != nil {
		return err
	}
	folder, err := local.Dir(c.env)
	if err != nil {
		return knownf("%v", err)
	}
	rec := denied.Make(in, me, c.now(), secret.FromEnv(c.environOf()))
	if err := (denied.Outbox{Dir: folder}).Put(rec); err != nil {
		return knownf("riff relay denied cannot keep the refusal in the local folder: %v", err)
	}
	// The sender posts it, detached. When it cannot start, the record
	// waits for the next refusal.
	_ = c.startSender()
	return nil
}

// startSender starts riff relay denied --send detached from the hook: in
// a session of its own, with no stdin, stdout or stderr of the agent
// tool, so that the agent tool waits for none of it.
func (c *cli) startSender() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"relay", "denied", "--send"}
	if c.g.server != "" {
		args = append([]string{"--server", c.g.server}, args...)
	}
	cmd := exec.Command(exe, args...)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// sendDenied is the detached sender: it posts the records of the outbox
// within denied.SendFor. It has no stderr: each run says in denied.log of
// the local folder what it did, also when it could not lock or read the
// outbox, so a person sees why a record waits.
func (c *cli) sendDenied(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, denied.SendFor)
	defer cancel()
	folder, err := local.Dir(c.env)
	if err != nil {
		return knownf("%v", err)
	}
	box := denied.Outbox{Dir: folder}
	posted, err := box.Send(ctx, c.client, c.now)
	var outboxErr *denied.Error
	if errors.As(err, &outboxErr) {
		err = knownf("riff relay denied --send %v", outboxErr)
	}
	errText := ""
	if err != nil {
		errText = c.words(err)
	}
	box.Log(c.now(), posted, errText)
	return err
}
