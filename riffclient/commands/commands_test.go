package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/commands"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

// caller gives a Caller of a server that answers each call with reply
// and counts the calls, and the text that it prints.
func caller(t *testing.T, reply func(path string) any) (commands.Caller, *strings.Builder, *[]string) {
	t.Helper()
	var paths []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		paths = append(paths, r.URL.Path)
		w.Header().Set(wire.HeaderBuild, testBuild)
		json.NewEncoder(w).Encode(reply(r.URL.Path))
	}))
	t.Cleanup(hs.Close)
	u, _ := riffclient.ParseServer(hs.URL)
	b, _ := build.ParseBuild(testBuild)
	var out strings.Builder
	return commands.Caller{
		Client: riffclient.New(u, riffclient.Options{Build: b}),
		Me: func(context.Context) (name.SessionURI, error) {
			return name.SessionURI{User: "mike", Host: "pangolin"}, nil
		},
		Out: render.NewPrinter(&out, render.Options{}),
	}, &out, &paths
}

func TestGivenABadInputOfACommandWhenItRunsThenItIsAnInputErrorThatNamesItAndNoCallGoesOut(t *testing.T) {
	c, out, paths := caller(t, func(string) any { return wire.TextReply{Text: "ok"} })
	ctx := context.Background()
	for _, tc := range []struct {
		run  func() error
		want string
	}{
		{func() error { return c.Post(ctx, "", nil, "", "hi") }, `riff post: --kind is message, note or status, not ""`},
		{func() error { return c.Post(ctx, "", []string{"colour=red"}, "message", "hi") }, `riff post: --to: riff knows no field "colour"`},
		{func() error { return c.Post(ctx, "", nil, "note", "") }, "riff post needs a TEXT"},
		{func() error { return c.Claim(ctx, "", "") }, "riff claim: bad item: it is empty"},
		{func() error { return c.Release(ctx, "", "a b", "") }, `riff release: bad item "a b"`},
		{func() error { return c.Free(ctx, "", "") }, "riff plan free: bad item"},
		{func() error { return c.Blocked(ctx, "") }, "riff blocked needs a TEXT"},
		{func() error { return c.Pause(ctx, false, true, "acme/app") }, "riff resume takes --riff or --repo, not both"},
	} {
		err := tc.run()
		var input *commands.InputError
		if !errors.As(err, &input) || !strings.HasPrefix(input.Msg, tc.want) {
			t.Errorf("got %v; want the input error %q", err, tc.want)
		}
	}
	if len(*paths) != 0 || out.Len() != 0 {
		t.Errorf("bad inputs sent %v and printed %q", *paths, out.String())
	}
}

func TestGivenAStatusRequestWithNoTextWhenItIsPostedThenItGoesOut(t *testing.T) {
	c, out, paths := caller(t, func(string) any { return wire.PostReply{Thread: "acme/app", Seq: 7} })
	if err := c.Post(context.Background(), "", []string{"repo=acme/app"}, "status", ""); err != nil {
		t.Fatal(err)
	}
	if len(*paths) != 1 || out.String() != "Posted #7 in acme/app.\n" {
		t.Errorf("a status request sent %v and printed %q", *paths, out.String())
	}
}

func TestGivenALongBadInputWhenACommandRefusesItThenTheErrorRepeatsAtMostAShortCutOfIt(t *testing.T) {
	c, _, paths := caller(t, func(string) any { return wire.TextReply{Text: "ok"} })
	ctx := context.Background()
	long := strings.Repeat("Q", 60_000)
	for what, run := range map[string]func() error{
		"a kind":           func() error { return c.Post(ctx, "", nil, long, "hi") },
		"a selector":       func() error { return c.Post(ctx, "", []string{long}, "message", "hi") },
		"a selector field": func() error { return c.Post(ctx, "", []string{long + "=x"}, "message", "hi") },
		"a selector value": func() error { return c.Post(ctx, "", []string{"lead=" + long}, "message", "hi") },
		"a repository":     func() error { return c.Pause(ctx, false, false, long) },
		"an item of claim": func() error { return c.Claim(ctx, "", long) },
	} {
		err := run()
		if err == nil {
			t.Errorf("%s of 60 KB: no error", what)
			continue
		}
		if n := strings.Count(err.Error(), "Q"); n > 64 {
			t.Errorf("%s of 60 KB: the error repeats %d characters of it: %.120s", what, n, err)
		}
	}
	if len(*paths) != 0 {
		t.Errorf("bad inputs sent %v", *paths)
	}
}
