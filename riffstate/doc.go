// Package riffstate holds the state of a riff: the riff (what the log
// gives) and the presence (memory); apply, which stores what a record
// says; each command as a type with handle and reply; permits; signals;
// views; the kept calls; and the checkpoint encoding.
//
// It is pure: it does no I/O, reads no clock and never logs. Time and
// IDs come in as values.
package riffstate
