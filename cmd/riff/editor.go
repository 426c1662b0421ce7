package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// editText opens $VISUAL, $EDITOR or vi on a text, and gives the new
// text.
func (c *cli) editText(ctx context.Context, text string) (string, error) {
	editor := c.env("VISUAL")
	if editor == "" {
		editor = c.env("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "riff-notes-")
	if err != nil {
		return "", knownf("riff cannot make a file for the editor")
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", knownf("riff cannot make a file for the editor")
	}
	fields := strings.Fields(editor)
	cmd := exec.CommandContext(ctx, fields[0], append(fields[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	if err := cmd.Run(); err != nil {
		return "", knownf("the editor %s failed; the notes stay as they were", fields[0])
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", knownf("riff cannot read the file of the editor; the notes stay as they were")
	}
	return string(b), nil
}
