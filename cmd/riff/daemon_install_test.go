package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// riff daemon install (docs/daemon.md, "The unit"): it writes the unit,
// keeps its variables, and starts it again through systemctl --user. A
// fake systemctl on PATH records the calls.

func TestGivenAUnitWithAVariableWhenRiffDaemonInstallRunsThenItWritesTheUnitKeepsTheVariableAndRestartsIt(t *testing.T) {
	bin := binaries(t, "", "./riff")
	home := t.TempDir()
	fake := t.TempDir()
	calls := filepath.Join(fake, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\n"
	if err := writeExecutable(filepath.Join(fake, "systemctl"), []byte(script)); err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "riff.service")
	if err := os.MkdirAll(filepath.Dir(unit), 0o755); err != nil {
		t.Fatal(err)
	}
	old := "[Service]\nExecStart=/old/riff daemon run\nEnvironment=RIFF_PODMAN_OPTIONS=\"--runtime=runc --cgroup-manager=cgroupfs\"\nEnvironment=RIFF_SERVER=http://old:7878\n"
	if err := os.WriteFile(unit, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "riff"), "daemon", "install")
	cmd.Env = []string{"PATH=" + fake + ":" + os.Getenv("PATH"), "HOME=" + home, "RIFF_SERVER=http://thelio:7878", "RIFF_SESSION_MEMORY=8g"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("riff daemon install: %v\n%s", err, out)
	}
	text, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(text), filepath.Join(bin, "riff"), "/home/mike/.local/bin/riff")
	checkGolden(t, "daemon", "riff.service", got)
	rec, _ := os.ReadFile(calls)
	if want := "--user daemon-reload\n--user enable riff.service\n--user restart riff.service\n"; string(rec) != want {
		t.Errorf("systemctl calls = %q; want %q", rec, want)
	}
	if !strings.Contains(string(out), "riff wrote the unit "+unit) || !strings.Contains(string(out), "Its sessions go on.") {
		t.Errorf("riff daemon install said %q", out)
	}
}

func TestGivenNoUserManagerWhenRiffDaemonInstallRunsThenItSaysHowToRunTheDaemonInTheForeground(t *testing.T) {
	bin := binaries(t, "", "./riff")
	home := t.TempDir()
	fake := t.TempDir()
	script := "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n"
	if err := writeExecutable(filepath.Join(fake, "systemctl"), []byte(script)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "riff"), "daemon", "install")
	cmd.Env = []string{"PATH=" + fake + ":" + os.Getenv("PATH"), "HOME=" + home}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("riff daemon install with no user manager exited 0: %s", out)
	}
	for _, want := range []string{"systemctl --user daemon-reload failed: Failed to connect to bus: No medium found", "riff daemon run"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("riff daemon install said %q; want %q", out, want)
		}
	}
}

func TestGivenNoDaemonWhenRiffDaemonStatusRunsThenItSaysThatItGaveNoAnswer(t *testing.T) {
	bin := binaries(t, "", "./riff")
	short, err := os.MkdirTemp("", "rd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(short)
	cmd := exec.Command(filepath.Join(bin, "riff"), "daemon", "status")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + short, "RIFF_HOME=" + short}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the riff daemon gave no answer on "+short+"/state/daemon.sock") || !strings.Contains(string(out), "riff daemon install") {
		t.Errorf("riff daemon status with no daemon = %v %q", err, out)
	}
}

func TestGivenNoSocketWhenRiffRelayRunsClaudeThenItSaysThatItRunsInAContainerOfTheDaemon(t *testing.T) {
	bin := binaries(t, "", "./riff")
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"relay", "--", "claude"}, "riff relay -- claude runs in a container of the riff daemon: RIFF_SOCKET names the socket of its session, and it is not set", 1},
		{[]string{"relay", "--"}, "riff relay -- needs the command of claude", 2},
		{[]string{"relay", "bogus"}, `riff relay knows mcp, watch, hook, prompt, denied and --, not "bogus"`, 2},
		{[]string{"relay", "--", "claude", "--model", "x"}, "riff relay -- claude runs in a container of the riff daemon", 1},
	} {
		cmd := exec.Command(filepath.Join(bin, "riff"), tc.args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != tc.code || !strings.Contains(string(out), tc.want) {
			t.Errorf("riff %v = %d %q; want %d and %q", tc.args, cmd.ProcessState.ExitCode(), out, tc.code, tc.want)
		}
	}
}
