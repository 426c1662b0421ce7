package daemon

import (
	"fmt"
	"slices"
	"strings"
)

// ContainerRiff is where riff is bound in each container: a static build
// of the riff that runs the daemon.
const ContainerRiff = "/opt/riff/riff"

// The paths inside a container.
const (
	// ContainerSocketDir is the folder of the session's socket, and of
	// its local folder (the facts of the hooks).
	ContainerSocketDir = "/run/riff"
	// ContainerWork is the clone of the item.
	ContainerWork = "/work"
)

// SocketName is the file of a session's socket in its folder.
const SocketName = "riff.sock"

// Podman is how the daemon runs podman: the command, the global options
// before each subcommand, and the options of each podman run. A setting
// extends both lists (docs/daemon.md, "podman on this machine"): for
// example --runtime=runc --cgroup-manager=cgroupfs and two --ulimit
// options where crun refuses the cgroups of the machine.
type Podman struct {
	// Command is the podman program: "podman" when empty.
	Command string
	// Global are the options before each subcommand.
	Global []string
	// Run are the options of each podman run, after the daemon's own.
	Run []string
}

// Program gives the podman program.
func (p Podman) Program() string {
	if p.Command == "" {
		return "podman"
	}
	return p.Command
}

// Args gives the arguments of one podman subcommand: the global
// options, then the subcommand and its arguments.
func (p Podman) Args(sub string, args ...string) []string {
	out := slices.Clone(p.Global)
	out = append(out, sub)
	return append(out, args...)
}

// ParseOptions reads the options of a setting: words split at spaces,
// as a shell would split them with no quotes. A quote is refused, so
// that no option means another thing than it reads.
func ParseOptions(setting, text string) ([]string, error) {
	if strings.ContainsAny(text, `"'\`) {
		return nil, fmt.Errorf("%s holds podman options split at spaces, with no quotes: %q", setting, text)
	}
	words := strings.Fields(text)
	if len(words) > 0 && !strings.HasPrefix(words[0], "-") {
		return nil, fmt.Errorf("%s starts with %q: each podman option starts with -", setting, words[0])
	}
	return words, nil
}

// Bind is one volume of a container: a folder or a file of the host (or
// a named volume) at a path inside.
type Bind struct {
	Host, Path string
	ReadOnly   bool
}

func (b Bind) arg() string {
	s := b.Host + ":" + b.Path
	if b.ReadOnly {
		s += ":ro"
	}
	return s
}

// Spec is what one container session gets (docs/daemon.md, "The spec of
// a session"): only what riff needs, plus the env and the volumes of the
// merged riff.toml.
type Spec struct {
	// Name is the container: riff-ITEM-ID8.
	Name  string
	Image string
	// Env are the variables, in order: riff's own, then riff.toml's.
	Env [][2]string
	// Binds are the volumes, in order: riff's own, then riff.toml's.
	Binds []Bind
	// Memory and CPUs are the caps (--memory, --cpus); empty sets none.
	Memory, CPUs string
	// Command runs in the container.
	Command []string
}

// RunArgs gives the arguments of the podman run of a session: detached,
// with --init, named, the daemon's options, the caps, each variable and
// each volume, the working folder, the image and the command.
func (p Podman) RunArgs(s Spec) []string {
	args := []string{"--detach", "--init", "--name", s.Name, "--label", "riff.session=" + s.Name}
	args = append(args, p.Run...)
	if s.Memory != "" {
		args = append(args, "--memory", s.Memory)
	}
	if s.CPUs != "" {
		args = append(args, "--cpus", s.CPUs)
	}
	for _, kv := range s.Env {
		args = append(args, "--env", kv[0]+"="+kv[1])
	}
	for _, b := range s.Binds {
		args = append(args, "--volume", b.arg())
	}
	args = append(args, "--workdir", ContainerWork, s.Image)
	args = append(args, s.Command...)
	return p.Args("run", args...)
}
