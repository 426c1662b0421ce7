package name_test

import (
	"encoding/json"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
)

var (
	mikeA6cf = name.Who{User: "mike", Session: "a6cf2205"}
	ann2545  = name.Who{User: "ann", Session: "25456ff6"}
	mike     = name.Who{User: "mike"}
	brett    = name.Who{User: "brett"}
)

func TestParseThread(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		repo    name.Repo // the repository of a repository thread
		direct  bool
		wantErr bool
	}{
		{name: "repository thread", in: "como-technologies/riff", repo: "como-technologies/riff"},
		{name: "repository with no origin", in: "local/scratch", repo: "local/scratch"},
		{name: "chat", in: "chat"},
		{name: "denials", in: "denials"},
		{name: "direct between two sessions", in: "dm:25456ff6+a6cf2205", direct: true},
		{name: "direct between a session and a person", in: "dm:a6cf2205+~mike", direct: true},
		{name: "direct between two people", in: "dm:~brett+~mike", direct: true},
		{name: "direct out of order", in: "dm:a6cf2205+25456ff6", wantErr: true},
		{name: "direct person first out of order", in: "dm:~mike+a6cf2205", wantErr: true},
		{name: "direct with itself", in: "dm:a6cf+a6cf", wantErr: true},
		{name: "relative direct needs the caller", in: "dm:a6cf", wantErr: true},
		{name: "direct with an empty side", in: "dm:+a6cf", wantErr: true},
		{name: "direct with a bad person", in: "dm:a6cf+~", wantErr: true},
		{name: "direct with three sides", in: "dm:a+b+c", wantErr: true},
		{name: "outside git is no thread", in: "-", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "a word", in: "general", wantErr: true},
		{name: "Chat in capitals", in: "Chat", wantErr: true},
		{name: "three parts", in: "o/r/x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := name.ParseThread(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseThread(%q) = %q, %v; want error %v", tt.in, got, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if string(got) != tt.in {
				t.Errorf("ParseThread(%q) = %q; want %q", tt.in, got, tt.in)
			}
			if got.IsDirect() != tt.direct {
				t.Errorf("ParseThread(%q).IsDirect() = %v; want %v", tt.in, got.IsDirect(), tt.direct)
			}
			repo, ok := got.Repo()
			if repo != tt.repo || ok != (tt.repo != "") {
				t.Errorf("ParseThread(%q).Repo() = %q, %v; want %q, %v", tt.in, repo, ok, tt.repo, tt.repo != "")
			}
		})
	}
}

// The canonical name of a direct thread does not depend on which side
// names it: the two sides are sorted.
func TestDirectCanonicalOrder(t *testing.T) {
	tests := []struct {
		a, b name.Who
		want name.Thread
	}{
		{mikeA6cf, ann2545, "dm:25456ff6+a6cf2205"},
		{mikeA6cf, mike, "dm:a6cf2205+~mike"},
		{mike, brett, "dm:~brett+~mike"},
	}
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			if got := name.DirectWith(tt.a, tt.b); got != tt.want {
				t.Errorf("DirectWith(%v, %v) = %q; want %q", tt.a, tt.b, got, tt.want)
			}
			if got := name.DirectWith(tt.b, tt.a); got != tt.want {
				t.Errorf("DirectWith(%v, %v) = %q; want %q", tt.b, tt.a, got, tt.want)
			}
			if got, err := name.ParseThread(string(tt.want)); err != nil || got != tt.want {
				t.Errorf("ParseThread(%q) = %q, %v; want it back", tt.want, got, err)
			}
		})
	}
}

func TestParseThreadFor(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		me      name.Who
		want    name.Thread
		wantErr bool
	}{
		{name: "session names a session", in: "dm:25456ff6", me: mikeA6cf, want: "dm:25456ff6+a6cf2205"},
		{name: "session names a person", in: "dm:~ann", me: mikeA6cf, want: "dm:a6cf2205+~ann"},
		{name: "person names a session", in: "dm:a6cf2205", me: brett, want: "dm:a6cf2205+~brett"},
		{name: "person names a person", in: "dm:~mike", me: brett, want: "dm:~brett+~mike"},
		{name: "session names itself", in: "dm:a6cf2205", me: mikeA6cf, wantErr: true},
		{name: "person names itself", in: "dm:~mike", me: mike, wantErr: true},
		{name: "empty peer", in: "dm:", me: mikeA6cf, wantErr: true},
		{name: "bad peer", in: "dm:a b", me: mikeA6cf, wantErr: true},
		{name: "canonical form", in: "dm:25456ff6+a6cf2205", me: mikeA6cf, want: "dm:25456ff6+a6cf2205"},
		{name: "canonical form out of order", in: "dm:a6cf2205+25456ff6", me: mikeA6cf, wantErr: true},
		{name: "repository thread", in: "como-technologies/riff", me: mikeA6cf, want: "como-technologies/riff"},
		{name: "chat", in: "chat", me: brett, want: name.Chat},
		{name: "denials", in: "denials", me: brett, want: name.Denials},
		{name: "bad name", in: "riff", me: brett, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := name.ParseThreadFor(tt.in, tt.me)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseThreadFor(%q, %v) = %q, %v; want %q, error %v", tt.in, tt.me, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// For, Peer and Has move between the canonical name and the name that
// one side uses, dm:PEER.
func TestThreadForPeerHas(t *testing.T) {
	dm := name.DirectWith(mikeA6cf, mike) // dm:a6cf2205+~mike
	tests := []struct {
		name    string
		thread  name.Thread
		me      name.Who
		has     bool
		peer    name.Party
		forName string
	}{
		{"the session side", dm, mikeA6cf, true, "~mike", "dm:~mike"},
		{"the person side", dm, mike, true, "a6cf2205", "dm:a6cf2205"},
		{"not a side", dm, ann2545, false, "", string(dm)},
		{"a person of the same user is another side", dm, name.Who{User: "mike", Session: "other"}, false, "", string(dm)},
		{"repository thread", "o/r", mikeA6cf, false, "", "o/r"},
		{"chat", name.Chat, mike, false, "", "chat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.thread.Has(tt.me); got != tt.has {
				t.Errorf("Thread(%q).Has(%v) = %v; want %v", tt.thread, tt.me, got, tt.has)
			}
			peer, ok := tt.thread.Peer(tt.me)
			if peer != tt.peer || ok != tt.has {
				t.Errorf("Thread(%q).Peer(%v) = %q, %v; want %q, %v", tt.thread, tt.me, peer, ok, tt.peer, tt.has)
			}
			got := tt.thread.For(tt.me)
			if got != tt.forName {
				t.Errorf("Thread(%q).For(%v) = %q; want %q", tt.thread, tt.me, got, tt.forName)
			}
			if back, err := name.ParseThreadFor(got, tt.me); err != nil || back != tt.thread {
				t.Errorf("ParseThreadFor(%q, %v) = %q, %v; want %q", got, tt.me, back, err, tt.thread)
			}
		})
	}
	a, b, ok := dm.Sides()
	if a != "a6cf2205" || b != "~mike" || !ok {
		t.Errorf("Thread(%q).Sides() = %q, %q, %v; want a6cf2205, ~mike, true", dm, a, b, ok)
	}
	if user, ok := b.Person(); user != "mike" || !ok {
		t.Errorf("Party(~mike).Person() = %q, %v; want mike, true", user, ok)
	}
	if _, ok := a.Person(); ok {
		t.Errorf("Party(a6cf2205).Person() = _, true; want false")
	}
}

func TestThreadItemRepoJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		into    json.Unmarshaler
		wantErr bool
	}{
		{"thread", `"o/r"`, new(name.Thread), false},
		{"direct thread", `"dm:25456ff6+a6cf2205"`, new(name.Thread), false},
		{"relative direct thread", `"dm:25456ff6"`, new(name.Thread), true},
		{"thread not a string", `7`, new(name.Thread), true},
		{"item", `"issue-12"`, new(name.Item), false},
		{"bad item", `"issue 12"`, new(name.Item), true},
		{"item not a string", `null`, new(name.Item), true},
		{"repo", `"local/x"`, new(name.Repo), false},
		{"outside git", `"-"`, new(name.Repo), false},
		{"bad repo", `"x"`, new(name.Repo), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.into.UnmarshalJSON([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Errorf("UnmarshalJSON(%s) = %v; want error %v", tt.in, err, tt.wantErr)
			}
		})
	}
}
