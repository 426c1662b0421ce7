// Command podmanfake is a fake podman for the tests of the riff daemon
// (docs/daemon.md, "Tests"): it records the arguments of each call as a
// JSON line in $PODMANFAKE_LOG, and runs the command of a podman run as
// a "container": a process of the host in a session of its own, with
// the env of --env, the paths of its --volume binds mapped to the host,
// and $PODMANFAKE_PATH before the PATH of the host. It knows run
// --detach, wait, container inspect, rm and import; $PODMANFAKE_DIR
// holds its containers, and in logs/ the output of each.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--container" {
		return container(args[1:])
	}
	record(args)
	dir := os.Getenv("PODMANFAKE_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "podmanfake: PODMANFAKE_DIR is not set")
		return 125
	}
	// Skip the global options: each starts with -, and a value of the
	// form --opt=value is one word.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	if len(args) == 0 {
		return 125
	}
	switch args[0] {
	case "run":
		return runContainer(dir, args[1:])
	case "wait":
		return wait(dir, last(args))
	case "container":
		if len(args) > 1 && args[1] == "inspect" {
			if running(dir, last(args)) {
				fmt.Println("true")
			} else {
				fmt.Println("false")
			}
			if !exists(dir, last(args)) {
				return 125
			}
			return 0
		}
	case "rm":
		name := last(args)
		if pid, err := readInt(filepath.Join(dir, name, "pid")); err == nil && running(dir, name) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = os.RemoveAll(filepath.Join(dir, name))
		return 0
	case "import", "info", "version":
		return 0
	}
	fmt.Fprintf(os.Stderr, "podmanfake: no such command %q\n", args[0])
	return 125
}

func last(args []string) string { return args[len(args)-1] }

func record(args []string) {
	path := os.Getenv("PODMANFAKE_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(args)
	fmt.Fprintln(f, string(line))
}

type bind struct{ host, path string }

// runContainer starts the container of podman run --detach.
func runContainer(dir string, args []string) int {
	var name, workdir string
	var env []string
	var binds []bind
	i := 0
	takes := map[string]bool{"--name": true, "--env": true, "--volume": true, "--workdir": true, "--memory": true,
		"--cpus": true, "--label": true, "--ulimit": true, "--network": true, "--user": true}
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		opt := args[i]
		if !takes[opt] {
			i++
			continue
		}
		if i+1 >= len(args) {
			return 125
		}
		v := args[i+1]
		switch opt {
		case "--name":
			name = v
		case "--env":
			env = append(env, v)
		case "--volume":
			parts := strings.Split(v, ":")
			binds = append(binds, bind{host: parts[0], path: parts[1]})
		case "--workdir":
			workdir = v
		}
		i += 2
	}
	if name == "" || i+1 >= len(args) {
		fmt.Fprintln(os.Stderr, "podmanfake: run needs --name, an image and a command")
		return 125
	}
	cmd := args[i+1:]
	if exists(dir, name) {
		fmt.Fprintf(os.Stderr, "podmanfake: the container name %q is in use\n", name)
		return 125
	}
	cdir := filepath.Join(dir, name)
	if err := os.MkdirAll(cdir, 0o700); err != nil {
		return 125
	}
	sort.Slice(binds, func(a, b int) bool { return len(binds[a].path) > len(binds[b].path) })
	spec, _ := json.Marshal(map[string]any{"env": env, "binds": bindList(binds), "workdir": workdir, "cmd": cmd})
	_ = os.WriteFile(filepath.Join(cdir, "spec.json"), spec, 0o600)
	self, _ := os.Executable()
	c := exec.Command(self, "--container", cdir)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The log of the container outlives its rm, for the test to read.
	_ = os.MkdirAll(filepath.Join(dir, "logs"), 0o700)
	logf, _ := os.Create(filepath.Join(dir, "logs", name+".log"))
	c.Stdout, c.Stderr = logf, logf
	if err := c.Start(); err != nil {
		return 125
	}
	_ = os.WriteFile(filepath.Join(cdir, "pid"), []byte(strconv.Itoa(c.Process.Pid)), 0o600)
	fmt.Println(name)
	return 0
}

func bindList(bs []bind) [][2]string {
	var out [][2]string
	for _, b := range bs {
		out = append(out, [2]string{b.host, b.path})
	}
	return out
}

// container runs the command of a container and keeps its exit code.
func container(args []string) int {
	cdir := args[0]
	var spec struct {
		Env     []string    `json:"env"`
		Binds   [][2]string `json:"binds"`
		Workdir string      `json:"workdir"`
		Cmd     []string    `json:"cmd"`
	}
	b, err := os.ReadFile(filepath.Join(cdir, "spec.json"))
	if err != nil || json.Unmarshal(b, &spec) != nil {
		return 125
	}
	host := func(p string) string {
		for _, bd := range spec.Binds {
			if p == bd[1] || strings.HasPrefix(p, bd[1]+"/") {
				return bd[0] + strings.TrimPrefix(p, bd[1])
			}
		}
		return p
	}
	env := []string{"PATH=" + os.Getenv("PODMANFAKE_PATH") + ":" + os.Getenv("PATH"), "PODMANFAKE_CONTAINER=" + cdir}
	for _, kv := range spec.Env {
		n, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(v, "/") {
			v = host(v)
		}
		env = append(env, n+"="+v)
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CLAUDEFAKE_") || strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(host(spec.Cmd[0]), spec.Cmd[1:]...)
	cmd.Env = env
	cmd.Dir = host(spec.Workdir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		code = 125
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
	}
	_ = os.WriteFile(filepath.Join(cdir, "exit"), []byte(strconv.Itoa(code)), 0o600)
	return code
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func running(dir, name string) bool {
	if _, err := os.Stat(filepath.Join(dir, name, "exit")); err == nil {
		return false
	}
	pid, err := readInt(filepath.Join(dir, name, "pid"))
	return err == nil && syscall.Kill(pid, 0) == nil
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// wait waits for the end of a container and prints its exit code.
func wait(dir, name string) int {
	if !exists(dir, name) {
		fmt.Fprintf(os.Stderr, "podmanfake: no container %q\n", name)
		return 125
	}
	for running(dir, name) {
		time.Sleep(20 * time.Millisecond)
	}
	code, err := readInt(filepath.Join(dir, name, "exit"))
	if err != nil {
		code = 137
	}
	fmt.Println(code)
	return 0
}
