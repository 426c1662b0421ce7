// Package riffengine holds the engine of riff-server: the one dispatch
// path of each command, the group-commit writer, the effects, the timers,
// the HTTP routes and streams, and the start and stop order.
//
// It is the only code that locks the state. It never decides a rule of
// the riff: riffstate does.
package riffengine
