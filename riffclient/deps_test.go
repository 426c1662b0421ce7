package riffclient_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGivenAProgramThatImportsOnlyRiffclientWhenItBuildsThenItHoldsNoPackageOfTheMCPSDK:
// the tools of an agent session (riffclient/mcptools, with the MCP SDK)
// and the texts (riffclient/render, with the width of characters) are
// packages of their own, so a program that calls a riff with
// riffclient alone builds none of them.
func TestGivenAProgramThatImportsOnlyRiffclientWhenItBuildsThenItHoldsNoPackageOfTheMCPSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, kept := range []string{"github.com/modelcontextprotocol/", "github.com/mattn/go-runewidth", "github.com/clipperhouse/",
			"github.com/como-technologies/riff/riffclient/"} {
			if strings.HasPrefix(pkg, kept) {
				t.Errorf("riffclient builds %s", pkg)
			}
		}
	}
}
