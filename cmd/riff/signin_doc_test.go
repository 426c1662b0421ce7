package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docSection gives the text of the section of page under heading, to the
// next heading of its level or above.
func docSection(t *testing.T, page, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("%s has no section %q", page, heading)
	}
	rest := text[start+len(heading)+2:]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// shBlocks gives the lines of each ```sh block of a text.
func shBlocks(text string) [][]string {
	var blocks [][]string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, strings.Split(strings.TrimSpace(m[1]), "\n"))
	}
	return blocks
}

// startShell runs line with bash in dir, in a process group of its own
// (go run starts a child), and stops the group with SIGTERM at the end
// of the test.
func startShell(t *testing.T, dir, line string, env []string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", line, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("%s:\n%s", line, out.String())
		}
	})
	return cmd, out
}

// TestGivenTheTrySignInSectionOfSigninMdWhenItsCommandsRunAsWrittenThenRiffLoginSignsInAsTheEmail:
// the commands of docs/signin.md, "Try sign-in on this machine", run as
// a person runs them: the test OpenID provider with go run in the clone,
// riff-server with it, then riff login (the device flow: no display) and
// riff whoami in a third shell, where the test opens the URL that riff
// login prints, as the person does. The only change to the page: the
// port 7879 of the provider becomes a free port, and riff-server and riff
// get a free port in place of their default 7878 through RIFF_LISTEN and
// RIFF_SERVER, so that the test runs beside others.
func TestGivenTheTrySignInSectionOfSigninMdWhenItsCommandsRunAsWrittenThenRiffLoginSignsInAsTheEmail(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the page runs go run, and go is not on the PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	section := docSection(t, filepath.Join(root, "docs", "signin.md"), "## Try sign-in on this machine")
	blocks := shBlocks(section)
	if len(blocks) != 3 || len(blocks[0]) != 1 || len(blocks[1]) != 1 || len(blocks[2]) != 2 {
		t.Fatalf("the section has the sh blocks %q; want the provider, riff-server, then riff login and riff whoami", blocks)
	}
	provider, server := freePort(t), freePort(t)
	ports := strings.NewReplacer("127.0.0.1:7879", provider, "127.0.0.1:7878", server)
	home := t.TempDir()
	env := append(loginEnv("http://"+server, home), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "RIFF_LISTEN="+server)

	_, provOut := startShell(t, root, ports.Replace(blocks[0][0]), env)
	serves := ports.Replace("oidcprovider serves http://127.0.0.1:7879 (client ID riff): each sign-in is ada@example.com, at once.")
	if !strings.Contains(strings.Join(strings.Fields(section), " "), "oidcprovider serves http://127.0.0.1:7879 (client ID riff): each sign-in is ada@example.com, at once.") {
		t.Errorf("the page does not show the line of the provider %q", serves)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(provOut.String(), serves) {
		if time.Now().After(deadline) {
			t.Fatalf("the provider does not say %q after 3 minutes:\n%s", serves, provOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	startShell(t, root, ports.Replace(blocks[1][0]), env)
	waitProvider(t, "http://"+server)

	// The third shell: riff login, as the person who opens its URL.
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A failure below ends riff login, which would wait 10 minutes for
	// the person.
	login := exec.CommandContext(ctx, "bash", "-c", "exec "+ports.Replace(blocks[2][0]))
	login.Dir, login.Env = dir, env
	stdout, err := login.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var loginErr syncBuffer
	login.Stderr = &loginErr
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "or open "); ok {
			if !strings.HasPrefix(u, "http://"+provider+"/activate?user_code=") {
				t.Errorf("riff login gives the URL %q; want the page of the provider that the docs name", u)
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("open %s: %v", u, err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("the page of the provider = %s: %s", resp.Status, page)
				cancel()
			}
		}
	}
	if err := login.Wait(); err != nil {
		t.Fatalf("%s = %v\n%s\n%s", blocks[2][0], err, strings.Join(lines, "\n"), loginErr.String())
	}
	signedIn := ports.Replace("Signed in to the riff at http://127.0.0.1:7878 as ada@example.com (ada).")
	if !strings.Contains(section, "Signed in to the riff at http://127.0.0.1:7878 as ada@example.com (ada).") {
		t.Errorf("the page does not show the line of riff login")
	}
	if got := lines[len(lines)-1]; got != signedIn {
		t.Errorf("the last line of riff login = %q; want %q\n%s", got, signedIn, strings.Join(lines, "\n"))
	}

	whoami := exec.Command("bash", "-c", ports.Replace(blocks[2][1]))
	whoami.Dir, whoami.Env = dir, env
	out, err := whoami.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "riff://ada@") {
		t.Errorf("%s = %v:\n%s\nwant the URI of ada, the USER of the sign-in", blocks[2][1], err, out)
	}
}
