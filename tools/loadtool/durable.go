package loadtool

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
)

// Durable is the ceiling of a durable server on a disk: Trivial, but a
// call is answered only once its body is on the disk. Each call waits
// for a group commit, as riff-server's calls wait for the log writer:
// one goroutine takes the bodies of all the calls that wait and writes
// them as one file with the steps of a chunk of the directory store
// (rifflog/dir), by the same system calls (chunkDir): a new temporary
// file, write, fsync, close, the chunk's name by a rename that never
// replaces one, fsync of the directory, which it holds open. It does
// nothing else:
// no JSON, no state, no lease, no checkpoint. So no server that keeps
// each call in such a chunk before its reply can pass it on the same
// machine under the same load.
//
// With a Prune, it also deletes its old chunks as riff-server's keep
// rule does (see Prune), so the ceiling pays what the file system asks
// for a log that does not grow without end.
//
// A call whose chunk fails gets a 503. Close stops the writer (and the
// pruner); the calls that wait then get a 503.
type Durable struct {
	dir     string
	reply   []byte
	prune   Prune
	queue   chan durableCall
	cutoffs chan int // the pruner's work: delete the chunks that end at or before this call
	closing chan struct{}
	stopped chan struct{}
	pruned  chan struct{}

	mu       sync.Mutex
	chunks   int
	calls    int
	ends     []chunkEnd // the chunks on the disk, oldest first
	deleted  int
	pruneErr error
	spares   []string // recycled files, ready for writeOver
	spareSeq int
	over     int // chunks written over a recycled file
}

// Prune is the deletion of Durable's old chunks by the rule of
// riff-server on its directory store, which writes a checkpoint each
// 1,000 records, keeps the last 3, and deletes each chunk that the
// oldest kept one is past (in one batch and one flush of the directory,
// on a goroutine apart from the writer's). After each Every calls, a
// goroutine of Durable deletes each chunk whose calls lie all at least
// Keep calls behind the newest one, then flushes the directory. The
// zero Prune deletes nothing.
type Prune struct {
	Every int // calls between two prunes (riff-server: 1,000 records a checkpoint)
	Keep  int // calls kept behind the newest (riff-server: 3 checkpoints, 3,000)
	// Recycle gives the files of the pruned chunks spare names in place
	// of a delete (at most maxSpares wait; the rest are deleted), and
	// the writer writes a new chunk over a spare, in place: no new inode
	// and no new block, as riff's directory store recycles the files of
	// the objects that a prune deletes.
	Recycle bool
}

// maxSpares is the count of recycled files that wait at most (the
// maxRecycled of riff's directory store).
const maxSpares = 1024

// chunkEnd is a chunk on the disk and the count of calls up to its end.
type chunkEnd struct {
	name string
	end  int
}

type durableCall struct {
	body []byte
	done chan error
}

// NewDurable makes the server of the chunks in dir (which must exist),
// which writes reply to each call and deletes its old chunks by prune,
// and starts its writer (and its pruner, with a Prune).
func NewDurable(dir string, reply []byte, prune Prune) (*Durable, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if prune.Every < 0 || prune.Keep < 0 || (prune.Every == 0) != (prune.Keep == 0) {
		return nil, fmt.Errorf("prune every %d calls, keep %d: give both above 0, or neither", prune.Every, prune.Keep)
	}
	if prune.Recycle && prune.Every == 0 {
		return nil, errors.New("recycle with no prune: give Every and Keep")
	}
	d := &Durable{dir: dir, reply: reply, prune: prune, queue: make(chan durableCall, 1024),
		cutoffs: make(chan int, 1), closing: make(chan struct{}), stopped: make(chan struct{}),
		pruned: make(chan struct{})}
	go d.writer()
	if prune.Every > 0 {
		go d.pruner()
	} else {
		close(d.pruned)
	}
	return d, nil
}

// ServeHTTP reads the body, waits for its chunk and writes its reply.
func (d *Durable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	c := durableCall{body: body, done: make(chan error, 1)}
	select {
	case d.queue <- c:
	case <-d.stopped:
		http.Error(w, "the server stops", http.StatusServiceUnavailable)
		return
	}
	select {
	case err = <-c.done:
	case <-d.stopped:
		err = fmt.Errorf("the server stops")
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// With its length, as riff-server sends a long reply: not in chunks.
	w.Header().Set("Content-Length", strconv.Itoa(len(d.reply)))
	_, _ = w.Write(d.reply)
}

// Written gives the chunks written and the calls that they hold.
func (d *Durable) Written() (chunks, calls int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.chunks, d.calls
}

// Pruned gives the chunks deleted (or recycled), the chunks written
// over a recycled file, and the first error of a prune.
func (d *Durable) Pruned() (chunks, over int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.deleted, d.over, d.pruneErr
}

// Close stops the writer and the pruner and waits for them; the
// pruner first does the last prune the writer asked for.
func (d *Durable) Close() error {
	select {
	case <-d.closing:
	default:
		close(d.closing)
	}
	<-d.stopped
	<-d.pruned
	return nil
}

func (d *Durable) writer() {
	defer close(d.stopped)
	cd, err := openChunkDir(d.dir)
	if err != nil {
		d.failAll(err)
		return
	}
	defer cd.Close()
	var (
		batch []durableCall
		data  []byte
	)
	for n := 1; ; n++ {
		batch = batch[:0]
		select {
		case c := <-d.queue:
			batch = append(batch, c)
		case <-d.closing:
			return
		}
	gather:
		for {
			select {
			case c := <-d.queue:
				batch = append(batch, c)
			default:
				break gather
			}
		}
		data = data[:0]
		for _, c := range batch {
			data = append(data, c.body...)
			data = append(data, '\n')
		}
		name := fmt.Sprintf("%020d", n)
		var err error
		if spare, ok := d.takeSpare(); ok {
			err = cd.writeOver(spare, name, data)
			if err == nil {
				d.mu.Lock()
				d.over++
				d.mu.Unlock()
			}
		} else {
			err = cd.write(fmt.Sprintf(".tmp-%020d", n), name, data)
		}
		for _, c := range batch {
			c.done <- err
		}
		if err == nil {
			d.wrote(name, len(batch))
		}
	}
}

// wrote counts a chunk of calls calls, and asks for a prune when the
// calls passed a multiple of Prune.Every.
func (d *Durable) wrote(name string, calls int) {
	d.mu.Lock()
	before := d.calls
	d.chunks++
	d.calls += calls
	now := d.calls
	if d.prune.Every > 0 {
		d.ends = append(d.ends, chunkEnd{name: name, end: now})
	}
	d.mu.Unlock()
	if d.prune.Every == 0 || now/d.prune.Every == before/d.prune.Every {
		return
	}
	cutoff := now - d.prune.Keep
	// One prune waits at most; a newer cutoff takes the place of an
	// older one that is not yet taken.
	select {
	case d.cutoffs <- cutoff:
	default:
		select {
		case <-d.cutoffs:
		default:
		}
		d.cutoffs <- cutoff
	}
}

// pruner deletes the chunks that each cutoff leaves behind, on a
// directory descriptor of its own, until Close.
func (d *Durable) pruner() {
	defer close(d.pruned)
	cd, err := openChunkDir(d.dir)
	if err != nil {
		d.mu.Lock()
		d.pruneErr = err
		d.mu.Unlock()
		return
	}
	defer cd.Close()
	for {
		select {
		case cutoff := <-d.cutoffs:
			d.pruneTo(cd, cutoff)
		case <-d.closing:
			// The writer asks for no prune once it stops; the last one
			// it asked for is done before Close returns.
			<-d.stopped
			select {
			case cutoff := <-d.cutoffs:
				d.pruneTo(cd, cutoff)
			default:
			}
			return
		}
	}
}

// pruneTo deletes the chunks that end at or before the call cutoff.
func (d *Durable) pruneTo(cd *chunkDir, cutoff int) {
	d.mu.Lock()
	n := 0
	for n < len(d.ends) && d.ends[n].end <= cutoff {
		n++
	}
	names := make([]string, n)
	for i, c := range d.ends[:n] {
		names[i] = c.name
	}
	d.ends = d.ends[n:]
	d.mu.Unlock()
	if len(names) == 0 {
		return
	}
	var err error
	if d.prune.Recycle {
		d.mu.Lock()
		room := max(0, maxSpares-len(d.spares))
		d.mu.Unlock()
		keep := min(room, len(names))
		spares := make([]string, keep)
		for i := range spares {
			d.spareSeq++
			spares[i] = fmt.Sprintf(".spare-%020d", d.spareSeq)
		}
		err = cd.recycle(names[:keep], spares)
		if err == nil {
			err = cd.remove(names[keep:])
		}
		if err == nil {
			d.mu.Lock()
			d.spares = append(d.spares, spares...)
			d.mu.Unlock()
		}
	} else {
		err = cd.remove(names)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil {
		d.deleted += len(names)
	} else if d.pruneErr == nil {
		d.pruneErr = err
	}
}

// takeSpare gives a recycled file for the next chunk, if one waits.
func (d *Durable) takeSpare() (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.spares) == 0 {
		return "", false
	}
	name := d.spares[len(d.spares)-1]
	d.spares = d.spares[:len(d.spares)-1]
	return name, true
}

// failAll answers each call that comes with err, until Close.
func (d *Durable) failAll(err error) {
	for {
		select {
		case c := <-d.queue:
			c.done <- err
		case <-d.closing:
			return
		}
	}
}
