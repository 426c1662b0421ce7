package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v3"

	"github.com/como-technologies/riff/riffcore/quote"
)

// The commands of riff are one ordered list, riffCommands: riff --help,
// riff help COMMAND and the dispatch all read it, so a command that is in
// the list is in the help and runs, and no other runs. Each heading of
// riff --help has its file with its commands, their flags and their
// runs: start.go (Get started), work.go (Work in the riff), lead.go
// (Lead), members.go (Members). docs/cli.md says how to add one.

// heading is a heading of riff --help with its commands, in order.
// The commands come from the file of the heading.
type heading struct {
	title    string
	commands []command
	// hidden: riff --help does not list the heading; riff help COMMAND
	// and the dispatch know its commands.
	hidden bool
}

// riffCommands is the list of the commands of riff, in the order of riff
// --help, under the headings that docs/cli.md lists. A heading with no
// command yet (Pull requests) is not in it.
func riffCommands() []heading {
	return []heading{
		{title: "Get started", commands: append(startCommands(), daemonCommand())},
		{title: "Work in the riff", commands: append(workCommands(), runCommand())},
		{title: "Lead", commands: leadCommands()},
		{title: "Members", commands: memberCommands()},
		{title: "Agent sessions", commands: []command{relayCommand()}, hidden: true},
	}
}

// command is one command of riff, or one word under a command (the start
// of riff step start).
type command struct {
	name string
	// usage is the command line after "riff " in riff help COMMAND; of a
	// word under a command, the words after the command (start NAME).
	usage string
	// short is the line of the command in riff --help, long its text in
	// riff help COMMAND.
	short, long string
	// flags adds the flags of the command to a flag set and gives the
	// action that runs it with them. nil: a word of subcommands must follow.
	flags func(fs *flag.FlagSet) action
	// interspersed: flags may follow the arguments. Else the first
	// argument ends the flags, so a text may hold a word that starts with
	// -.
	interspersed bool
	// subcommands are the words that may follow the name, each a command.
	subcommands []command
	// flagSet names the command in the errors of its flags when that is
	// not its words: riff lead notes edit has the flags of riff lead
	// notes.
	flagSet string
	// raw runs the command with its words as they are: no flags, no
	// client (riff help). It takes the place of flags.
	raw action
}

// action runs a command with its arguments, its flags parsed out and the
// client built. It has the shape of a method of cli, (*cli).whoami.
type action func(c *cli, ctx context.Context, args []string) error

// noFlags is the flags of a command that has none.
func noFlags(r action) func(*flag.FlagSet) action {
	return func(*flag.FlagSet) action { return r }
}

// commands gives each command of riffCommands by its name.
func (c *cli) commands() map[string]command {
	byName := map[string]command{}
	for _, h := range riffCommands() {
		for _, cmd := range h.commands {
			byName[cmd.name] = cmd
		}
	}
	return byName
}

// dispatch runs the command that args name: it parses the command line
// first, then builds the output and the client, then runs the command.
func (c *cli) dispatch(ctx context.Context, args []string) error {
	root := flag.NewFlagSet("riff", flag.ContinueOnError)
	showVersion := root.Bool("version", false, "print the build of riff")
	args, err := c.parseRoot(root, args)
	if err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintf(c.stdout, "riff %s\n", c.build.Display())
		return nil
	}
	if len(args) == 0 {
		c.usage(c.stdout)
		return nil
	}
	cmd, ok := c.commands()[args[0]]
	if !ok {
		return usagef("riff knows no command %s", quote.Input(args[0]))
	}
	if cmd.raw != nil {
		return cmd.raw(c, ctx, args[1:])
	}
	exec, rest, err := c.parseCommand(cmd, args[1:])
	if err != nil {
		return err
	}
	// A global flag that the command line left empty takes its env var.
	c.g.fromEnv(c.env)
	if err := c.setup(); err != nil {
		return err
	}
	return exec(c, ctx, rest)
}

// parseRoot parses the flags before the command.
func (c *cli) parseRoot(fs *flag.FlagSet, args []string) ([]string, error) {
	c.g.register(fs)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {}
	if err := ff.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.usage(c.stdout)
			return nil, flag.ErrHelp
		}
		return nil, usagef("riff: %s", flagError(err))
	}
	return fs.Args(), nil
}

// parseCommand finds the command that the words after top name (riff
// step start) and parses its flags: it gives the action of the command and
// its arguments. It builds nothing.
func (c *cli) parseCommand(top command, args []string) (action, []string, error) {
	cmd, words := top, top.name
	for len(args) > 0 {
		sub, ok := subcommand(cmd, args[0])
		if !ok {
			break
		}
		cmd, words, args = sub, words+" "+sub.name, args[1:]
	}
	if cmd.flags == nil {
		return nil, nil, c.wantSubcommand(top.name, words, cmd, args)
	}
	flagSet := words
	if cmd.flagSet != "" {
		flagSet = cmd.flagSet
	}
	fs := flag.NewFlagSet(flagSet, flag.ContinueOnError)
	exec := cmd.flags(fs)
	c.g.register(fs)
	fs.SetOutput(io.Discard)
	pos, err := parseFlags(fs, args, cmd.interspersed)
	if errors.Is(err, flag.ErrHelp) {
		c.help(top.name)
	}
	return exec, pos, err
}

// subcommand gives the word of cmd that is named word.
func subcommand(cmd command, word string) (command, bool) {
	for _, sub := range cmd.subcommands {
		if sub.name == word {
			return sub, true
		}
	}
	return command{}, false
}

// wantSubcommand is the error of a command that needs a word after it
// (riff step) and got none of its words.
func (c *cli) wantSubcommand(top, words string, cmd command, args []string) error {
	var usages, names []string
	for _, sub := range cmd.subcommands {
		usages, names = append(usages, sub.usage), append(names, sub.name)
	}
	if len(args) == 0 {
		return usagef("riff %s needs %s", words, alternatives(usages, "or"))
	}
	if args[0] == "-h" || args[0] == "--help" {
		c.help(top)
		return flag.ErrHelp
	}
	return usagef("riff %s knows %s, not %s", words, alternatives(names, "and"), quote.Input(args[0]))
}

// alternatives gives a, b and c (or a, b or c).
func alternatives(words []string, and string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}

// parseFlags parses the flags of one command. With interspersed, flags
// may follow the arguments; else the first argument ends the flags.
func parseFlags(fs *flag.FlagSet, args []string, interspersed bool) ([]string, error) {
	var pos []string
	for {
		if err := ff.Parse(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, flag.ErrHelp
			}
			return nil, usagef("riff %s: %s", fs.Name(), flagError(err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if !interspersed {
			return append(pos, args...), nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError gives the text of an error of ff.Parse with no prefix of
// ff: the words of the flag package.
func flagError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
}

// globals are the flags of every command.
type globals struct {
	server  string
	color   string
	session string
	// envGave names, for each global flag that its env var gave, that env
	// var: riff server says where its riff comes from.
	envGave map[string]string
}

// globalFlag is a flag of every command. A flag with an env var takes
// its value when the command line gives it none, as a flag of
// riff-server takes its RIFF_NAME.
type globalFlag struct {
	name, env, usage string
	value            *string
}

// flags gives the global flags, each with its env var.
func (g *globals) flags() []globalFlag {
	return []globalFlag{
		{name: "server", env: "RIFF_SERVER", value: &g.server, usage: "the riff to use: URL, HOST or HOST:PORT (see riff help server)"},
		{name: "color", value: &g.color, usage: "color: auto, always or never"},
		{name: "session", env: "RIFF_SESSION", value: &g.session, usage: "the session ID that makes the call (default $RIFF_SESSION)"},
	}
}

// register adds the flags of every command to fs, each that fs does not
// name itself (release and lead own their --session).
func (g *globals) register(fs *flag.FlagSet) {
	for _, f := range g.flags() {
		if fs.Lookup(f.name) == nil {
			fs.StringVar(f.value, f.name, *f.value, f.usage)
		}
	}
}

// fromEnv gives each global flag with no value the value of its env var.
// It is the one place where riff reads the env var of a flag.
func (g *globals) fromEnv(env func(string) string) {
	for _, f := range g.flags() {
		if f.env == "" || *f.value != "" {
			continue
		}
		if *f.value = env(f.env); *f.value != "" {
			if g.envGave == nil {
				g.envGave = map[string]string{}
			}
			g.envGave[f.name] = f.env
		}
	}
}
