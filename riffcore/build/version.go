package build

import (
	"cmp"
	"fmt"
	"github.com/como-technologies/riff/riffcore/quote"
	"strconv"
	"strings"
)

// Version is a semantic version, MAJOR.MINOR.PATCH. It tells which builds
// can talk (see [Version.Line]).
type Version struct {
	Major, Minor, Patch int
}

// ParseVersion reads "1.2.3" or "v1.2.3". Each number is a decimal with no
// sign and no leading zero. The error names the bad text.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("parse version %s: want MAJOR.MINOR.PATCH", quote.Input(s))
	}
	var n [3]int
	for i, p := range parts {
		v, err := parseNumber(p)
		if err != nil {
			return Version{}, fmt.Errorf("parse version %s: %w", quote.Input(s), err)
		}
		n[i] = v
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// parseNumber reads one part of a version: decimal digits, with no sign
// and no leading zero.
func parseNumber(p string) (int, error) {
	if p == "" {
		return 0, fmt.Errorf("empty number")
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("number %s is not decimal digits", quote.Input(p))
		}
	}
	if len(p) > 1 && p[0] == '0' {
		return 0, fmt.Errorf("number %s has a leading zero", quote.Input(p))
	}
	v, err := strconv.Atoi(p)
	if err != nil {
		return 0, fmt.Errorf("number %s: %w", quote.Input(p), err)
	}
	return v, nil
}

// String gives the version with no "v": "1.2.3".
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare returns -1 when v is before w, 0 when they are equal and +1 when
// v is after w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Minor, w.Minor); c != 0 {
		return c
	}
	return cmp.Compare(v.Patch, w.Patch)
}

// Line gives the line of v: its major, and its minor while the major is 0.
func (v Version) Line() Line {
	if v.Major == 0 {
		return Line{major: 0, minor: v.Minor}
	}
	return Line{major: v.Major}
}

// lineKind tells what a [Line] holds.
type lineKind int

const (
	// lineOne is one line: a major, or 0.minor.
	lineOne lineKind = iota
	// lineZeros is every 0.x line: the line before the line 1.
	lineZeros
	// lineNone holds no version: the line before the line 0.0.
	lineNone
)

// Line is the line of a version: its major, and its minor while the major
// is 0. Versions of one line can talk (see [Talks]). Lines compare with ==.
// The zero Line is the line 0.0.
type Line struct {
	major, minor int
	kind         lineKind
}

// String gives "0.4" for a line of major 0 and "1" for a line of a major
// of 1 or more. The line before the line 1 reads "0.x", and the line
// before the line 0.0 reads "none".
func (l Line) String() string {
	switch {
	case l.kind == lineNone:
		return "none"
	case l.kind == lineZeros:
		return "0.x"
	case l.major == 0:
		return fmt.Sprintf("0.%d", l.minor)
	default:
		return strconv.Itoa(l.major)
	}
}

// Contains reports whether v is on the line l.
func (l Line) Contains(v Version) bool {
	switch l.kind {
	case lineNone:
		return false
	case lineZeros:
		return v.Major == 0
	default:
		return v.Line() == l
	}
}

// Before gives the line before l: 0.3 for 0.4, 1 for 2. The line before
// the line 1 is every 0.x line, since the last 0 line cannot be known from
// the line 1. The line 0.0, and a line that is not one line, have a line
// before that contains no version.
func (l Line) Before() Line {
	switch {
	case l.kind != lineOne:
		return Line{kind: lineNone}
	case l.major == 0 && l.minor == 0:
		return Line{kind: lineNone}
	case l.major == 0:
		return Line{minor: l.minor - 1}
	case l.major == 1:
		return Line{kind: lineZeros}
	default:
		return Line{major: l.major - 1}
	}
}

// Next gives the line after l: 0.5 for 0.4, 2 for 1. The line after a
// line that is not one line (0.x, or none) is itself.
func (l Line) Next() Line {
	switch {
	case l.kind != lineOne:
		return l
	case l.major == 0:
		return Line{minor: l.minor + 1}
	default:
		return Line{major: l.major + 1}
	}
}

// Talks reports whether a riff-server of the version server talks with a
// riff of the version client: a riff of its own line, or of the line
// before. It talks with no riff of another line, also not a newer one.
func Talks(server, client Version) bool {
	l := server.Line()
	return l.Contains(client) || l.Before().Contains(client)
}
