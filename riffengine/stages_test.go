package riffengine_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// goBuild builds the package in dir and gives its output.
func goBuild(t *testing.T, dir string) (string, error) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, "./"+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The stages of a command are types that only the engine package makes
// (riffengine/doc.go, "Stages"). A package outside
// cannot make an Authenticated value with a caller of its choice; the
// twin, which differs in that one line, goes through Authenticate with
// the proof of the token layer and compiles.
func TestCodeOutsideTheEngineCannotMakeAStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two packages")
	}
	if out, err := goBuild(t, "testdata/stagesok"); err != nil {
		t.Fatalf("go build ./testdata/stagesok = %v; want it to compile:\n%s", err, out)
	}
	out, err := goBuild(t, "testdata/stages")
	if err == nil {
		t.Fatalf("go build ./testdata/stages compiled; want an error: code outside makes an Authenticated")
	}
	for _, field := range []string{"cmd", "caller"} {
		if !strings.Contains(out, "cannot refer to unexported field "+field) {
			t.Errorf("go build ./testdata/stages gave\n%s\nwant the error: cannot refer to unexported field %s", out, field)
		}
	}
}
