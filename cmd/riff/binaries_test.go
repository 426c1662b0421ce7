package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// The real-binary tests of this package build riff, riff-server and a few
// tools with go build. A link takes a second or two, so each binary is
// built once per test run (for each version that -ldflags sets) into a
// folder that TestMain owns, and each test gets a copy of it in a folder
// of its own: a test may replace or remove its files (as riff update does)
// and no other test sees it. The longest of these tests, which mostly wait
// on the real time rules of riff (a token's life, a watch that tries again
// every 5 s), run in parallel.

// builtDir is the folder of the binaries of this test run. TestMain sets
// it before any test runs; no test changes it.
var builtDir string

// built holds one build of each (package, version): the first test that
// needs it builds it, and the others wait for that build.
var built struct {
	mu     sync.Mutex
	builds map[buildKey]*binaryBuild
}

type buildKey struct{ pkg, version string }

type binaryBuild struct {
	once sync.Once
	// dir is the folder of this build alone.
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "riff-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builtDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// builtBinary gives the path of the binary of pkg (a path relative to
// cmd/, such as ./riff, or a package path) built with version (""
// is the default version of the binary), building it at the first call.
func builtBinary(pkg, version string) (string, error) {
	built.mu.Lock()
	if built.builds == nil {
		built.builds = map[buildKey]*binaryBuild{}
	}
	key := buildKey{pkg, version}
	b := built.builds[key]
	if b == nil {
		b = &binaryBuild{dir: filepath.Join(builtDir, strconv.Itoa(len(built.builds)))}
		built.builds[key] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		if err := os.MkdirAll(b.dir, 0o755); err != nil {
			b.err = err
			return
		}
		out := filepath.Join(b.dir, filepath.Base(pkg))
		args := []string{"build", "-o", out}
		if version != "" {
			args = append(args, "-ldflags", "-X main.version="+version)
		}
		if filepath.Base(pkg) == "riff" {
			// riff as the test build: it takes the options of a test
			// from the env (testOverlay).
			overlay, err := testOverlay(b.dir)
			if err != nil {
				b.err = err
				return
			}
			args = append(args, "-overlay", overlay)
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir = ".."
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
			return
		}
		b.path = out
	})
	return b.path, b.err
}

// binaries gives a folder of the test's own that holds the binaries of
// pkgs (paths relative to cmd/, or package paths) built with version,
// each under the last element of its path.
func binaries(t testing.TB, version string, pkgs ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, pkg := range pkgs {
		path, err := builtBinary(pkg, version)
		if err != nil {
			t.Fatal(err)
		}
		if err := copyFile(path, filepath.Join(bin, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// writeExecutable writes data to the executable file path, holding
// syscall.ForkLock as copyFile does.
func writeExecutable(path string, data []byte) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	return os.WriteFile(path, data, 0o755)
}

// copyFile copies the executable from to the new file to. It holds
// syscall.ForkLock for writing while the new file is open: a test that
// runs in parallel and forks meanwhile would give its child the open
// file until the child's exec, and an exec of the new file then fails
// with "text file busy" (golang.org/issue/22315).
func copyFile(from, to string) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// testBuildReplace names each file of riff that the test build replaces
// with its twin under testdata/testbuild: the twin reads the hooks of the
// tests from the env; the file of the product reads none.
var testBuildReplace = []string{"testhooks.go", "streamtest.go"}

// testOverlay writes the overlay of the test build of riff into dir
// (go build -overlay) and gives its path.
func testOverlay(dir string) (string, error) {
	replace := map[string]string{}
	for _, file := range testBuildReplace {
		product, err := filepath.Abs(file)
		if err != nil {
			return "", err
		}
		test, err := filepath.Abs(filepath.Join("testdata", "testbuild", file))
		if err != nil {
			return "", err
		}
		replace[product] = test
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, overlay, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
