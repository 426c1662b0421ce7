package dir_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
)

// BenchmarkRawFsync writes a small new file and fsyncs it and its
// directory: the floor of a durable write on this disk.
func BenchmarkRawFsync(b *testing.B) {
	root := b.TempDir()
	data := make([]byte, 2048)
	i := 0
	for b.Loop() {
		name := filepath.Join(root, fmt.Sprint(i))
		i++
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(data)
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if err := (dir.OS{}).SyncDir(root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkWrite writes chunks of 8 records with rifflog.Write on
// the directory store (temp file, fsync, rename, fsync of the
// directory); "prepared" makes the temporary file of each next chunk
// ahead with Store.Prepare, as the log writer of riffengine does (here
// in the same goroutine, so its CPU counts). cpu-us/chunk is the CPU of
// the process (user and system) a chunk.
func BenchmarkChunkWrite(b *testing.B) {
	for _, prepared := range []bool{false, true} {
		name := "new"
		if prepared {
			name = "prepared"
		}
		b.Run(name, func(b *testing.B) {
			s, err := dir.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var r rifflog.Replayed
			cpu0 := processCPU(b)
			for b.Loop() {
				recs := make([][]byte, 8)
				for j := range recs {
					recs[j] = line(r.Last + 1 + uint64(j))
				}
				w, err := rifflog.Write(ctx, s, r.Next(recs))
				if err != nil {
					b.Fatal(err)
				}
				r.Last, r.Chain = w.Last(), w.Chain()
				if prepared {
					if err := s.Prepare(rifflog.ChunkName(r.Last + 1)); err != nil {
						b.Fatal(err)
					}
				}
			}
			cpu := processCPU(b) - cpu0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/chunk")
		})
	}
}

// processCPU is the CPU time (user and system) of the process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReplay replays 200,000 records in chunks of 100 from the
// directory store, checking positions, checksums and the chain.
func BenchmarkReplay(b *testing.B) {
	root := b.TempDir()
	s, err := dir.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	const total, per = 200000, 100
	var r rifflog.Replayed
	for r.Last < total {
		recs := make([][]byte, per)
		for j := range recs {
			recs[j] = line(r.Last + 1 + uint64(j))
		}
		w, err := rifflog.Write(ctx, s, r.Next(recs))
		if err != nil {
			b.Fatal(err)
		}
		r.Last, r.Chain = w.Last(), w.Chain()
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		got, err := rifflog.Replay(ctx, s, rifflog.From{}, func([]byte, uint64) error { return nil })
		if err != nil || got.Records != total {
			b.Fatalf("Replay = %+v, %v", got, err)
		}
		n += got.Records
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkLeaseCheck is the check of the lease that the log writer
// makes before and after each chunk: "look" is Lease.Check on the
// directory store (two lookups of names), "read" is the read of the
// lease that it replaced (a read of the directory of the generations,
// of the newest one, and its JSON), on the same store.
func BenchmarkLeaseCheck(b *testing.B) {
	ctx := context.Background()
	s, err := dir.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	l, err := rifflog.TakeLease(ctx, s, "bench", time.UnixMilli(1790000000000))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("look", func(b *testing.B) {
		for b.Loop() {
			if err := l.Check(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if r, _, ok, err := rifflog.ReadLease(ctx, s); err != nil || !ok || r.Instance != "bench" {
				b.Fatal(r, ok, err)
			}
		}
	})
}
