package signin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGivenAProgramThatImportsOnlyRiffclientWhenItBuildsThenItHasNoneOfTheSignIn:
// the OAuth client, the keyring and the lock of the sign-in are packages
// of this package's imports, never of riffclient itself, so a program
// that imports only riffclient builds with none of them (Go's module
// graph pruning keeps their modules out of its build).
func TestGivenAProgramThatImportsOnlyRiffclientWhenItBuildsThenItHasNoneOfTheSignIn(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command here")
	}
	deps := func(pkg string) string {
		t.Helper()
		out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	signIn := []string{"golang.org/x/oauth2", "github.com/zalando/go-keyring", "github.com/gofrs/flock"}
	for _, pkg := range []string{"github.com/como-technologies/riff/riffclient", "github.com/como-technologies/riff/riffclient/local", "github.com/como-technologies/riff/riffclient/place"} {
		list := deps(pkg)
		for _, dep := range signIn {
			if strings.Contains(list, dep) {
				t.Errorf("a program that imports %s builds %s; want none of the sign-in", pkg, dep)
			}
		}
	}
	// The test can fail: the sign-in itself builds each of them.
	list := deps("github.com/como-technologies/riff/riffclient/signin")
	for _, dep := range signIn {
		if !strings.Contains(list, dep) {
			t.Errorf("riffclient/signin builds no %s; the check above proves nothing", dep)
		}
	}
}
