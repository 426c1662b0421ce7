package loadtool

import (
	"fmt"
	"io"
	"net/http"
	"os"
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
// A call whose chunk fails gets a 503. Close stops the writer; the calls
// that wait then get a 503.
type Durable struct {
	dir     string
	reply   []byte
	queue   chan durableCall
	closing chan struct{}
	stopped chan struct{}

	mu     sync.Mutex
	chunks int
	calls  int
}

type durableCall struct {
	body []byte
	done chan error
}

// NewDurable makes the server of the chunks in dir (which must exist),
// which writes reply to each call, and starts its writer.
func NewDurable(dir string, reply []byte) (*Durable, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	d := &Durable{dir: dir, reply: reply, queue: make(chan durableCall, 1024),
		closing: make(chan struct{}), stopped: make(chan struct{})}
	go d.writer()
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
	_, _ = w.Write(d.reply)
}

// Written gives the chunks written and the calls that they hold.
func (d *Durable) Written() (chunks, calls int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.chunks, d.calls
}

// Close stops the writer and waits for it.
func (d *Durable) Close() error {
	select {
	case <-d.closing:
	default:
		close(d.closing)
	}
	<-d.stopped
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
		err := cd.write(fmt.Sprintf(".tmp-%020d", n), fmt.Sprintf("%020d", n), data)
		for _, c := range batch {
			c.done <- err
		}
		if err == nil {
			d.mu.Lock()
			d.chunks++
			d.calls += len(batch)
			d.mu.Unlock()
		}
	}
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
