package main

import (
	"fmt"
	"io"
	"strings"
)

// usage writes riff --help: the commands of riffCommands under their
// headings, in its order.
func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "riff: the command line of the riff. It talks to riff-server.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: riff [--server URL] [--color auto|always|never] [--session ID] COMMAND ...")
	for _, h := range riffCommands() {
		fmt.Fprintf(w, "\n%s:\n", h.title)
		for _, cmd := range h.commands {
			if !cmd.hidden {
				fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.short)
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each command takes --server (the riff to use; see riff help server), --color and --session.")
	fmt.Fprintln(w, "riff help COMMAND shows the full text of a command. riff --version shows the build.")
	fmt.Fprintln(w, "Env: RIFF_SERVER, RIFF_SESSION, NO_COLOR, and RIFF_HOST (the name of this host; default: its host name).")
}

// help writes the full text of one command of riffCommands (of the first
// word of name: riff step start --help shows riff help step).
func (c *cli) help(name string) {
	if name == "server" {
		// riff help server gives the forms of --server, and the command.
		fmt.Fprint(c.stdout, helpServerForms)
		fmt.Fprintln(c.stdout)
	}
	base, _, _ := strings.Cut(name, " ")
	cmd, ok := c.commands()[base]
	if !ok {
		c.usage(c.stdout)
		return
	}
	fmt.Fprintf(c.stdout, "Usage: riff %s\n\n%s", cmd.usage, cmd.long)
	fmt.Fprintln(c.stdout)
	fmt.Fprintln(c.stdout, "Each command also takes --server URL, --color auto|always|never and --session ID.")
}

const helpServerForms = `The riff that riff uses

riff finds its riff in --server or RIFF_SERVER. With neither, it uses the
riff of this machine, http://127.0.0.1:7878. riff keeps no choice in a file.

Each value is a URL, HOST or HOST:PORT:
  first                  http://first:7878
  first:9000             http://first:9000
  https://riff.example.com
  ::1 or [::1]:7878      http://[::1]:7878

With no scheme, riff uses http://. With no port, it uses port 7878. An IPv6
address takes brackets with a port. --server wins over RIFF_SERVER.
`
