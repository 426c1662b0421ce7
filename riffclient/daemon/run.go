package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/place"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// RunRequest asks the daemon to run one item: riff run ITEM in the main
// clone Main.
type RunRequest struct {
	Main string    `json:"main"`
	Item name.Item `json:"item"`
	// Prompt replaces the first prompt of the worker; empty gives
	// [FirstPrompt].
	Prompt string `json:"prompt,omitempty"`
}

// RunReply names the session that runs the item.
type RunReply struct {
	URI       name.SessionURI `json:"uri"`
	Container string          `json:"container"`
	Clone     string          `json:"clone"`
	Image     string          `json:"image"`
}

// RunError is a run that started no session: the text says why, for a
// person.
type RunError struct{ Text string }

func (e *RunError) Error() string { return e.Text }

func runErrorf(format string, args ...any) error {
	return &RunError{Text: fmt.Sprintf(format, args...)}
}

// FirstPrompt is the first input of a worker in a container.
func FirstPrompt(repo name.Repo, item name.Item) string {
	return fmt.Sprintf("You are the worker session of %s in %s, in a container of the riff daemon. "+
		"The clone at %s is on the branch worktree-%s. Do the item: build it, commit it, and push the branch worktree-%s to origin. "+
		"The item is claimed for you: do not claim or release it. Use the riff tools to tell the lead what it must decide. "+
		"Your work ends with this turn: messages that come after it are not read.",
		item, repo, ContainerWork, item, item)
}

// RunItem runs one item in a container: a worker session with the sign-in of
// the person, its claim, a clone with --reference to the main clone
// (which fetches origin first), and podman run of riff relay -- claude.
// Nothing stays of a run that fails: the claim is released, the session
// ended, the folder removed.
func (d *Daemon) RunItem(ctx context.Context, req RunRequest) (RunReply, error) {
	if _, err := name.ParseItem(string(req.Item)); err != nil {
		return RunReply{}, runErrorf("riff run needs a work item such as issue-12: %v", err)
	}
	git := d.c.Git
	main := req.Main
	origin, err := gitOut(ctx, git, main, "remote", "get-url", "origin")
	if err != nil {
		return RunReply{}, runErrorf("riff run needs a clone with an origin: %s has none (%v)", main, err)
	}
	repo, err := place.RepoOf(origin)
	if err != nil {
		return RunReply{}, runErrorf("riff run cannot name the repository of the origin %s: %v", origin, err)
	}
	if _, err := gitOut(ctx, git, main, "fetch", "--quiet", "origin"); err != nil {
		return RunReply{}, runErrorf("the main clone %s cannot fetch origin: %v", main, err)
	}
	branch, err := defaultBranch(ctx, git, main)
	if err != nil {
		return RunReply{}, err
	}
	text, err := gitOut(ctx, git, main, "show", "origin/"+branch+":riff.toml")
	if err != nil {
		return RunReply{}, runErrorf("the default branch %s of origin has no riff.toml: riff run needs its session image, pinned by digest (docs/daemon.md, riff.toml)", branch)
	}
	settings, err := ReadSettings(text)
	if err != nil {
		return RunReply{}, runErrorf("riff starts no session: %v", err)
	}

	id := newSessionID()
	uri := name.SessionURI{User: d.c.User, Host: d.c.Host, Repo: repo, Worktree: string(req.Item), Session: id}
	k := Kept{URI: uri, Item: req.Item, Thread: string(repo), Main: main,
		Container: "riff-" + string(req.Item) + "-" + id[:8], Phase: PhaseFirstTurn,
		Clone: filepath.Join(d.folder.sessionDir(id), "clone")}
	k.Prompt = req.Prompt
	if k.Prompt == "" {
		k.Prompt = FirstPrompt(repo, req.Item)
	}
	claimed := false
	undo := func() {
		end, cancel := context.WithTimeout(context.WithoutCancel(ctx), EndBudget)
		defer cancel()
		if claimed {
			_, _ = riffclient.Send(end, d.c.Client, wire.Release{Me: uri, Thread: k.Thread, Item: req.Item})
		}
		_, _ = riffclient.Send(end, d.c.Client, wire.End{Me: uri})
		_ = d.folder.forget(id, false)
	}
	if _, err := riffclient.Send(ctx, d.c.Client, wire.Register{Me: uri, Worker: true}); err != nil {
		return RunReply{}, fmt.Errorf("register the worker session: %w", err)
	}
	if _, err := riffclient.Send(ctx, d.c.Client, wire.Claim{Me: uri, Thread: k.Thread, Item: req.Item}); err != nil {
		undo()
		var refused *wire.Refused
		if errors.As(err, &refused) {
			return RunReply{}, runErrorf("riff run starts no session: the claim of %s was refused: %s", req.Item, refused.Reason)
		}
		return RunReply{}, fmt.Errorf("claim %s: %w", req.Item, err)
	}
	claimed = true
	spec, err := d.prepare(ctx, k, origin, branch, settings)
	if err != nil {
		undo()
		return RunReply{}, err
	}
	s := d.newSession(k)
	s.mu.Lock()
	s.save()
	s.mu.Unlock()
	if err := s.serve(); err != nil {
		s.stop()
		d.drop(id)
		undo()
		return RunReply{}, err
	}
	p := d.c.Podman
	if out, err := exec.CommandContext(ctx, p.Program(), p.RunArgs(spec)...).CombinedOutput(); err != nil {
		s.stop()
		d.drop(id)
		// A container that podman made before it failed goes too.
		_ = exec.CommandContext(context.WithoutCancel(ctx), p.Program(), p.Args("rm", "--force", k.Container)...).Run()
		undo()
		return RunReply{}, runErrorf("riff cannot start the container %s: %s: %s", k.Container, err, strings.TrimSpace(string(out)))
	}
	s.live()
	d.tellStatus(ctx)
	d.c.Log.Info("riff daemon started a session", "session", id, "item", string(req.Item), "container", k.Container)
	return RunReply{URI: uri, Container: k.Container, Clone: k.Clone, Image: settings.Image}, nil
}

// drop forgets a session that did not start.
func (d *Daemon) drop(id string) {
	d.mu.Lock()
	delete(d.sessions, id)
	d.mu.Unlock()
}

// prepare makes the folder of a session (the clone, the home with the
// Claude folder and the git config, the folder of the socket), and gives
// the spec of its container.
func (d *Daemon) prepare(ctx context.Context, k Kept, origin, branch string, settings Settings) (Spec, error) {
	git := d.c.Git
	dir := d.folder.sessionDir(k.URI.Session)
	home := filepath.Join(dir, "home")
	sock := filepath.Join(d.c.Sockets, k.URI.Session)
	for _, f := range []string{home, filepath.Join(sock, "home", "state"), filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(f, 0o700); err != nil {
			return Spec{}, fmt.Errorf("make the folder of the session: %w", err)
		}
	}
	if _, err := gitOut(ctx, git, dir, "clone", "--quiet", "--reference", k.Main, "--branch", branch, origin, k.Clone); err != nil {
		return Spec{}, runErrorf("riff cannot clone %s with --reference %s: %v", origin, k.Main, err)
	}
	if _, err := gitOut(ctx, git, k.Clone, "checkout", "--quiet", "-b", "worktree-"+string(k.Item)); err != nil {
		return Spec{}, runErrorf("riff cannot make the branch worktree-%s in the clone: %v", k.Item, err)
	}
	// The git config of the person: the name and the email of the main
	// clone.
	var gitconfig strings.Builder
	gitconfig.WriteString("[safe]\n\tdirectory = *\n")
	userName, _ := gitOut(ctx, git, k.Main, "config", "user.name")
	userEmail, _ := gitOut(ctx, git, k.Main, "config", "user.email")
	if userName != "" || userEmail != "" {
		gitconfig.WriteString("[user]\n")
		if userName != "" {
			fmt.Fprintf(&gitconfig, "\tname = %s\n", userName)
		}
		if userEmail != "" {
			fmt.Fprintf(&gitconfig, "\temail = %s\n", userEmail)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig.String()), 0o600); err != nil {
		return Spec{}, err
	}
	if err := d.writeClaude(home, k, settings); err != nil {
		return Spec{}, err
	}
	cHome := "/home/" + d.c.User
	spec := Spec{Name: k.Container, Image: settings.Image, Memory: d.c.Memory, CPUs: d.c.CPUs,
		Command: []string{ContainerRiff, "relay", "--", "claude"}}
	spec.Env = [][2]string{
		{"HOME", cHome}, {"USER", d.c.User}, {"RIFF_HOST", d.c.Host},
		{"RIFF_SESSION", k.URI.Session}, {"RIFF_WORKER", "1"},
		{"RIFF_SOCKET", ContainerSocketDir + "/" + SocketName},
		{"RIFF_HOME", ContainerSocketDir + "/home"},
	}
	for _, kv := range d.c.Env {
		n, v, ok := strings.Cut(kv, "=")
		if ok {
			spec.Env = append(spec.Env, [2]string{n, v})
		}
	}
	spec.Env = append(spec.Env, settings.Env...)
	spec.Binds = []Bind{
		{Host: d.c.Riff, Path: ContainerRiff, ReadOnly: true},
		{Host: sock, Path: ContainerSocketDir},
		{Host: home, Path: cHome},
		{Host: k.Clone, Path: ContainerWork},
		// The objects of the main clone, at their path: the clone's
		// alternates name them.
		{Host: filepath.Join(k.Main, ".git", "objects"), Path: filepath.Join(k.Main, ".git", "objects"), ReadOnly: true},
	}
	if filepath.IsAbs(origin) {
		// A local origin is bound at its path, so that the push reaches
		// it.
		spec.Binds = append(spec.Binds, Bind{Host: origin, Path: origin})
	}
	if d.c.Home != "" {
		if gh := filepath.Join(d.c.Home, ".config", "gh"); isDir(gh) {
			spec.Binds = append(spec.Binds, Bind{Host: gh, Path: cHome + "/.config/gh", ReadOnly: true})
		}
	}
	spec.Binds = append(spec.Binds, settings.Volumes...)
	return spec, nil
}

// writeClaude writes the Claude folder of a session: settings.json with
// the hooks of riff, the auto mode entries and the refusals of gh issue
// edit; .claude.json with the onboarding done; the sign-in of claude of
// the host when it has one.
func (d *Daemon) writeClaude(home string, k Kept, settings Settings) error {
	hook := func(cmd string) []map[string]any {
		return []map[string]any{{"matcher": "*", "hooks": []map[string]any{{"type": "command", "command": ContainerRiff + " " + cmd}}}}
	}
	var env []string
	owner, _, _ := strings.Cut(string(k.URI.Repo), "/")
	env = append(env,
		"Trusted source control: the GitHub owner "+owner+" (github.com/"+owner+"), where this session pushes its branch",
		"Trusted repository: github.com/como-technologies/riff and its releases",
		"Trusted registry: ghcr.io",
		"Trusted internal service: the riff server of this session, reached through the riff tools")
	for _, h := range settings.Sources {
		env = append(env, "Trusted package source: "+h)
	}
	denyEdit := []string{}
	for _, flag := range []string{"--body", "--body-file", "-b", "-F", "--title", "-t"} {
		denyEdit = append(denyEdit, "Bash(gh issue edit * "+flag+"*)", "Bash(gh -R * issue edit * "+flag+"*)")
	}
	cs := map[string]any{
		"hooks": map[string]any{
			"SessionStart":     hook("relay hook"),
			"PreToolUse":       hook("relay hook"),
			"PostToolUse":      hook("relay hook"),
			"Stop":             hook("relay hook"),
			"PermissionDenied": hook("relay denied"),
		},
		"autoMode":    map[string]any{"environment": env},
		"permissions": map[string]any{"allow": []string{"mcp__riff", "Bash(gh issue comment *)"}, "deny": denyEdit},
	}
	data, _ := json.MarshalIndent(cs, "", "  ")
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), data, 0o600); err != nil {
		return fmt.Errorf("write the Claude settings of the session: %w", err)
	}
	state := map[string]any{}
	if d.c.Home != "" {
		if b, err := os.ReadFile(filepath.Join(d.c.Home, ".claude.json")); err == nil {
			_ = json.Unmarshal(b, &state)
		}
		if b, err := os.ReadFile(filepath.Join(d.c.Home, ".claude", ".credentials.json")); err == nil {
			if err := os.WriteFile(filepath.Join(home, ".claude", ".credentials.json"), b, 0o600); err != nil {
				return err
			}
		}
	}
	state["hasCompletedOnboarding"] = true
	data, _ = json.Marshal(state)
	return os.WriteFile(filepath.Join(home, ".claude.json"), data, 0o600)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// gitOut runs git in dir and gives its output, trimmed.
func gitOut(ctx context.Context, git, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, git, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// defaultBranch gives the default branch of origin, as the main clone
// knows it after its fetch.
func defaultBranch(ctx context.Context, git, main string) (string, error) {
	if ref, err := gitOut(ctx, git, main, "symbolic-ref", "--short", "refs/remotes/origin/HEAD"); err == nil {
		return strings.TrimPrefix(ref, "origin/"), nil
	}
	out, err := gitOut(ctx, git, main, "ls-remote", "--symref", "origin", "HEAD")
	if err == nil {
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, "ref: refs/heads/"); ok {
				b, _, _ := strings.Cut(rest, "\t")
				return b, nil
			}
		}
	}
	return "", runErrorf("riff cannot read the default branch of origin in %s", main)
}
