package riffengine

import (
	"runtime"
	"syscall"
	"unsafe"
)

// The thread of a checkpoint has the lowest priority, so that the encode
// and the write of a large state take the CPU that the calls leave, not
// a core out of the two that the calls share (docs/performance.md,
// "Issue 23, fifth pass"): the policy SCHED_IDLE, under which a thread
// of the calls that wakes takes the CPU at once, and nice 19, which is
// what a system that refuses the policy still gives.
const (
	backgroundNice = 19
	schedIdle      = 5 // SCHED_IDLE of Linux
)

// inBackground runs work on a thread of its own at the lowest priority,
// and returns when work returns; the thread ends with it, so that no
// other goroutine ever runs at that priority. Where the system refuses
// the policy and the nice value (a sandbox), work runs at the priority
// of the calls.
func inBackground(work func()) { inBackgroundBeside(syscall.Getpid(), work) }

// inBackgroundBeside is inBackground, on a thread that is neither the
// main thread of the process nor the thread kept.
func inBackgroundBeside(kept int, work func()) {
	runtime.LockOSThread()
	if tid := syscall.Gettid(); tid != kept && tid != syscall.Getpid() {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, backgroundNice)
		_ = setIdlePolicy(tid)
		work()
		// Still locked: the runtime ends the thread with the goroutine.
		return
	}
	// The main thread: the runtime keeps it, asleep, when its goroutine
	// ends locked to it, so it keeps its priority (and a thread kept for
	// a test, likewise). Locked to this goroutine, it runs no other while
	// this one waits: the work goes to a goroutine of its own, on another
	// thread.
	done := make(chan struct{})
	go func() {
		defer close(done)
		inBackgroundBeside(kept, work)
	}()
	<-done
	runtime.UnlockOSThread()
}

// setIdlePolicy gives the thread tid the policy SCHED_IDLE.
func setIdlePolicy(tid int) error {
	var param struct{ priority int32 }
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param))); errno != 0 {
		return errno
	}
	return nil
}
