// Command fakemodel serves the stand-in Anthropic Messages API of
// tools/messagesfake with the plans of a JSON file, for a script that
// drives a real Claude Code with no model (ANTHROPIC_BASE_URL):
//
//	fakemodel -plans FILE [-listen 127.0.0.1:0]
//
// The file is a messagesfake.PlanFile. fakemodel prints "listening on
// URL" on stdout once it listens, and then one JSON log line on stderr
// for each request (its model, its number of tools, the tool calls of its
// turn by name, whether the classifier asked) and for each error of the
// agent (severity ERROR). SIGINT or SIGTERM stops it; its exit status is
// 1 when the agent could not follow a plan, so that a script sees it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/como-technologies/riff/tools/messagesfake"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	plans := fs.String("plans", "", "the plan file (JSON, a messagesfake.PlanFile)")
	listen := fs.String("listen", "127.0.0.1:0", "the listen address")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *plans == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: fakemodel -plans FILE [-listen ADDR]")
		return 2
	}
	f, err := os.Open(*plans)
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: %v\n", err)
		return 1
	}
	agent, err := messagesfake.ReadAgent(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: %s: %v\n", *plans, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, agent, *listen, stdout, stderr)
}

// serve runs the stand-in until ctx ends.
func serve(ctx context.Context, agent *messagesfake.Agent, listen string, stdout, stderr io.Writer) int {
	logger := json.NewEncoder(stderr)
	script := agent.Script()
	reported := 0
	s, err := messagesfake.New(messagesfake.Options{Addr: listen, Script: func(r *messagesfake.Request) messagesfake.Reply {
		reply := script(r)
		var calls []string
		for _, c := range r.Turn().Calls {
			calls = append(calls, c.Name)
		}
		_ = logger.Encode(map[string]any{"time": time.Now().UTC().Format(time.RFC3339Nano), "severity": "INFO", "message": "request",
			"model": r.Model, "tools": len(r.Tools), "calls": calls, "classifier": messagesfake.IsClassifier(r)})
		errs := agent.Errors()
		for _, e := range errs[reported:] {
			_ = logger.Encode(map[string]any{"time": time.Now().UTC().Format(time.RFC3339Nano), "severity": "ERROR", "message": e})
		}
		reported = len(errs)
		return reply
	}})
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on %s\n", s.URL())
	<-ctx.Done()
	_ = s.Close()
	if len(agent.Errors()) > 0 {
		return 1
	}
	return 0
}
