package riffengine

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// The thread of a checkpoint's encode has the lowest priority, so that
// the encode of a large state takes the CPU that the calls leave, not
// a core out of the two that the calls share (docs/performance.md,
// "Issue 23, fifth pass"): the policy SCHED_IDLE, under which a thread
// of the calls that wakes takes the CPU at once, and nice 19, which is
// what a system that refuses the policy still gives.
const (
	backgroundNice = 19
	schedIdle      = 5 // SCHED_IDLE of Linux
	threadCPUClock = 3 // CLOCK_THREAD_CPUTIME_ID of Linux
)

// inBackground runs work on a goroutine and a thread of its own, at the
// lowest priority when low (else at the priority of the calls), and
// returns when work returns, with the CPU time of that thread in work;
// the thread ends with work, so that no other goroutine ever runs at
// that priority, the caller's included: what the caller does next (the
// write of a checkpoint, which takes locks that the calls take) runs at
// its own priority. Where the system refuses the policy and the nice
// value (a sandbox), work runs at the priority of the calls. The CPU
// time is 0 when the system does not give it.
func inBackground(low bool, work func()) (cpu time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		cpu = inBackgroundBeside(syscall.Getpid(), low, work)
	}()
	<-done
	return cpu
}

// inBackgroundBeside is inBackground, on a thread that is neither the
// main thread of the process nor the thread kept.
func inBackgroundBeside(kept int, low bool, work func()) (cpu time.Duration) {
	runtime.LockOSThread()
	if tid := syscall.Gettid(); tid != kept && tid != syscall.Getpid() {
		if low {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, backgroundNice)
			_ = setIdlePolicy(tid)
		}
		before, ok := threadCPU()
		work()
		if after, ok2 := threadCPU(); ok && ok2 {
			cpu = after - before
		}
		// Still locked: the runtime ends the thread with the goroutine.
		return cpu
	}
	// The main thread: the runtime keeps it, asleep, when its goroutine
	// ends locked to it, so it keeps its priority (and a thread kept for
	// a test, likewise). Locked to this goroutine, it runs no other while
	// this one waits: the work goes to a goroutine of its own, on another
	// thread.
	done := make(chan struct{})
	go func() {
		defer close(done)
		cpu = inBackgroundBeside(kept, low, work)
	}()
	<-done
	runtime.UnlockOSThread()
	return cpu
}

// threadCPU gives the CPU time of the calling thread so far: the clock
// of the thread, which counts up to the call (getrusage counts only to
// the last tick or switch of the thread, so it misses a short work).
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, threadCPUClock, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// setIdlePolicy gives the thread tid the policy SCHED_IDLE.
func setIdlePolicy(tid int) error {
	var param struct{ priority int32 }
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param))); errno != 0 {
		return errno
	}
	return nil
}
