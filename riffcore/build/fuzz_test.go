package build

import (
	"testing"
)

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.2.3", "v1.2.3", "0.0.0", "0.4.1", "1.02.3", "1.2", "1.2.3-rc1", "v", "", "99999999999999999999.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		again, err := ParseVersion(v.String())
		if err != nil {
			t.Fatalf("ParseVersion(%q) = %v; want no error for the String of ParseVersion(%q)", v.String(), err, s)
		}
		if again != v {
			t.Fatalf("ParseVersion(%q) = %v; want %v", v.String(), again, v)
		}
		if v.String() != s && "v"+v.String() != s {
			t.Fatalf("ParseVersion(%q).String() = %q; want the same text, with no v", s, v.String())
		}
	})
}

func FuzzParseBuild(f *testing.F) {
	for _, s := range []string{
		"0.4.3 7213825ab1c2 2026-09-27T20:10:44Z",
		"v1.0.0 7213825ab1c29a1e0f5d4c3b2a190817263544f0 2026-09-27T20:10:44Z",
		"1.0.0 unknown 0001-01-01T00:00:00Z",
		"0.4.3 7213825ab1c2 2026-09-27T20:10:44.5Z",
		"0.4.3 7213825ab1c2 2026-09-27T22:10:44+02:00",
		"0.4.3  2026-09-27T20:10:44Z",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBuild(s)
		if err != nil {
			return
		}
		again, err := ParseBuild(b.String())
		if err != nil {
			t.Fatalf("ParseBuild(%q) = %v; want no error for the String of ParseBuild(%q)", b.String(), err, s)
		}
		if again.String() != b.String() {
			t.Fatalf("ParseBuild(%q).String() = %q; want %q", b.String(), again.String(), b.String())
		}
		if len(b.Commit) <= headerCommitLen && (again.Version != b.Version || again.Commit != b.Commit || !again.Time.Equal(b.Time)) {
			t.Fatalf("ParseBuild(%q) = %#v; want %#v", b.String(), again, b)
		}
	})
}
