package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listRunner runs riff in process against a fake server, for the tests
// of the list of commands.
func listRunner(t *testing.T) func(args ...string) (stdout, stderr string, code int) {
	t.Helper()
	srv := httptest.NewServer(&fakeServer{t: t, build: testBuild})
	t.Cleanup(srv.Close)
	run := inProcess(repoDir(t), srv.URL)
	return func(args ...string) (string, string, int) {
		t.Helper()
		return run(t, golden{}, args)
	}
}

// helpHeadings reads riff --help: each heading with its commands, in
// order.
func helpHeadings(help string) []heading {
	var shown []heading
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
			shown = append(shown, heading{title: strings.TrimSuffix(line, ":")})
		case strings.HasPrefix(line, "  ") && len(shown) > 0:
			h := &shown[len(shown)-1]
			h.commands = append(h.commands, command{name: strings.Fields(line)[0]})
		}
	}
	return shown
}

// TestGivenTheListOfCommandsWhenRiffShowsItsHelpThenEachCommandIsUnderItsHeadingInItsOrder:
// riff --help shows the headings of riffCommands and their commands in
// the order of the list, and nothing else.
func TestGivenTheListOfCommandsWhenRiffShowsItsHelpThenEachCommandIsUnderItsHeadingInItsOrder(t *testing.T) {
	riff := listRunner(t)
	stdout, stderr, code := riff("--help")
	if code != exitOK || stderr != "" {
		t.Fatalf("riff --help = %d, %q", code, stderr)
	}
	var want []heading
	for _, h := range riffCommands() {
		if h.hidden {
			continue
		}
		names := heading{title: h.title}
		for _, cmd := range h.commands {
			names.commands = append(names.commands, command{name: cmd.name})
		}
		want = append(want, names)
	}
	if diff := cmp.Diff(want, helpHeadings(stdout), cmp.AllowUnexported(heading{}, command{})); diff != "" {
		t.Errorf("riff --help does not show the list of commands (-list +help):\n%s", diff)
	}
}

// TestGivenEachCommandOfTheListWhenItIsCalledThenItDispatchesToItsEntry:
// each command of riffCommands, and each word under it (riff step
// start), runs: riff help NAME and riff NAME --help show its text, and a
// flag that it does not have reaches its own flags, named by its words.
func TestGivenEachCommandOfTheListWhenItIsCalledThenItDispatchesToItsEntry(t *testing.T) {
	riff := listRunner(t)
	for _, h := range riffCommands() {
		for _, top := range h.commands {
			text, stderr, code := riff("help", top.name)
			if code != exitOK || stderr != "" || !strings.Contains(text, "Usage: riff "+top.usage+"\n\n"+top.long) {
				t.Errorf("riff help %s = %d, %q, %q; want the text of its entry", top.name, code, text, stderr)
			}
			if top.raw != nil {
				continue
			}
			var walk func(cmd command, words []string)
			walk = func(cmd command, words []string) {
				path := strings.Join(words, " ")
				stdout, stderr, code := riff(append(words, "--help")...)
				if code != exitOK || stderr != "" || stdout != text {
					t.Errorf("riff %s --help = %d, %q, %q; want the text of riff help %s", path, code, stdout, stderr, top.name)
				}
				_, stderr, code = riff(append(words, "--no-such-flag")...)
				want := "Error: riff " + path + ": flag provided but not defined: -no-such-flag\n"
				switch {
				case cmd.flags == nil:
					want = "Error: riff " + path + " knows "
				case cmd.flagSet != "":
					want = "Error: riff " + cmd.flagSet + ": flag provided but not defined: -no-such-flag\n"
				}
				if code != exitUsage || !strings.HasPrefix(stderr, want) {
					t.Errorf("riff %s --no-such-flag = %d, %q; want %q", path, code, stderr, want)
				}
				for _, sub := range cmd.subcommands {
					walk(sub, append(append([]string(nil), words...), sub.name))
				}
			}
			walk(top, []string{top.name})
		}
	}
}

// TestGivenANameThatIsNotInTheListWhenItIsCalledThenNothingRuns: a name
// that is not a command of riffCommands (a command of the guide that riff
// does not have yet, a heading, a word under a command, a command in
// capitals) runs nothing: riff knows no command, and riff help has none.
func TestGivenANameThatIsNotInTheListWhenItIsCalledThenNothingRuns(t *testing.T) {
	riff := listRunner(t)
	names := []string{"update", "pr", "audit", "wave", "verify"}
	top := map[string]bool{}
	for _, h := range riffCommands() {
		for _, cmd := range h.commands {
			top[cmd.name] = true
		}
	}
	for _, h := range riffCommands() {
		names = append(names, h.title, strings.Fields(h.title)[0])
		for _, cmd := range h.commands {
			names = append(names, strings.ToUpper(cmd.name))
			for _, sub := range cmd.subcommands {
				// A word under a command that is a command too (remove
				// of riff admin remove) runs as that command.
				// The word -- (riff relay -- claude) is no name: riff --
				// ends the flags of riff.
				if !top[sub.name] && !strings.HasPrefix(sub.name, "-") {
					names = append(names, sub.name)
				}
			}
		}
	}
	for _, n := range names {
		stdout, stderr, code := riff(n)
		if want := "Error: riff knows no command \"" + n + "\"\n"; code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("riff %s = %d, %q, %q; want %q", n, code, stdout, stderr, want)
		}
		stdout, stderr, code = riff("help", n)
		if want := "Error: riff has no command \"" + n + "\"\n"; code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("riff help %s = %d, %q, %q; want %q", n, code, stdout, stderr, want)
		}
	}
	// Under a command with no action of its own, only its words run.
	for _, h := range riffCommands() {
		for _, cmd := range h.commands {
			if cmd.flags != nil || cmd.raw != nil {
				continue
			}
			for _, n := range names {
				if _, ok := subcommand(cmd, n); ok {
					continue
				}
				_, stderr, code := riff(cmd.name, n)
				if want := "Error: riff " + cmd.name + " knows "; code != exitUsage || !strings.HasPrefix(stderr, want) {
					t.Errorf("riff %s %s = %d, %q; want %q", cmd.name, n, code, stderr, want)
				}
			}
		}
	}
}
