package daemon

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// UnitName is the systemd user unit of the daemon.
const UnitName = "riff.service"

// UnitPath gives the file of the unit under the config folder of the
// user ($XDG_CONFIG_HOME, else ~/.config).
func UnitPath(configHome string) string {
	return filepath.Join(configHome, "systemd", "user", UnitName)
}

// UnitText gives the text of the unit that runs riff at exe as the
// daemon in the foreground, with the variables env (NAME=VALUE, in
// their order). KillMode=process: a stop of the unit ends the daemon
// only, never the podman of a session (docs/daemon.md, "The unit").
func UnitText(exe string, env []string) string {
	var b strings.Builder
	b.WriteString("# The riff daemon: it runs each work item in a podman container (docs/daemon.md).\n")
	b.WriteString("# riff daemon install writes this file; it keeps the Environment lines.\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=riff daemon: the sessions of riff in podman containers\n\n")
	b.WriteString("[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s daemon run\n", systemdQuote(exe))
	for _, kv := range env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(kv))
	}
	b.WriteString("Restart=always\n")
	b.WriteString("RestartSec=5\n")
	b.WriteString("KillMode=process\n\n")
	b.WriteString("[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.String()
}

// systemdQuote quotes a word of a unit file when it holds a space, a
// quote or a backslash.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// UnitEnv gives the variables of the Environment lines of a unit text,
// in their order: riff daemon install keeps them.
func UnitEnv(text string) []string {
	var env []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		v, ok := strings.CutPrefix(line, "Environment=")
		if !ok {
			continue
		}
		for _, word := range unitWords(v) {
			if strings.Contains(word, "=") && !slices.Contains(env, word) {
				env = append(env, word)
			}
		}
	}
	return env
}

// unitWords splits the value of an Environment line into its words, as
// systemd does: at spaces, with double quotes and backslashes.
func unitWords(v string) []string {
	var words []string
	var cur strings.Builder
	quoted, escaped, any := false, false, false
	for _, r := range v {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			quoted, any = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if cur.Len() > 0 || any {
				words = append(words, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 || any {
		words = append(words, cur.String())
	}
	return words
}

// MergeEnv gives the variables of a new unit: each of old, with the
// value of add for a name that add sets too, then the new names of add.
func MergeEnv(old, add []string) []string {
	out := slices.Clone(old)
	for _, kv := range add {
		name, _, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(out, func(o string) bool { n, _, _ := strings.Cut(o, "="); return n == name })
		if i >= 0 {
			out[i] = kv
		} else {
			out = append(out, kv)
		}
	}
	return out
}
