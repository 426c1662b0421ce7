package build

import (
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Builds as a server and a client give them, with full commits: the header form
// cuts them to 12 characters.
var (
	server043 = Build{Version: Version{0, 4, 3}, Commit: "7213825ab1c29a1e0f5d4c3b2a190817263544f0", Time: time.Date(2026, 9, 27, 20, 10, 44, 0, time.UTC)}
	server040 = Build{Version: Version{0, 4, 0}, Commit: "7213825ab1c29a1e0f5d4c3b2a190817263544f0", Time: time.Date(2026, 9, 27, 20, 10, 44, 0, time.UTC)}
	client040 = Build{Version: Version{0, 4, 0}, Commit: "929605821e54aa01bb02cc03dd04ee05ff061728", Time: time.Date(2026, 9, 27, 22, 3, 1, 0, time.UTC)}
	client043 = Build{Version: Version{0, 4, 3}, Commit: "929605821e54aa01bb02cc03dd04ee05ff061728", Time: time.Date(2026, 9, 27, 22, 3, 1, 0, time.UTC)}
	client032 = Build{Version: Version{0, 3, 2}, Commit: "929605821e54aa01bb02cc03dd04ee05ff061728", Time: time.Date(2026, 9, 20, 22, 3, 1, 0, time.UTC)}
	// The mismatch example: the server's commit time is a day later.
	mismatchServer = Build{Version: Version{0, 4, 0}, Commit: "7213825ab1c29a1e0f5d4c3b2a190817263544f0", Time: time.Date(2026, 9, 28, 20, 10, 44, 0, time.UTC)}
	mismatchClient = Build{Version: Version{0, 2, 0}, Commit: "929605821e54aa01bb02cc03dd04ee05ff061728", Time: time.Date(2026, 9, 27, 22, 3, 1, 0, time.UTC)}
)

func TestBuildString(t *testing.T) {
	tests := []struct {
		name  string
		build Build
		want  string
	}{
		{"guide server", server043, "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"},
		{"guide client", client032, "0.3.2 929605821e54 2026-09-20T22:03:01Z"},
		{"short commit", Build{Version: Version{1, 0, 0}, Commit: "f45be4d", Time: time.Date(2026, 9, 29, 8, 0, 0, 0, time.UTC)}, "1.0.0 f45be4d 2026-09-29T08:00:00Z"},
		{"empty commit", Build{Version: Version{1, 2, 3}}, "1.2.3 unknown 0001-01-01T00:00:00Z"},
		{"time in another zone, with a fraction", Build{Version: Version{0, 1, 0}, Commit: "abcdef0", Time: time.Date(2026, 9, 29, 10, 0, 0, 5e8, time.FixedZone("CEST", 2*3600))}, "0.1.0 abcdef0 2026-09-29T08:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.build.String(); got != tt.want {
				t.Errorf("Build.String() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestParseBuild(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Build
		wantErr string // a part of the error; "" for no error
	}{
		{name: "guide", in: "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z", want: Build{Version: Version{0, 4, 3}, Commit: "7213825ab1c2", Time: server043.Time}},
		{name: "full commit", in: "1.0.0 7213825ab1c29a1e0f5d4c3b2a190817263544f0 2026-09-27T20:10:44Z", want: Build{Version: Version{1, 0, 0}, Commit: "7213825ab1c29a1e0f5d4c3b2a190817263544f0", Time: server043.Time}},
		{name: "unknown commit", in: "1.0.0 unknown 0001-01-01T00:00:00Z", want: Build{Version: Version{1, 0, 0}, Commit: UnknownCommit}},
		{name: "v prefix", in: "v0.4.3 7213825ab1c2 2026-09-27T20:10:44Z", want: Build{Version: Version{0, 4, 3}, Commit: "7213825ab1c2", Time: server043.Time}},
		{name: "two parts", in: "0.4.3 7213825ab1c2", wantErr: `parse build "0.4.3 7213825ab1c2": want VERSION COMMIT TIME`},
		{name: "two spaces", in: "0.4.3  7213825ab1c2 2026-09-27T20:10:44Z", wantErr: "want VERSION COMMIT TIME"},
		{name: "bad version", in: "0.4 7213825ab1c2 2026-09-27T20:10:44Z", wantErr: `parse version "0.4"`},
		{name: "upper-case commit", in: "0.4.3 7213825AB1C2 2026-09-27T20:10:44Z", wantErr: `commit "7213825AB1C2"`},
		{name: "short commit", in: "0.4.3 7213 2026-09-27T20:10:44Z", wantErr: `commit "7213"`},
		{name: "time with offset", in: "0.4.3 7213825ab1c2 2026-09-27T22:10:44+02:00", wantErr: `time "2026-09-27T22:10:44+02:00"`},
		{name: "time with fraction", in: "0.4.3 7213825ab1c2 2026-09-27T20:10:44.5Z", wantErr: `time "2026-09-27T20:10:44.5Z"`},
		{name: "bad date", in: "0.4.3 7213825ab1c2 2026-13-27T20:10:44Z", wantErr: `time "2026-13-27T20:10:44Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBuild(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseBuild(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseBuild(%q) = %v; want no error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseBuild(%q) (-want +got):\n%s", tt.in, diff)
			}
			if again := got.String(); again != strings.TrimPrefix(tt.in, "v") && len(tt.want.Commit) <= headerCommitLen {
				t.Errorf("ParseBuild(%q).String() = %q; want the same text", tt.in, again)
			}
		})
	}
}

func TestBuildDisplay(t *testing.T) {
	tests := []struct {
		name  string
		build Build
		want  string
	}{
		{"guide build", Build{Version: Version{0, 7, 0}, Commit: "3c7b1110aa", Time: time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC)}, "v0.7.0  (3c7b111, 2026-09-29)"},
		{"guide riff-server", Build{Version: Version{0, 7, 0}, Commit: "f45be4d", Time: time.Date(2026, 9, 29, 23, 59, 59, 0, time.UTC)}, "v0.7.0  (f45be4d, 2026-09-29)"},
		{"unknown commit", Build{Version: Version{1, 0, 0}}, "v1.0.0  (a build with no commit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.build.Display(); got != tt.want {
				t.Errorf("Build.Display() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestOlder(t *testing.T) {
	tests := []struct {
		name           string
		server, client Build
		want           Side
	}{
		{"server newer version", server043, client040, Client},
		{"client newer version", server040, client043, Server},
		{"same version, client later commit", server040, client040, Server},
		{"same version, server later commit", client040, server040, Client},
		{"same build", server043, server043, Neither},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Older(tt.server, tt.client); got != tt.want {
				t.Errorf("Older(%v, %v) = %v; want %v", tt.server, tt.client, got, tt.want)
			}
		})
	}
}

// TestDifferWarning compares each warning with the text of "When the
// builds differ" (MismatchURL's page), character for character.
func TestDifferWarning(t *testing.T) {
	tests := []struct {
		name           string
		server, client Build
		want           string
	}{
		{
			name:   "guide: the server is newer",
			server: server043, client: client040,
			want: "riff: riff-server runs build 0.4.3 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.4.0 929605821e54 2026-09-27T22:03:01Z. Update riff on this machine when you can.",
		},
		{
			name:   "guide: this riff is newer on the same line",
			server: server040, client: client043,
			want: "riff: riff-server runs build 0.4.0 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.4.3 929605821e54 2026-09-27T22:03:01Z. Update riff-server when you can.",
		},
		{
			name:   "guide: riff on the line before",
			server: server040, client: client032,
			want: "riff: riff-server runs build 0.4.0 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.3.2 929605821e54 2026-09-20T22:03:01Z. riff-server 0.5 will refuse riff 0.3. Update riff on this machine soon.",
		},
		{
			name:   "riff 0.x before riff-server 1",
			server: Build{Version: Version{1, 2, 0}, Commit: "7213825ab1c2", Time: server040.Time}, client: client032,
			want: "riff: riff-server runs build 1.2.0 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.3.2 929605821e54 2026-09-20T22:03:01Z. riff-server 2 will refuse riff 0.3. Update riff on this machine soon.",
		},
		{
			name:   "same version, another commit, this riff newer",
			server: server040, client: client040,
			want: "riff: riff-server runs build 0.4.0 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.4.0 929605821e54 2026-09-27T22:03:01Z. Update riff-server when you can.",
		},
		{
			name:   "same version and time, another commit",
			server: server040, client: Build{Version: server040.Version, Commit: "929605821e54", Time: server040.Time},
			want: "riff: riff-server runs build 0.4.0 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.4.0 929605821e54 2026-09-27T20:10:44Z.",
		},
		{name: "same build", server: server043, client: server043, want: ""},
		{name: "same build, commit cut in the header", server: server043, client: Build{Version: server043.Version, Commit: "7213825ab1c2", Time: server043.Time}, want: ""},
		{name: "versions that cannot talk", server: mismatchServer, client: mismatchClient, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DifferWarning(tt.server, tt.client); got != tt.want {
				t.Errorf("DifferWarning(%v, %v) =\n%q\nwant\n%q", tt.server, tt.client, got, tt.want)
			}
		})
	}
}

// TestMismatchError compares each error with the text of "When the
// versions do not match" (MismatchURL), character for character.
func TestMismatchError(t *testing.T) {
	tests := []struct {
		name           string
		server, client Build
		want           string
	}{
		{
			name:   "guide",
			server: mismatchServer, client: mismatchClient,
			want: "riff: this riff (0.2.0 929605821e54 2026-09-27T22:03:01Z) and its riff-server (0.4.0 7213825ab1c2 2026-09-28T20:10:44Z) do not match. riff-server 0.4 talks only with riff 0.4 and 0.3. Update riff on this machine, then start your sessions again. See https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match",
		},
		{
			name:   "this riff is on a newer line",
			server: mismatchServer, client: Build{Version: Version{0, 5, 0}, Commit: "929605821e54", Time: mismatchClient.Time},
			want: "riff: this riff (0.5.0 929605821e54 2026-09-27T22:03:01Z) and its riff-server (0.4.0 7213825ab1c2 2026-09-28T20:10:44Z) do not match. riff-server 0.4 talks only with riff 0.4 and 0.3. Update riff-server, then start your sessions again. See https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match",
		},
		{
			name:   "riff-server 1",
			server: Build{Version: Version{1, 0, 0}, Commit: "7213825ab1c2", Time: mismatchServer.Time}, client: Build{Version: Version{2, 0, 0}, Commit: "929605821e54", Time: mismatchClient.Time},
			want: "riff: this riff (2.0.0 929605821e54 2026-09-27T22:03:01Z) and its riff-server (1.0.0 7213825ab1c2 2026-09-28T20:10:44Z) do not match. riff-server 1 talks only with riff 1 and 0.x. Update riff-server, then start your sessions again. See https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match",
		},
		{
			name:   "riff-server 0.0 has no line before",
			server: Build{Version: Version{0, 0, 3}, Commit: "7213825ab1c2", Time: mismatchServer.Time}, client: mismatchClient,
			want: "riff: this riff (0.2.0 929605821e54 2026-09-27T22:03:01Z) and its riff-server (0.0.3 7213825ab1c2 2026-09-28T20:10:44Z) do not match. riff-server 0.0 talks only with riff 0.0. Update riff-server, then start your sessions again. See https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match",
		},
		{name: "versions that talk", server: server043, client: client032, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MismatchError(tt.server, tt.client); got != tt.want {
				t.Errorf("MismatchError(%v, %v) =\n%q\nwant\n%q", tt.server, tt.client, got, tt.want)
			}
		})
	}
}

func TestFromInfo(t *testing.T) {
	tests := []struct {
		name    string
		version string
		info    *debug.BuildInfo
		want    Build
	}{
		{name: "no build info", version: "0.4.3", want: Build{Version: Version{0, 4, 3}, Commit: UnknownCommit}},
		{name: "no build info, no version", version: "", want: Build{Commit: UnknownCommit}},
		{
			name:    "vcs settings",
			version: "v0.4.3",
			info: &debug.BuildInfo{Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "7213825ab1c29a1e0f5d4c3b2a190817263544f0"},
				{Key: "vcs.time", Value: "2026-09-27T20:10:44Z"},
				{Key: "vcs.modified", Value: "false"},
			}},
			want: server043,
		},
		{
			name:    "module version when the given one does not parse",
			version: "dev",
			info:    &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}},
			want:    Build{Version: Version{1, 2, 0}, Commit: UnknownCommit},
		},
		{
			name:    "devel module, bad settings",
			version: "",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "not hex"},
				{Key: "vcs.time", Value: "yesterday"},
			}},
			want: Build{Commit: UnknownCommit},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fromInfo(tt.version, tt.info)); diff != "" {
				t.Errorf("fromInfo(%q) (-want +got):\n%s", tt.version, diff)
			}
		})
	}
}

func TestFromBuildInfo(t *testing.T) {
	// A test binary has build info but, as a rule, no vcs settings; the
	// given version always wins.
	b := FromBuildInfo("0.4.3")
	if b.Version != (Version{0, 4, 3}) {
		t.Errorf("FromBuildInfo(%q).Version = %v; want 0.4.3", "0.4.3", b.Version)
	}
	if _, err := ParseBuild(b.String()); err != nil {
		t.Errorf("ParseBuild(FromBuildInfo().String()) = %v; want no error", err)
	}
}
