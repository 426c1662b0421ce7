package riffengine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultHeapFloor is the heap floor of cmd/riff-server: 64 MiB.
const DefaultHeapFloor = 64 << 20

// liveMetric is the live heap of the last collection.
const liveMetric = "/gc/heap/live:bytes"

// KeepHeapFloor keeps the heap goal of the Go collector at floor bytes
// or more while the live heap is small, and gives the function that
// stops it and puts back the GOGC of before. After each collection it
// sets GOGC to the smallest percent whose goal is the floor
// (heapPercentFor), never under 100: a live heap of half the floor or
// more runs with the runtime's default.
//
// The runtime's goal is twice the live heap. A small riff lives in a
// few MB, and a call allocates a few KB, so under load the collector
// would run 30 times a second, each run a stop of the world and a mark
// that takes the CPU of the calls; at 64 MiB it runs a few times a
// second. It costs that much more memory at most, and none for a large
// riff.
//
// A program that runs an engine calls it once (cmd/riff-server does,
// from --heap-floor-mb, and examples/embed); the engine never does: the
// collector is the process's setting, not a library's. It does nothing
// when floor is 0 or GOGC is set in the environment (the person chose).
// It needs no goroutine: it runs in the cleanup of an object that each
// collection frees (runtime.AddCleanup).
func KeepHeapFloor(floor uint64) (stop func()) {
	if floor == 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	h := &heapFloor{floor: floor, sample: []metrics.Sample{{Name: liveMetric}}}
	if metrics.Read(h.sample); h.sample[0].Value.Kind() != metrics.KindUint64 {
		return func() {} // a runtime that does not give the live heap
	}
	h.before = debug.SetGCPercent(100)
	debug.SetGCPercent(h.before)
	h.arm()
	return h.stop
}

// heapPercentFor gives the smallest GOGC, never under 100, whose heap
// goal is floor or more. The runtime's goal is the larger of live × (1 +
// GOGC/100) and its heap minimum, 4 MiB × GOGC/100 (runtimeHeapMinimum):
// a GOGC that makes either one the floor will do. A live heap of 0
// (before the first collection) leaves the minimum alone.
func heapPercentFor(live, floor uint64) int {
	// Each product stays far under 2^64: a floor of a few TB at most.
	percent := ceilDiv(floor*100, runtimeHeapMinimum)
	if live > 0 {
		byLive := ceilDiv(floor*100, live) // 100 + the GOGC whose live term is the floor
		percent = min(percent, byLive-min(byLive, 100))
	}
	return int(max(percent, 100))
}

// runtimeHeapMinimum is the heap minimum of the Go runtime at GOGC=100
// (defaultHeapMinimum in runtime/mgcpacer.go; 512 KiB in a build with
// GOEXPERIMENT=heapminimum512kib, where the floor then holds through
// the live heap's term alone).
const runtimeHeapMinimum = 4 << 20

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// heapFloor is the state of a KeepHeapFloor: the cleanup of each
// sentinel sets GOGC and arms the next one, until stop.
type heapFloor struct {
	floor  uint64
	before int // the GOGC of before, put back by stop

	mu      sync.Mutex // a cleanup against stop
	stopped bool
	sample  []metrics.Sample
}

// sentinel is the object whose cleanup runs after the collection that
// frees it: 32 bytes, too large for the tiny allocator (which frees an
// object only with its neighbours).
type sentinel struct{ _ [32]byte }

// arm allocates a sentinel that nothing keeps, whose cleanup is the
// next collected.
func (h *heapFloor) arm() {
	runtime.AddCleanup(new(sentinel), (*heapFloor).collected, h)
}

// collected runs after a collection (on the runtime's goroutine of the
// cleanups): it sets GOGC for the live heap of that collection and arms
// the next sentinel.
func (h *heapFloor) collected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	metrics.Read(h.sample)
	debug.SetGCPercent(heapPercentFor(h.sample[0].Value.Uint64(), h.floor))
	h.arm()
}

// stop ends the floor and puts back the GOGC of before; the cleanup of
// the sentinel that waits then does nothing.
func (h *heapFloor) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.stopped = true
	debug.SetGCPercent(h.before)
}
