package door

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGivenTheDoorPackagesWhenAProgramImportsThemThenTheyBringNoPackageButRiffsAndTheStandardLibrary:
// a program that imports riffclient/door or riffclient/denied (a daemon
// that runs sessions) gets no MCP SDK, no keyring and no terminal
// library: each package that they need is of the standard library, of
// riff, or the JOSE library that riffclient already needs for sign-in.
func TestGivenTheDoorPackagesWhenAProgramImportsThemThenTheyBringNoPackageButRiffsAndTheStandardLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "../denied").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/como-technologies/riff/riffcore/") ||
			strings.HasPrefix(pkg, "github.com/como-technologies/riff/riffclient") ||
			strings.HasPrefix(pkg, "github.com/go-jose/go-jose/v4") {
			continue
		}
		t.Errorf("the door packages import %s", pkg)
	}
}
