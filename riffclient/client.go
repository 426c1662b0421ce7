package riffclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The time limits of a call.
const (
	// Budget is the longest time of one call, from its first try to its
	// end.
	Budget = 60 * time.Second
	// FirstWait and LastWait bound the wait before a new try: it doubles
	// from FirstWait to LastWait, as the guide says ("How long a command
	// waits for the server"), within the same budget. At a deploy the new
	// instance serves 15 s after the old one read its lease: a wait of
	// 5 s puts the first try after the opening at most 5 s late, within
	// the 20 s that docs/operations.md promises each call.
	FirstWait = 250 * time.Millisecond
	LastWait  = 5 * time.Second
	// WaitLine is the wait after which a call prints (waits for
	// riff-server…) once.
	WaitLine = time.Second
	// Stall is the longest time with no byte on a stream: then riff drops
	// it and opens it again. The server sends a keep-alive each 15 s.
	Stall = 45 * time.Second
)

// WaitText is the line that a call prints once after WaitLine.
const WaitText = "(waits for riff-server…)"

// maxReply is the largest reply body that a call reads.
const maxReply = 16 << 20

// Clock is the time of a Client: the budget of a call and the waits
// between tries. Tests give one whose Sleep returns at once and moves
// Now.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends: then it returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the clock of the machine.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Options are the settings of a Client. The zero value of each field
// is its default.
type Options struct {
	// Build is the build of this riff. Each call names it.
	Build build.Build
	// HTTP sends the tries; nil is a client with no overall timeout (the
	// budget and the stall limit end a try) on [NewTransport], whose
	// HTTP/2 connections send a ping after 10 s with no frame and are
	// dropped with no answer in 5 s.
	HTTP *http.Client
	// Out gets the line (waits for riff-server…) and the warning of
	// different builds. Nil drops them.
	Out io.Writer
	// Clock runs the budget and the waits; nil is the clock of the
	// machine.
	Clock Clock
	// Budget of one call; 0 is [Budget].
	Budget time.Duration
	// Stall is the limit of a stream with no byte; 0 is [Stall].
	Stall time.Duration
	// ReconnectWait is the wait of a stream after a version mismatch
	// before it tries again; 0 is 5 s.
	ReconnectWait time.Duration
	// Auth is the sign-in of the machine; nil sends no token.
	Auth Auth
}

// Client talks to one riff-server. It is safe for concurrent use.
type Client struct {
	server *url.URL
	build  build.Build
	http   *http.Client
	out    io.Writer
	clock  Clock
	budget time.Duration
	stall  time.Duration
	retry  time.Duration
	auth   Auth

	mu      sync.Mutex
	replied bool // a reply came from the server
	warned  bool // the warning of different builds is printed
}

// New makes a client of the server at u (see [ParseServer]).
func New(u *url.URL, o Options) *Client {
	c := &Client{
		server: u,
		build:  o.Build,
		http:   o.HTTP,
		out:    o.Out,
		clock:  o.Clock,
		budget: o.Budget,
		stall:  o.Stall,
		retry:  o.ReconnectWait,
		auth:   o.Auth,
	}
	if c.http == nil {
		c.http = &http.Client{Transport: NewTransport()}
	}
	if c.out == nil {
		c.out = io.Discard
	}
	if c.clock == nil {
		c.clock = realClock{}
	}
	if c.budget <= 0 {
		c.budget = Budget
	}
	if c.stall <= 0 {
		c.stall = Stall
	}
	if c.retry <= 0 {
		c.retry = 5 * time.Second
	}
	return c
}

// Server gives the URL of the server.
func (c *Client) Server() *url.URL { return c.server }

// Build gives the build of this riff, which each call names: the
// keep-alive of a relay tells it the server too.
func (c *Client) Build() build.Build { return c.build }

// ReachError is a refused connect to a server that never replied to this
// Client: riff-server does not run there.
type ReachError struct {
	URL string
	Err error
}

func (e *ReachError) Error() string { return "cannot reach riff-server at " + e.URL }
func (e *ReachError) Unwrap() error { return e.Err }

// NoReplyError is the end of the budget of a call with no reply.
type NoReplyError struct {
	URL    string
	Budget time.Duration
	// Last is the fault of the last try.
	Last error
}

func (e *NoReplyError) Error() string {
	return fmt.Sprintf("riff-server at %s gave no reply in %s", e.URL, seconds(e.Budget))
}
func (e *NoReplyError) Unwrap() error { return e.Last }

func seconds(d time.Duration) string {
	if d == time.Second {
		return "1 second"
	}
	return fmt.Sprintf("%g seconds", d.Seconds())
}

// MismatchError says that this riff and the server cannot talk: their
// versions are on lines that do not talk, or the reply named no build.
// Its text says which builds differ and what to do (docs/cli.md, the exit
// codes and the mismatch of builds).
type MismatchError struct {
	// Server is the build of the server, when the reply named one.
	Server *build.Build
	Client build.Build
	Text   string
}

func (e *MismatchError) Error() string { return e.Text }

// ReplyError is a reply that is neither a result nor a refusal, for
// example 500 or 404.
type ReplyError struct {
	URL    string
	Status string
	Body   string
	// again marks a 502 or 503 of the server: a new try may get a
	// result.
	again bool
}

func (e *ReplyError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("riff-server replied %s to %s", e.Status, e.URL)
	}
	return fmt.Sprintf("riff-server replied %s to %s: %s", e.Status, e.URL, e.Body)
}

// FrontEndError is a reply that a front end of the server gave by itself
// (a 5xx or 429 with no riff-build), for example Cloud Run while it has
// no instance. A call tries it again; [Client.Facts] does not.
type FrontEndError struct {
	URL    string
	Status string
	Body   string
}

func (e *FrontEndError) Error() string {
	return fmt.Sprintf("riff-server does not answer: the front end of %s replied %s by itself", e.URL, e.Status)
}

// Send sends one call and decodes its reply. Each try carries the same
// call ID, so the server runs the command once.
//
// The error is a *[wire.Refused] for a refusal, a [*MismatchError] when the
// builds cannot talk, a [*ReachError] when no server listens and none
// replied before, a [*NoReplyError] at the end of the budget, a
// [*ReplyError] for another reply, or the error of ctx.
//
// With [Options.Auth], each try carries the token of the caller of the
// call and a new DPoP proof; a refusal bad_token goes to [Auth.Refused],
// and one more try follows when it says so. A fault of the Auth before a
// try is an [*AuthError].
func Send[R any](ctx context.Context, c *Client, call wire.Call[R]) (R, error) {
	return send(ctx, c, call, c.proverOf(call))
}

// send is Send with the prover of the call.
func send[R any](ctx context.Context, c *Client, call wire.Call[R], p *prover) (R, error) {
	var reply R
	body, err := json.Marshal(call)
	if err != nil {
		return reply, fmt.Errorf("send %s: %w", call.Path(), err)
	}
	raw, err := c.doOnce(ctx, http.MethodPost, call.Path(), body, true, p)
	if err != nil {
		return reply, err
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return reply, fmt.Errorf("decode the reply of %s: %w", call.Path(), err)
	}
	return reply, nil
}

// Facts asks the server for its facts with GET /v1/server. The server
// answers it also while it replies 503 to each other call. A reply of a
// front end (a [*FrontEndError]) gets no new try: riff server says that
// the server does not answer, and the person runs it again.
func (c *Client) Facts(ctx context.Context) (wire.ServerFacts, error) {
	var facts wire.ServerFacts
	// A riff with sign-in gives its facts only to a person who is signed
	// in: the call carries the person token.
	p := &prover{auth: c.auth}
	raw, err := c.doOnce(ctx, http.MethodGet, wire.Server{}.Path(), nil, false, p)
	if err != nil {
		return facts, err
	}
	if err := json.Unmarshal(raw, &facts); err != nil {
		return facts, fmt.Errorf("decode the facts of the server: %w", err)
	}
	return facts, nil
}

// NewCallID makes a call ID: 16 random bytes in hex.
func NewCallID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// endpoint gives the URL of a path under the server.
func (c *Client) endpoint(path string) string {
	u := *c.server
	u.Path = strings.TrimRight(u.Path, "/") + path
	return u.String()
}

// doOnce runs the tries of one call within the budget, and gives the
// body of its reply; frontEnd says whether a reply of a front end gets a
// new try, p sets the headers of the sign-in on each try.
func (c *Client) doOnce(ctx context.Context, method, path string, body []byte, frontEnd bool, p *prover) ([]byte, error) {
	id := NewCallID()
	start := c.clock.Now()
	deadline := start.Add(c.budget)
	wait := FirstWait
	w := c.waiter()
	defer w.finish()
	var last error
	// againToken: one more try after a refused token, once per call.
	againToken := true
	for {
		left := deadline.Sub(c.clock.Now())
		if left <= 0 {
			return nil, &NoReplyError{URL: c.server.String(), Budget: c.budget, Last: last}
		}
		stop := w.after(WaitLine - c.clock.Now().Sub(start))
		raw, token, retry, err := c.try(ctx, method, path, id, body, left, p)
		stop()
		if err == nil {
			return raw, nil
		}
		if againToken && c.refused(ctx, p, token, err) {
			againToken = false
			continue
		}
		var front *FrontEndError
		if !retry || !frontEnd && errors.As(err, &front) {
			return nil, err
		}
		last = err
		if ctx.Err() != nil {
			return nil, fmt.Errorf("call %s: %w", path, ctx.Err())
		}
		left = deadline.Sub(c.clock.Now())
		if left <= 0 {
			return nil, &NoReplyError{URL: c.server.String(), Budget: c.budget, Last: last}
		}
		d := min(wait, left)
		if c.clock.Now().Add(d).Sub(start) >= WaitLine {
			w.print()
		}
		if err := c.clock.Sleep(ctx, d); err != nil {
			return nil, fmt.Errorf("call %s: %w", path, err)
		}
		wait = min(2*wait, LastWait)
	}
}

// try sends one try. retry says whether a new try may help.
// token is the token that the try sent.
func (c *Client) try(ctx context.Context, method, path, id string, body []byte, left time.Duration, p *prover) (raw []byte, token string, retry bool, err error) {
	tctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(tctx, method, c.endpoint(path), reader)
	if err != nil {
		return nil, "", false, fmt.Errorf("call %s: %w", path, err)
	}
	c.header(req, id, body != nil)
	token, err = c.prove(ctx, p, req)
	if err != nil {
		return nil, "", false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, token, c.retryConnect(ctx, err), c.connectError(ctx, path, err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		// The connection was cut in the body.
		return nil, token, ctx.Err() == nil, fmt.Errorf("read the reply of %s: %w", path, err)
	}
	if err := c.check(resp, path, raw, p.anyBuild); err != nil {
		var retry *retryable
		if errors.As(err, &retry) {
			return nil, token, true, retry.err
		}
		return nil, token, false, err
	}
	return raw, token, false, nil
}

// header sets the headers of riff on a request.
func (c *Client) header(req *http.Request, id string, hasBody bool) {
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(wire.HeaderCall, id)
	req.Header.Set(wire.HeaderBuild, c.build.String())
}

// retryConnect says whether a failed connect may get a new try: each
// fault but a refused connect to a server that never replied, and the
// end of ctx.
func (c *Client) retryConnect(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.replied
	}
	return true
}

// connectError gives the error of a try with no reply.
func (c *Client) connectError(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("call %s: %w", path, ctx.Err())
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return &ReachError{URL: c.server.String(), Err: err}
	}
	return fmt.Errorf("call %s: %w", path, err)
}

// retryable marks a reply that gets a new try.
type retryable struct{ err error }

func (r *retryable) Error() string { return r.err.Error() }

// check reads the status and the headers of a reply: the build, a
// refusal, a reply to try again.
//
// A reply with no riff-build came from a front end of the server, not
// from riff-server: Cloud Run replies 500 or 429 by itself for a few
// seconds after an old instance exits, and 502 while it moves one. Each
// such 5xx or 429 is tried again, as a 503 of riff-server is. A 500 or
// 429 that names a build is the server's own answer: no new try.
//
// anyBuild lets a reply through when the builds do not talk (the calls of
// riff login): the warning of different builds is printed in its place.
func (c *Client) check(resp *http.Response, path string, raw []byte, anyBuild bool) error {
	url := c.endpoint(path)
	busy := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
	header := resp.Header.Get(wire.HeaderBuild)
	if header == "" && busy {
		return &retryable{err: &FrontEndError{URL: url, Status: resp.Status, Body: cutText(reason(raw), 200)}}
	}
	if header == "" {
		return &MismatchError{Client: c.build,
			Text: fmt.Sprintf("no riff build in the reply: status %s from %s", resp.Status, url)}
	}
	server, err := build.ParseBuild(header)
	if err != nil {
		return &MismatchError{Client: c.build,
			Text: fmt.Sprintf("no riff build in the reply: riff-build %q with status %s from %s", header, resp.Status, url)}
	}
	c.mu.Lock()
	c.replied = true
	c.mu.Unlock()
	if text := build.MismatchError(server, c.build); text != "" && !anyBuild {
		return &MismatchError{Server: &server, Client: c.build, Text: text}
	}
	c.warnDiffer(server)
	if code := resp.Header.Get(wire.HeaderRefused); code != "" {
		return &wire.Refused{Code: wire.Code(code), Reason: reason(raw), Status: resp.StatusCode}
	}
	if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway {
		return &retryable{err: &ReplyError{URL: url, Status: resp.Status, Body: reason(raw), again: true}}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The text of riff-server itself: whole, as each text of riff.
		return &ReplyError{URL: url, Status: resp.Status, Body: reason(raw)}
	}
	return nil
}

// warnDiffer prints the warning of different builds once per Client.
func (c *Client) warnDiffer(server build.Build) {
	text := build.DifferWarning(server, c.build)
	if text == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned {
		return
	}
	c.warned = true
	fmt.Fprintln(c.out, text)
}

// reason reads the reason of a refusal: the text of the body, or the
// field reason or text of a JSON body.
func reason(raw []byte) string {
	var fields struct {
		Reason string `json:"reason"`
		Text   string `json:"text"`
		Error  string `json:"error"`
	}
	if json.Unmarshal(raw, &fields) == nil {
		for _, s := range []string{fields.Reason, fields.Text, fields.Error} {
			if s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(string(raw))
}

// cutText cuts the body of a reply of a front end (it can send a whole
// page) to n bytes, at the start of a rune.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// waiter prints the wait line at most once for one call. A timer prints
// it while one try hangs; the loop prints it before a long wait.
type waiter struct {
	c    *Client
	mu   sync.Mutex
	done bool
	said bool
}

func (c *Client) waiter() *waiter { return &waiter{c: c} }

func (w *waiter) print() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.said {
		return
	}
	w.said = true
	fmt.Fprintln(w.c.out, WaitText)
}

// after prints the line when a try still runs after d; stop ends the
// timer.
func (w *waiter) after(d time.Duration) (stop func()) {
	if d <= 0 {
		w.print()
		return func() {}
	}
	t := time.AfterFunc(d, w.print)
	return func() { t.Stop() }
}

// finish ends the call: no line comes after it.
func (w *waiter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
}
