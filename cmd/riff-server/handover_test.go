package main

// The handover of a deploy with two real riff-server processes on one
// store: a directory, and a bucket of a fake GCS server that the test
// runs on loopback (riff-server finds it through STORAGE_EMULATOR_HOST,
// as the storage client reads it).

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/gcs"
)

// handoverStore is where the instances of a handover test keep the log.
type handoverStore struct {
	dir  string   // RIFF_DIR, or "" with a bucket
	args []string // --bucket
	env  []string // STORAGE_EMULATOR_HOST
	// open opens the same store in the test, to read the lease.
	open func(t *testing.T) rifflog.Store
}

// storeName is how riff-server names the store in its lines.
func (h handoverStore) storeName() string {
	if h.dir != "" {
		return "directory " + h.dir
	}
	return "bucket riff"
}

// opts gives the settings of one instance on the store.
func (h handoverStore) opts(addr string, revision int, leaseWait string) serverOpts {
	args := append([]string{"--revision", fmt.Sprint(revision)}, h.args...)
	return serverOpts{dir: h.dir, addr: addr, leaseWait: leaseWait, args: args, env: h.env}
}

func dirStore(t *testing.T) handoverStore {
	path := t.TempDir()
	return handoverStore{dir: path, open: func(t *testing.T) rifflog.Store {
		st, err := dir.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}}
}

// fakeBucket runs a fake GCS server on a loopback port of its own, with
// the bucket riff.
func fakeBucket(t *testing.T) handoverStore {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	// The XML reads of the storage client go to the emulator host: the
	// fake serves them when its public host is that host.
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, PublicHost: host})
	if err != nil {
		t.Fatal(err)
	}
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "riff"})
	hs := &http.Server{Handler: fake.HTTPHandler()}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { hs.Close(); fake.Stop() })
	return handoverStore{
		args: []string{"--bucket", "riff"},
		env:  []string{"STORAGE_EMULATOR_HOST=" + host},
		open: func(t *testing.T) rifflog.Store {
			client, err := storage.NewClient(context.Background(), option.WithEndpoint("http://"+host+"/storage/v1/"),
				option.WithoutAuthentication(), storage.WithJSONReads())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Close() })
			return gcs.New(client, "riff", gcs.Options{})
		},
	}
}

// The sessions of the handover: ann reads and has a status and a step,
// mike posts, bob sends calls through the handover.
const (
	bobSession = "riff://bob@pangolin/acme/api?session=c8e1"
	annStatus  = "reviews the parser of #12"
	annStep    = "runs the test suite"
)

// uri reads a session URI of the test.
func uri(s string) name.SessionURI {
	u, err := name.ParseURI(s)
	if err != nil {
		panic(fmt.Sprintf("the URI %q of the test does not read: %v", s, err))
	}
	return u
}

// client gives a riff client of the server at url, of this build.
func client(t *testing.T, base string) *riffclient.Client {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return riffclient.New(u, riffclient.Options{Build: build.FromBuildInfo(versionOf()), HTTP: &http.Client{Timeout: 30 * time.Second}})
}

func send[R any](t *testing.T, c *riffclient.Client, call wire.Call[R]) R {
	t.Helper()
	r, err := riffclient.Send(context.Background(), c, call)
	if err != nil {
		t.Fatalf("%s: %v", call.Path(), err)
	}
	return r
}

// timedCall is one call of the load through the handover.
type timedCall struct {
	path       string
	start, end time.Time
	err        error
}

// load sends calls of bob, one after the other, until stop closes, and
// gives each call with its times.
func load(c *riffclient.Client, stop <-chan struct{}) <-chan []timedCall {
	out := make(chan []timedCall, 1)
	go func() {
		var calls []timedCall
		for i := 0; ; i++ {
			select {
			case <-stop:
				out <- calls
				return
			default:
			}
			var call timedCall
			call.start = time.Now()
			ctx := context.Background()
			var err error
			if i%2 == 0 {
				call.path = wire.Post{}.Path()
				_, err = riffclient.Send(ctx, c, wire.Post{Me: uri(bobSession), Body: fmt.Sprintf("bob's note %d", i)})
			} else {
				call.path = wire.Status{}.Path()
				_, err = riffclient.Send(ctx, c, wire.Status{Me: uri(bobSession), Text: fmt.Sprintf("works on step %d", i)})
			}
			call.end, call.err = time.Now(), err
			calls = append(calls, call)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return out
}

// lineTime gives the time of the first log line with the message.
func lineTime(t *testing.T, s *server, message string) time.Time {
	t.Helper()
	for _, l := range s.Lines() {
		if l.Message == message {
			at, err := time.Parse(time.RFC3339Nano, l.Time)
			if err != nil {
				t.Fatalf("the time of %q does not read: %v", l.Raw, err)
			}
			return at
		}
	}
	t.Fatalf("no log line %q:\n%s", message, s.stderrText())
	return time.Time{}
}

// whatSurvives is what the handover must keep: the read cursors of ann,
// and the statuses and steps of ann and mike.
type whatSurvives struct {
	AnnUnread   map[string]uint64
	AnnReads    int // messages that a read of acme/app gives ann
	AnnDetail   string
	MikeDetail  string
	AnnThreads  []string
	MikeStatus  bool
	AnnHasStep  bool
	AnnHasState bool
}

// survives asks the server what must survive. Each session calls
// whoami first: after a start it counts as stopped until it calls.
func survives(t *testing.T, c *riffclient.Client) whatSurvives {
	t.Helper()
	var w whatSurvives
	for _, me := range []string{annSession, mikeSession} {
		send(t, c, wire.Whoami{Me: uri(me)})
	}
	threads := send(t, c, wire.Threads{Me: uri(annSession)})
	w.AnnUnread = map[string]uint64{}
	for _, th := range threads.Threads {
		w.AnnUnread[th.Thread] = th.Unread
		w.AnnThreads = append(w.AnnThreads, th.Thread)
	}
	who := send(t, c, wire.Who{Me: uri(annSession), All: true})
	for _, row := range who.Rows {
		switch row.URI.String() {
		case annSession:
			w.AnnDetail = row.Detail
		case mikeSession:
			w.MikeDetail = row.Detail
		}
	}
	w.AnnHasState = strings.Contains(w.AnnDetail, annStatus)
	w.AnnHasStep = strings.Contains(w.AnnDetail, annStep)
	w.MikeStatus = strings.Contains(w.MikeDetail, "writes the lexer")
	return w
}

// TestGivenTwoInstancesWhenTheNewOneTakesTheLeaseThenReadsStatusesAndStepsSurviveAndEachCallGetsItsReply
// is a deploy on one directory and on a bucket: instance A (revision 1)
// serves; ann reads her thread, sets a status and starts a step; then
// instance B (revision 2) starts on the same store and the same port,
// while bob sends calls. A reads the new lease, closes its port, writes
// a last checkpoint and exits within 10 s; B loads that checkpoint after
// its wait and serves. Ann's cursor, the statuses and the step are on B,
// and each call of bob got its reply within 20 s of the moment A read
// the lease.
func TestGivenTwoInstancesWhenTheNewOneTakesTheLeaseThenReadsStatusesAndStepsSurviveAndEachCallGetsItsReply(t *testing.T) {
	needBinary(t)
	for kind, store := range map[string]func(*testing.T) handoverStore{"directory": dirStore, "bucket": fakeBucket} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h := store(t)
			a := start(t, h.opts("", 1, "0s"))
			if listens := a.Lines()[0].Raw; !strings.Contains(listens, `"store":"`+h.storeName()) {
				t.Fatalf("the first line %s does not name the store %q", listens, h.storeName())
			}
			c := client(t, a.URL)
			send(t, c, wire.Resume{Me: uri(mikePerson), Riff: true})
			send(t, c, wire.Join{Me: uri(annSession), Thread: "acme/app"})
			for i := range 3 {
				send(t, c, wire.Post{Me: uri(mikeSession), Thread: "acme/app", Body: fmt.Sprintf("mike's plan, part %d", i)})
			}
			if unread := survives(t, c).AnnUnread["acme/app"]; unread != 3 {
				t.Fatalf("ann has %d unread in acme/app before her read; want 3", unread)
			}
			// A read with no All moves ann's cursor: only the memory of A
			// and a checkpoint hold it.
			send(t, c, wire.Read{Me: uri(annSession), Thread: "acme/app"})
			send(t, c, wire.Status{Me: uri(annSession), Text: annStatus})
			send(t, c, wire.Step{Me: uri(annSession), Start: annStep})
			send(t, c, wire.Status{Me: uri(mikeSession), Text: "writes the lexer"})
			before := survives(t, c)
			if before.AnnUnread["acme/app"] != 0 || !before.AnnHasState || !before.AnnHasStep || !before.MikeStatus {
				t.Fatalf("before the handover: %+v; want ann's acme/app read, her status and step, mike's status", before)
			}

			stop := make(chan struct{})
			calls := load(c, stop)
			// Let bob's calls run on A first.
			time.Sleep(300 * time.Millisecond)
			b := start(t, h.opts(a.Addr, 2, "15s"))
			code, _ := a.wait(30 * time.Second)
			// A few calls on B, then the end of the load.
			time.Sleep(300 * time.Millisecond)
			close(stop)
			got := <-calls

			if code != 0 {
				t.Errorf("the old instance exited with %d after the handover; want 0:\n%s", code, a.stderrText())
			}
			a.checkLines()
			wantLines(t, a,
				"riff-server hands over: another instance took the lease; it closes its port and writes a last checkpoint",
				"checkpoint", "riff-server stopped: it handed over to the new instance")
			if msgs := messagesAtLeast(a.Lines(), "ERROR"); len(msgs) > 0 {
				t.Errorf("the handover wrote ERROR lines (an alert): %v", msgs)
			}
			read := lineTime(t, a, "riff-server hands over: another instance took the lease; it closes its port and writes a last checkpoint")
			exited := lineTime(t, a, "riff-server stopped: it handed over to the new instance")
			if took := exited.Sub(read); took > 10*time.Second {
				t.Errorf("the old instance stopped %v after it read the new lease; want at most 10 s", took)
			}

			var longest time.Duration
			defer func() {
				t.Logf("%d calls of bob through the handover; the longest took %v from the read of the lease", len(got), longest)
			}()
			if len(got) < 4 {
				t.Errorf("bob sent %d calls through the handover; want more", len(got))
			}
			for _, call := range got {
				if call.err != nil {
					t.Errorf("%s through the handover: %v", call.path, call.err)
					continue
				}
				from := call.start
				if from.Before(read) {
					from = read
				}
				// A bound with a margin, not a measure: 20 s is the
				// guide's promise; a call waits about the lease wait (15 s).
				longest = max(longest, call.end.Sub(from))
				if call.end.Sub(from) >= 20*time.Second {
					t.Errorf("%s started %v got its reply %v after the old instance read the lease; want under 20 s",
						call.path, call.start.Format(time.StampMilli), call.end.Sub(from))
				}
			}

			after := survives(t, client(t, b.URL))
			if after.AnnUnread["acme/app"] != 0 {
				t.Errorf("after the handover ann has %d unread in acme/app; want 0: the deploy keeps each read cursor", after.AnnUnread["acme/app"])
			}
			if page := send(t, client(t, b.URL), wire.Read{Me: uri(annSession), Thread: "acme/app"}); len(page.Threads) > 0 && len(page.Threads[0].Messages) > 0 {
				t.Errorf("after the handover a read gives ann %d messages again; want none", len(page.Threads[0].Messages))
			}
			if !after.AnnHasState || !after.AnnHasStep {
				t.Errorf("after the handover ann's row says %q; want her status %q and her step %q", after.AnnDetail, annStatus, annStep)
			}
			if !after.MikeStatus {
				t.Errorf("after the handover mike's row says %q; want his status", after.MikeDetail)
			}
			wantLines(t, b, "riff-server serves")
			b.stop()
			b.checkLines()
		})
	}
}

// messagesAtLeast gives the lines of a severity.
func messagesAtLeast(lines []logLine, severity string) []string {
	return rawLines(lines, func(l logLine) bool { return l.Severity == severity })
}

// waitServes waits up to 20 s until the instance who serves, after the
// event that lets it, and fails the test when it exits or does not.
func waitServes(t *testing.T, s *server, who, after string) {
	t.Helper()
	select {
	case <-s.serving:
	case <-s.exited:
		t.Fatalf("%s exited:\n%s", who, s.stderrText())
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not serve in 20 s after %s:\n%s", who, after, s.stderrText())
	}
}

// waitLine waits until the server wrote a line with the message.
func waitLine(t *testing.T, s *server, message string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if len(messages(s.Lines(), message)) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("riff-server wrote no line %q in %v:\n%s", message, d, s.stderrText())
}

func readLease(t *testing.T, st rifflog.Store) rifflog.LeaseRecord {
	t.Helper()
	r, _, ok, err := rifflog.ReadLease(context.Background(), st)
	if err != nil || !ok {
		t.Fatalf("ReadLease = %v, %v", ok, err)
	}
	return r
}

// TestGivenTheLeaseOfALaterRevisionThenAnOlderInstanceWaitsUntilItEnds
// runs the other ends of a deploy with real processes on one directory:
//
//   - an instance of an older revision (a second old instance, or a
//     shift of the traffic back) does not take the live lease of a later
//     one: it waits, and takes it when the later one ends it at its stop
//     (SIGTERM);
//   - a new instance stopped in its wait (SIGTERM: a failed deploy) ends
//     its lease, and the next instance takes it at once;
//   - a new instance killed in its wait (kill -9: a crash) leaves its
//     lease, and an older revision takes it only once it is 90 s old;
//   - an older revision that waits exits at once at SIGTERM, and leaves
//     the lease of the later one.
//
// After each one the riff keeps ann's status, from the last checkpoint.
func TestGivenTheLeaseOfALaterRevisionThenAnOlderInstanceWaitsUntilItEnds(t *testing.T) {
	needBinary(t)
	t.Parallel()
	h := dirStore(t)
	st := h.open(t)
	a := start(t, h.opts("", 2, "0s"))
	addr := a.Addr
	c := client(t, a.URL)
	send(t, c, wire.Resume{Me: uri(mikePerson), Riff: true})
	send(t, c, wire.Status{Me: uri(annSession), Text: annStatus})
	holdsStatus := func(s *server) {
		t.Helper()
		if w := survives(t, client(t, s.URL)); !w.AnnHasState {
			t.Errorf("ann's row on the instance of %s says %q; want her status", s.Addr, w.AnnDetail)
		}
	}

	// An older revision waits while revision 2 serves.
	older := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "1s", args: []string{"--revision", "1"}, noWait: true})
	waitLine(t, older, "a later revision holds the lease: this instance waits until it ends", 20*time.Second)
	time.Sleep(2*rifflog.LeaseRead + 500*time.Millisecond) // two reads of the lease by the older one
	if r := readLease(t, st); r.Revision != 2 || r.Ended {
		t.Errorf("the lease while the older revision waits = %+v; want revision 2's, not ended", r)
	}
	send(t, c, wire.Status{Me: uri(mikeSession), Text: "writes the lexer"})
	// Revision 2 stops: it ends its lease, and the older one takes it.
	a.stop()
	waitServes(t, older, "the older revision", "the stop of the later one")
	if r := readLease(t, st); r.Revision != 1 {
		t.Errorf("the lease after the stop of revision 2 = %+v; want revision 1's", r)
	}
	wantLines(t, older, "a later revision holds the lease: this instance waits until it ends",
		"the lease of the later revision ended: this instance takes it", "riff-server serves")
	holdsStatus(older)

	// A new instance stopped in its wait ends its lease.
	failed := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "60s", args: []string{"--revision", "3"}, noWait: true})
	if code, _ := older.wait(20 * time.Second); code != 0 {
		t.Errorf("revision 1 exited with %d at the handover; want 0:\n%s", code, older.stderrText())
	}
	if err := failed.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := failed.wait(20 * time.Second); code != 0 {
		t.Errorf("revision 3 stopped in its wait exited with %d; want 0:\n%s", code, failed.stderrText())
	}
	if r := readLease(t, st); r.Revision != 3 || !r.Ended {
		t.Errorf("the lease after the stop in the wait = %+v; want revision 3's, ended", r)
	}
	back := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "1s", args: []string{"--revision", "2"}})
	holdsStatus(back)

	// A new instance killed in its wait leaves its lease: an older
	// revision waits for its age.
	crashed := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "60s", args: []string{"--revision", "4"}, noWait: true})
	if code, _ := back.wait(20 * time.Second); code != 0 {
		t.Errorf("revision 2 exited with %d at the handover; want 0:\n%s", code, back.stderrText())
	}
	crashed.kill()
	if r := readLease(t, st); r.Revision != 4 || r.Ended {
		t.Fatalf("the lease after kill -9 in the wait = %+v; want revision 4's, not ended", r)
	}
	last := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "1s", args: []string{"--revision", "3"}, noWait: true})
	waitLine(t, last, "a later revision holds the lease: this instance waits until it ends", 20*time.Second)
	ageLease(t, h.dir)
	waitServes(t, last, "revision 3", "the lease of revision 4 aged")
	holdsStatus(last)

	// An older revision that waits exits at once when it is stopped, and
	// leaves the lease of the later one.
	waiting := start(t, serverOpts{dir: h.dir, addr: addr, leaseWait: "1s", args: []string{"--revision", "1"}, noWait: true})
	waitLine(t, waiting, "a later revision holds the lease: this instance waits until it ends", 20*time.Second)
	if err := waiting.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := waiting.wait(20 * time.Second); code != 0 {
		t.Errorf("the waiting older revision exited with %d at SIGTERM; want 0:\n%s", code, waiting.stderrText())
	}
	if r := readLease(t, st); r.Revision != 3 || r.Ended {
		t.Errorf("the lease after the stop of a waiting older revision = %+v; want revision 3's, not ended", r)
	}
	send(t, client(t, last.URL), wire.Status{Me: uri(mikeSession), Text: "still serves"})
	last.stop()
	for _, s := range []*server{a, older, failed, back, last, waiting} {
		s.checkLines()
	}
}

// TestRevisionOf reads the revision number from RIFF_REVISION, else from
// the name of the Cloud Run revision.
func TestRevisionOf(t *testing.T) {
	for _, tc := range []struct {
		flag, k string
		want    uint64
		wantErr string
	}{
		{k: "riff-server-00042-abc", want: 42},
		{k: "riff-00007-x2z", want: 7},
		{flag: "9", k: "riff-server-00042-abc", want: 9},
		{want: 0},
		{k: "riff-server-blue", wantErr: "K_REVISION \"riff-server-blue\" has no revision number"},
		{flag: "-1", wantErr: "--revision (RIFF_REVISION) \"-1\" is not a whole number"},
	} {
		got, err := revisionOf(tc.flag, tc.k)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("revisionOf(%q, %q) = %d, %v; want the error %q", tc.flag, tc.k, got, err, tc.wantErr)
			}
		case err != nil || got != tc.want:
			t.Errorf("revisionOf(%q, %q) = %d, %v; want %d", tc.flag, tc.k, got, err, tc.want)
		}
	}
}
