package main

import (
	"hash/fnv"

	"github.com/como-technologies/riff/riffclient/render"
)

// The colors of riff: the look in a terminal of each style of the texts
// of riffclient/render, and of the lines of stderr.
const (
	green  = "32"
	yellow = "33"
	red    = "31"
	dim    = "2"
	bold   = "1"
)

// sessionColors are the colors of the sessions: each session has the
// same color in riff who, riff read and riff tail. Green, yellow and red
// are not among them: they say running, a warning and an error.
var sessionColors = [...]string{"36", "35", "34", "94", "95", "96"}

// paintPart gives a part of a text in the color of its style: the Paint
// of the printer of a command whose output takes color. A name (the
// style Named) takes the color of its session.
func paintPart(p render.Part) string {
	code := ""
	switch p.Style {
	case render.Good:
		code = green
	case render.Warn:
		code = yellow
	case render.Bad:
		code = red
	case render.Faint:
		code = dim
	case render.Strong:
		code = bold
	case render.Named:
		code = sessionColor(p.Who)
	case render.Person:
		code = bold + ";" + sessionColor(p.Who)
	}
	return paint(code, p.Text)
}

// paint colors a text with the SGR code of a color.
func paint(code, s string) string {
	if code == "" || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// sessionColor gives the color of a session or a person.
func sessionColor(key string) string {
	h := fnv.New32a()
	h.Write([]byte(key))
	return sessionColors[h.Sum32()%uint32(len(sessionColors))]
}

// clean is render.Clean: no escape sequence of a text of the server or
// of a message reaches the terminal.
func clean(s string) string { return render.Clean(s) }
