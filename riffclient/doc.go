// Package riffclient is the client of riff-server: one generic call
// function with call IDs, retries within a budget, build checks, and
// streams that reconnect.
//
// It never decides a rule of the riff and never prints: the command line
// shows what it returns.
package riffclient
