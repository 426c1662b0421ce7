package riffengine

// QueueLen gives the number of entries that wait in the queue of the
// writer (not the chunk that it writes now). The tests use it to know
// that a call reached the queue, instead of sleeping.
func (e *Engine) QueueLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

// HeaderBuildKey is the key under which the server sets riff-build.
const HeaderBuildKey = headerBuild
