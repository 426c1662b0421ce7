// Package gcs holds a [rifflog.Store] in a Google Cloud Storage bucket,
// with cloud.google.com/go/storage.
//
// Every Put sends the precondition "does not exist" (ifGenerationMatch=0),
// so it never replaces an object, and every Swap sends the generation it
// read. A write that fails with a 429, a 5xx, a timeout, a broken
// connection or a failed token (one that the client fails to get, or a
// 401 answer) is tried again with a backoff for 10 s
// (Options.RetryFor). A 412 on the first try of a Put means that another
// instance writes the log: the store stops for good. A 412 on a later try
// reads the object back: when its bytes are the ones it wrote, the write
// was done by an earlier try whose answer was lost. When the time runs
// out, the store stops for good: each later write fails with
// rifflog.ErrStoreStopped.
//
// The store does its own retries (the client's are off), keeps no
// goroutine, and never deletes a bucket or an object it did not name.
package gcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"cloud.google.com/go/storage"
	"github.com/como-technologies/riff/rifflog"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
)

var _ rifflog.Store = (*Store)(nil)

// Options tune the retries; the zero value gives the defaults.
type Options struct {
	// RetryFor is how long a call is tried again (default 10 s).
	RetryFor time.Duration
	// FirstBackoff is the first wait between tries (default 100 ms);
	// each wait doubles up to MaxBackoff (default 2 s).
	FirstBackoff, MaxBackoff time.Duration
}

// Store keeps the objects of a log in one bucket. It is safe for use by
// many goroutines.
type Store struct {
	bucket *storage.BucketHandle
	opts   Options

	mu      sync.Mutex
	stopped error // the reason the store stopped for good, wrapping rifflog.ErrStoreStopped
}

// New gives the store of bucket; the client stays the caller's to close.
func New(client *storage.Client, bucket string, opts Options) *Store {
	if opts.RetryFor <= 0 {
		opts.RetryFor = 10 * time.Second
	}
	if opts.FirstBackoff <= 0 {
		opts.FirstBackoff = 100 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 2 * time.Second
	}
	b := client.Bucket(bucket).Retryer(storage.WithPolicy(storage.RetryNever))
	return &Store{bucket: b, opts: opts}
}

// Stopped returns the reason the store stopped for good, or nil.
func (s *Store) Stopped() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

func (s *Store) stop(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == nil {
		s.stopped = fmt.Errorf("%w: %w", rifflog.ErrStoreStopped, err)
	}
	return s.stopped
}

func code(err error) int {
	var g *googleapi.Error
	if errors.As(err, &g) {
		return g.Code
	}
	return 0
}

// retryable: 401, 408, 429 and 5xx answers, and each error that is not
// an answer of the service (timeouts, broken connections, a token that
// the client fails to get). A 401 is a token that the service refuses
// (expired, revoked, or not yet valid): the client's own retry rule
// (storage.ShouldRetry) does not retry it, but this store retries a
// token failure for RetryFor like the other failures.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false // the caller gave up
	}
	if errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) {
		return false
	}
	switch c := code(err); {
	case c == 0:
		return true
	case c == http.StatusUnauthorized, c == http.StatusRequestTimeout, c == http.StatusTooManyRequests, c >= 500:
		return true
	}
	return false
}

// retry runs op until it works, fails for good, or the time runs out.
// op gets the number of the try (0 first).
func (s *Store) retry(ctx context.Context, op func(ctx context.Context, try int) error) error {
	deadline := time.Now().Add(s.opts.RetryFor)
	wait := s.opts.FirstBackoff
	for try := 0; ; try++ {
		tctx, cancel := context.WithDeadline(ctx, deadline)
		err := op(tctx, try)
		cancel()
		if err == nil || !retryable(ctx, err) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("gave up after %d tries in %v: %w", try+1, s.opts.RetryFor, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, s.opts.MaxBackoff)
	}
}

// write creates or swaps an object with a precondition.
func (s *Store) write(ctx context.Context, name string, data []byte, cond storage.Conditions) (int64, error) {
	w := s.bucket.Object(name).If(cond).NewWriter(ctx)
	w.ChunkSize = 0 // one request (multipart upload): the fake and GCS check the precondition on it
	w.CRC32C = crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	w.SendCRC32C = true
	if _, err := w.Write(data); err != nil {
		w.Close()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return w.Attrs().Generation, nil
}

// sameBytes reads name back after a 412 on a retry: the write is done
// when its bytes are data.
func (s *Store) sameBytes(ctx context.Context, name string, data []byte) (int64, bool, error) {
	r, err := s.bucket.Object(name).NewReader(ctx)
	if err != nil {
		return 0, false, err
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		return 0, false, err
	}
	return r.Attrs.Generation, bytes.Equal(got, data), nil
}

// Put creates name with ifGenerationMatch=0. A 412 on the first try
// stops the store for good, with an error that wraps rifflog.ErrExists
// and rifflog.ErrStoreStopped.
func (s *Store) Put(ctx context.Context, name string, data []byte) error {
	if err := s.Stopped(); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	err := s.retry(ctx, func(ctx context.Context, try int) error {
		_, err := s.write(ctx, name, data, storage.Conditions{DoesNotExist: true})
		if code(err) != http.StatusPreconditionFailed {
			return err
		}
		if try > 0 {
			_, same, rerr := s.sameBytes(ctx, name, data)
			if rerr != nil {
				return rerr
			}
			if same {
				return nil // an earlier try wrote it; its answer was lost
			}
		}
		return fmt.Errorf("%w (412 on try %d): %w", rifflog.ErrExists, try+1, err)
	})
	if err == nil {
		return nil
	}
	if ctx.Err() == nil {
		// Another instance writes, the time ran out, or the bucket
		// refuses: this instance writes no more.
		return fmt.Errorf("put %s: %w", name, s.stop(err))
	}
	return fmt.Errorf("put %s: %w", name, err)
}

// Get reads name.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := s.retry(ctx, func(ctx context.Context, _ int) error {
		r, err := s.bucket.Object(name).NewReader(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		data, err = io.ReadAll(r)
		return err
	})
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, fmt.Errorf("get %s: %w", name, rifflog.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", name, err)
	}
	return data, nil
}

// List gives the names with prefix, in byte order.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	err := s.retry(ctx, func(ctx context.Context, _ int) error {
		names = names[:0]
		q := &storage.Query{Prefix: prefix}
		if err := q.SetAttrSelection([]string{"Name"}); err != nil {
			return err
		}
		it := s.bucket.Objects(ctx, q)
		for {
			a, err := it.Next()
			if errors.Is(err, iterator.Done) {
				return nil
			}
			if err != nil {
				return err
			}
			names = append(names, a.Name)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	sort.Strings(names)
	return names, nil
}

// Delete removes name; a missing name is no error.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := s.Stopped(); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	err := s.retry(ctx, func(ctx context.Context, _ int) error {
		err := s.bucket.Object(name).Delete(ctx)
		if errors.Is(err, storage.ErrObjectNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}

// Load reads name and its generation.
func (s *Store) Load(ctx context.Context, name string) ([]byte, int64, error) {
	var data []byte
	var gen int64
	err := s.retry(ctx, func(ctx context.Context, _ int) error {
		r, err := s.bucket.Object(name).NewReader(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		gen = r.Attrs.Generation
		data, err = io.ReadAll(r)
		return err
	})
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, 0, fmt.Errorf("load %s: %w", name, rifflog.ErrNotExist)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", name, err)
	}
	return data, gen, nil
}

// Swap writes name with ifGenerationMatch=gen (0: does not exist). A
// 412 gives rifflog.ErrChanged, except on a retry whose read-back finds
// the bytes it wrote.
func (s *Store) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	if err := s.Stopped(); err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	cond := storage.Conditions{GenerationMatch: gen}
	if gen == 0 {
		cond = storage.Conditions{DoesNotExist: true}
	}
	var next int64
	err := s.retry(ctx, func(ctx context.Context, try int) error {
		g, err := s.write(ctx, name, data, cond)
		if code(err) != http.StatusPreconditionFailed {
			next = g
			return err
		}
		if try > 0 {
			g, same, rerr := s.sameBytes(ctx, name, data)
			if rerr == nil && same {
				next = g
				return nil
			}
		}
		return fmt.Errorf("%w: %w", rifflog.ErrChanged, err)
	})
	if err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	return next, nil
}
