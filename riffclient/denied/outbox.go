package denied

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The names of the outbox in the local folder. The folder keeps its name
// of the first riff that had it, so that an update loses no record that
// waits.
const (
	outboxDir = "denied"
	lockFile  = "denied.lock"
	logFile   = "denied.log"
)

const (
	// SendFor bounds the life of a sender: with a server that accepts and
	// never answers it still ends.
	SendFor = 2 * time.Minute
	// Stale is the age after which a record is posted by the person of
	// its session, not the session: each call of a session is a sign of
	// life, and a session that ended since (a kill gives no end) must not
	// look live for 3 more minutes.
	Stale = time.Minute
	// logMax is the size of denied.log after which a run starts a new one
	// (the old one is denied.log.1).
	logMax = 1 << 20
)

// Outbox is the folder of the records that wait for the server, in the
// local folder Dir (docs/agents.md, "What it does"): LOCAL/denied, one
// file TIME-ID.json for each record, mode 0600, so that a listing is
// oldest first. Beside it, denied.lock lets one sender run at a time and
// denied.log says what each run did.
type Outbox struct {
	// Dir is the local folder, private (mode 0700).
	Dir string
}

// An Error is a fault of the outbox itself, not of the server: Op says
// what the outbox could not do, with the path that it names.
type Error struct {
	Op  string
	Err error
}

func (e *Error) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Put writes the record in the outbox: a temp file and a rename, mode
// 0600, so that a sender never reads half a record.
func (o Outbox) Put(rec Record) error {
	dir := filepath.Join(o.Dir, outboxDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, rec.ID+".json"))
}

// Waiting gives the names of the records that wait, oldest first. A
// record set aside (NAME.bad, NAME.refused) no longer waits.
func (o Outbox) Waiting() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(o.Dir, outboxDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// read reads the record of a file of the outbox.
func read(path string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	if rec.ID == "" || rec.Me.User == "" {
		return rec, errors.New("a record with no id or no session")
	}
	return rec, nil
}

// Send posts each record that waits, oldest first, as a note to the
// thread denials, and removes it once the server took it; then each
// session that posted leaves the thread, so that its threads and reads
// stay its own. It stops at the first record that the server does not
// take, so the order stays; a record that the server refuses is set
// aside (NAME.refused), and one that does not read too (NAME.bad), so
// that the records after it go. One sender runs at a time (a lock beside
// the outbox, waited for); a record that two senders post is one message
// (its key). now gives the time that ages the records. It gives the
// number of records posted; an *Error is a fault of the outbox, any
// other error the server's or the client's.
func (o Outbox) Send(ctx context.Context, c *riffclient.Client, now func() time.Time) (posted int, err error) {
	lock := filepath.Join(o.Dir, lockFile)
	unlock, err := lockPath(lock)
	if err != nil {
		return 0, &Error{Op: "cannot lock " + lock, Err: err}
	}
	defer unlock()
	names, err := o.Waiting()
	if err != nil {
		return 0, &Error{Op: "cannot read " + filepath.Join(o.Dir, outboxDir), Err: err}
	}
	s := &sender{c: c, now: now, rows: map[string]wire.WhoRow{}}
	var posters []name.SessionURI
	for _, n := range names {
		path := filepath.Join(o.Dir, outboxDir, n)
		rec, err := read(path)
		if err != nil {
			// A record that does not read would stop each later one:
			// it is set aside, under a name that no sender reads.
			_ = os.Rename(path, path+".bad")
			continue
		}
		err = s.post(ctx, rec)
		var refused *wire.Refused
		if errors.As(err, &refused) {
			// The server will never take it: set aside with the reason,
			// so the records after it go.
			_ = os.Rename(path, path+".refused")
			continue
		}
		if err != nil {
			return posted, err
		}
		if err := os.Remove(path); err != nil {
			return posted, &Error{Op: "cannot remove the posted record " + path, Err: err}
		}
		posted++
		if poster := posterOf(rec, now()); !poster.IsPerson() &&
			!slices.ContainsFunc(posters, func(u name.SessionURI) bool { return u.Who() == poster.Who() }) {
			posters = append(posters, poster)
		}
	}
	for _, me := range posters {
		if _, err := riffclient.Send(ctx, c, wire.Leave{Me: me, Thread: string(name.Denials)}); err != nil {
			return posted, err
		}
	}
	return posted, nil
}

// Log writes one JSON line to denied.log beside the outbox: the records
// that a run of the sender posted, those that still wait, and why
// (errText, "" for none). It holds no text of a record. A log that
// cannot be written is no fault of the run: the records are where they
// are.
func (o Outbox) Log(at time.Time, posted int, errText string) {
	waiting, _ := o.Waiting()
	path := filepath.Join(o.Dir, logFile)
	if info, statErr := os.Stat(path); statErr == nil && info.Size() > logMax {
		_ = os.Rename(path, path+".1")
	}
	line := struct {
		Time     string `json:"time"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Posted   int    `json:"posted"`
		// Waiting keeps the field name of the first denied.log, so that
		// a reader of the log reads each line alike.
		Waiting int    `json:"kept"`
		Error   string `json:"error,omitempty"`
	}{Time: at.UTC().Format(time.RFC3339Nano), Severity: "INFO", Message: "riff relay denied --send", Posted: posted, Waiting: len(waiting)}
	if errText != "" {
		line.Severity, line.Error = "WARNING", errText
	} else if len(waiting) > 0 {
		line.Severity = "WARNING"
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// sender posts the records of one run of Send.
type sender struct {
	c   *riffclient.Client
	now func() time.Time
	// rows holds the row of who of each session that posts, by its key:
	// its role and its claims at the post.
	rows map[string]wire.WhoRow
}

// posterOf gives the caller that posts a record: its session, or the
// person of its session (at the same place) when the record is older
// than Stale. The tags name the session either way.
func posterOf(rec Record, now time.Time) name.SessionURI {
	if now.UnixMilli()-rec.AtMs <= Stale.Milliseconds() {
		return rec.Me
	}
	person := rec.Me
	person.Session = ""
	return person
}

// post posts one record as a note to the thread denials, with the role
// and the claims of its session from who.
func (s *sender) post(ctx context.Context, rec Record) error {
	poster := posterOf(rec, s.now())
	key := rec.Me.Who().String()
	row, ok := s.rows[key]
	if !ok {
		// All: the row of a session that is gone since its record.
		who, err := riffclient.Send(ctx, s.c, wire.Who{Me: poster, All: true})
		if err != nil {
			return err
		}
		for _, r := range who.Rows {
			if r.URI.Who() == rec.Me.Who() {
				row = r
			}
		}
		s.rows[key] = row
	}
	body := Line(rec, roleOf(row.Role), claimsOf(row.URI))
	_, err := riffclient.Post(ctx, s.c, wire.Post{
		Me: poster, Thread: string(name.Denials), Kind: record.MessageNote, Body: body, Key: "denied-" + rec.ID,
	})
	return err
}

// roleOf gives the role tag of a session from the role of its row in
// who: lead, worker, or session.
func roleOf(role string) string {
	tags := strings.Fields(role)
	switch {
	case slices.Contains(tags, "lead"):
		return "lead"
	case slices.Contains(tags, "worker"):
		return "worker"
	}
	return "session"
}

// claimsOf gives the claim tag: the items that the session holds, or -.
func claimsOf(u name.SessionURI) string {
	if len(u.Claims) == 0 {
		return "-"
	}
	items := make([]string, len(u.Claims))
	for i, it := range u.Claims {
		items[i] = string(it)
	}
	return strings.Join(items, ",")
}
