// Package tools is the root of the tool module of riff: programs and
// packages that drive or measure riff-server from outside, beside the
// server as etcd has tools/benchmark. loadtool is the load of the
// benchmarks of riff-server; riffload runs its parts each in a process
// of its own (and the peers PostgreSQL and etcd, for the side-by-side
// run); growthplot draws the plot of the fresh-session load of
// docs/performance.md; oidcfake is the OpenID Connect provider of the
// tests of every module (riffengine/idtoken, cmd, riffclient, examples);
// messagesfake is the stand-in Anthropic Messages API that drives a real
// Claude Code in the tests of docs/agents.md, and fakemodel serves it in
// a process of its own with the plans of a JSON file, for scripts;
// podmanfake (a podman that records its calls and runs a container as a
// process of the host) and claudefake (a claude -p of stream-json, with
// a script) are the stand-ins of the tests of the riff daemon
// (docs/daemon.md). The module imports nothing of the server (a test
// keeps it so).
package tools
