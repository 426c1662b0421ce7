package riffstate

import "github.com/como-technologies/riff/riffcore/name"

// LastSeq gives the newest seq of the thread t in the written copy (0
// for a thread with no message): the hello line of a tail carries it, so
// that a client that opens the tail again reads after it, also in a
// thread that the caller does not list.
func (v View) LastSeq(t name.Thread) uint64 {
	if th := v.riff.Threads[t]; th != nil {
		return th.LastSeq
	}
	return 0
}
