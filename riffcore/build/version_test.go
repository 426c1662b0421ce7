package build

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Version
		wantErr string
	}{
		{name: "plain", in: "1.2.3", want: Version{1, 2, 3}},
		{name: "v prefix", in: "v1.2.3", want: Version{1, 2, 3}},
		{name: "zeros", in: "0.0.0", want: Version{}},
		{name: "large", in: "10.200.3000", want: Version{10, 200, 3000}},
		{name: "two parts", in: "1.2", wantErr: `parse version "1.2": want MAJOR.MINOR.PATCH`},
		{name: "four parts", in: "1.2.3.4", wantErr: `parse version "1.2.3.4": want MAJOR.MINOR.PATCH`},
		{name: "empty", in: "", wantErr: `parse version "": want MAJOR.MINOR.PATCH`},
		{name: "empty part", in: "1..3", wantErr: `parse version "1..3": empty number`},
		{name: "pre-release", in: "1.2.3-rc1", wantErr: `parse version "1.2.3-rc1": number "3-rc1" is not decimal digits`},
		{name: "sign", in: "+1.2.3", wantErr: `number "+1" is not decimal digits`},
		{name: "leading zero", in: "1.02.3", wantErr: `number "02" has a leading zero`},
		{name: "two v", in: "vv1.2.3", wantErr: `parse version "vv1.2.3"`},
		{name: "capital V", in: "V1.2.3", wantErr: `parse version "V1.2.3"`},
		{name: "overflow", in: "1.2.99999999999999999999", wantErr: `number "99999999999999999999"`},
		{name: "space", in: " 1.2.3", wantErr: `parse version " 1.2.3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVersion(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseVersion(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseVersion(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if s := got.String(); s != strings.TrimPrefix(tt.in, "v") {
				t.Errorf("ParseVersion(%q).String() = %q; want %q", tt.in, s, strings.TrimPrefix(tt.in, "v"))
			}
		})
	}
}

func TestVersionCompare(t *testing.T) {
	tests := []struct {
		name string
		v, w Version
		want int
	}{
		{"equal", Version{1, 2, 3}, Version{1, 2, 3}, 0},
		{"patch", Version{1, 2, 3}, Version{1, 2, 4}, -1},
		{"minor over patch", Version{1, 3, 0}, Version{1, 2, 9}, 1},
		{"major over minor", Version{1, 0, 0}, Version{0, 9, 9}, 1},
		{"numbers, not text", Version{0, 10, 0}, Version{0, 9, 0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.Compare(tt.w); got != tt.want {
				t.Errorf("%v.Compare(%v) = %d; want %d", tt.v, tt.w, got, tt.want)
			}
			if got := tt.w.Compare(tt.v); got != -tt.want {
				t.Errorf("%v.Compare(%v) = %d; want %d", tt.w, tt.v, got, -tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name               string
		v                  Version
		line, before, next string
	}{
		{"guide 0.4.1", Version{0, 4, 1}, "0.4", "0.3", "0.5"},
		{"guide 1.2.0", Version{1, 2, 0}, "1", "0.x", "2"},
		{"0.1", Version{0, 1, 7}, "0.1", "0.0", "0.2"},
		{"0.0 has no line before", Version{0, 0, 3}, "0.0", "none", "0.1"},
		{"2", Version{2, 5, 1}, "2", "1", "3"},
		{"10", Version{10, 0, 0}, "10", "9", "11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.v.Line()
			if got := l.String(); got != tt.line {
				t.Errorf("%v.Line() = %q; want %q", tt.v, got, tt.line)
			}
			if got := l.Before().String(); got != tt.before {
				t.Errorf("%v.Line().Before() = %q; want %q", tt.v, got, tt.before)
			}
			if got := l.Next().String(); got != tt.next {
				t.Errorf("%v.Line().Next() = %q; want %q", tt.v, got, tt.next)
			}
			if !l.Contains(tt.v) {
				t.Errorf("%v.Line().Contains(%v) = false; want true", tt.v, tt.v)
			}
			if l.Before().Contains(tt.v) || l.Next().Contains(tt.v) {
				t.Errorf("the line before or after %v contains %v; want neither", l, tt.v)
			}
		})
	}
}

func TestLineOfSameLine(t *testing.T) {
	tests := []struct {
		name string
		v, w Version
		same bool
	}{
		{"guide: 0.4.1 and 0.4.0", Version{0, 4, 1}, Version{0, 4, 0}, true},
		{"0.4 and 0.5", Version{0, 4, 1}, Version{0, 5, 0}, false},
		{"guide: 1.2.0 and 1.0.0", Version{1, 2, 0}, Version{1, 0, 0}, true},
		{"1 and 2", Version{1, 2, 0}, Version{2, 0, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.Line() == tt.w.Line(); got != tt.same {
				t.Errorf("%v.Line() == %v.Line() = %v; want %v", tt.v, tt.w, got, tt.same)
			}
		})
	}
}

func TestTalks(t *testing.T) {
	tests := []struct {
		name           string
		server, client Version
		want           bool
	}{
		// Versions near each other, and far.
		{"server newer on the line", Version{0, 4, 3}, Version{0, 4, 0}, true},
		{"riff newer on the line", Version{0, 4, 0}, Version{0, 4, 3}, true},
		{"riff on the line before", Version{0, 4, 0}, Version{0, 3, 2}, true},
		{"riff two lines before", Version{0, 4, 0}, Version{0, 2, 0}, false},
		{"server 0.5 refuses riff 0.3", Version{0, 5, 0}, Version{0, 3, 2}, false},
		// A riff of a newer line: no line but its own and the one before.
		{"riff on the next line", Version{0, 4, 0}, Version{0, 5, 0}, false},
		{"riff on the next major", Version{1, 0, 0}, Version{2, 0, 0}, false},
		// Majors.
		{"server 2, riff 2", Version{2, 3, 0}, Version{2, 0, 1}, true},
		{"server 2, riff 1", Version{2, 0, 0}, Version{1, 9, 9}, true},
		{"server 3, riff 1", Version{3, 0, 0}, Version{1, 9, 9}, false},
		{"server 2, riff 0.9", Version{2, 0, 0}, Version{0, 9, 0}, false},
		// The line before the line 1 is every 0.x line.
		{"server 1, riff 0.9", Version{1, 0, 0}, Version{0, 9, 0}, true},
		{"server 1, riff 0.1", Version{1, 4, 0}, Version{0, 1, 0}, true},
		// The line 0.0 has no line before.
		{"server 0.0, riff 0.0", Version{0, 0, 2}, Version{0, 0, 1}, true},
		{"server 0.1, riff 0.0", Version{0, 1, 0}, Version{0, 0, 9}, true},
		{"server 0.0, riff 0.1", Version{0, 0, 9}, Version{0, 1, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Talks(tt.server, tt.client); got != tt.want {
				t.Errorf("Talks(%v, %v) = %v; want %v", tt.server, tt.client, got, tt.want)
			}
		})
	}
}
