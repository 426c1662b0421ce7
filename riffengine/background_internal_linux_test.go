package riffengine

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threadNice gives the nice value, the scheduling policy and the ID of
// the thread that runs the caller (locked to it), from
// /proc/thread-self/stat.
func threadNice() (nice, policy, tid int, err error) {
	data, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	// The name of the command, in parentheses, may hold spaces: the
	// fields from the state on (field 3) come after its last ')'. Nice is
	// field 19, the policy field 41.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, 0, errors.New("/proc/thread-self/stat has no command name")
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 39 {
		return 0, 0, 0, errors.New("/proc/thread-self/stat has too few fields")
	}
	if nice, err = strconv.Atoi(fields[16]); err != nil {
		return 0, 0, 0, err
	}
	if policy, err = strconv.Atoi(fields[38]); err != nil {
		return 0, 0, 0, err
	}
	return nice, policy, syscall.Gettid(), nil
}

// threadEnds waits up to a minute for the thread tid of this process to
// end, and says whether it did.
func threadEnds(tid int) bool {
	task := "/proc/self/task/" + strconv.Itoa(tid)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(task); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

// The decision (docs/decisions.md, "The checkpoint maker at the lowest
// priority"), on the main thread of the process, which the runtime keeps
// (asleep) when a goroutine locked to it ends: the work goes to another
// thread, SCHED_IDLE at nice 19, which ends, and the main thread keeps
// its priority.
func TestGivenTheMainThreadWhenWorkGoesToTheBackgroundThenItRunsOnAnotherThreadThatEnds(t *testing.T) {
	runtime.LockOSThread() // this goroutine's thread plays the main thread, kept
	defer runtime.UnlockOSThread()
	before, beforePolicy, main, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	var nice, policy, tid int
	var workErr error
	inBackgroundBeside(main, true, func() { nice, policy, tid, workErr = threadNice() })
	if workErr != nil {
		t.Fatal(workErr)
	}
	if tid == main || nice != backgroundNice || policy != schedIdle {
		t.Fatalf("the work ran on thread %d at nice %d, policy %d; want another thread than %d, at nice %d, policy %d", tid, nice, policy, main, backgroundNice, schedIdle)
	}
	if after, afterPolicy, _, _ := threadNice(); after != before || afterPolicy != beforePolicy {
		t.Fatalf("the main thread went from nice %d, policy %d to nice %d, policy %d", before, beforePolicy, after, afterPolicy)
	}
	if !threadEnds(tid) {
		t.Fatalf("the thread %d of the work did not end", tid)
	}
}

// The decision (docs/decisions.md, "The checkpoint maker holds no lock at
// the lowest priority"): inBackground runs the work on a thread of its
// own, so that the thread of its caller keeps the priority of the calls
// for what it does next (the write of a checkpoint, the prune).
func TestGivenAThreadOfTheCallsWhenItRunsWorkInTheBackgroundThenItGoesOnAtItsOwnPriority(t *testing.T) {
	type threadOf struct{ nice, policy, tid int }
	var caller, during, after threadOf
	var errs []error
	read := func(into *threadOf) {
		nice, policy, tid, err := threadNice()
		*into = threadOf{nice, policy, tid}
		errs = append(errs, err)
	}
	onThreadOtherThanMain(func() {
		read(&caller)
		inBackground(true, func() { read(&during) })
		read(&after)
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if during.tid == caller.tid || during.nice != backgroundNice || during.policy != schedIdle {
		t.Fatalf("the work ran on thread %d at nice %d, policy %d; want a thread other than the caller's %d, at nice %d, policy %d",
			during.tid, during.nice, during.policy, caller.tid, backgroundNice, schedIdle)
	}
	if after != caller {
		t.Fatalf("after the work, the caller runs on thread %d at nice %d, policy %d; want its own, %d at nice %d, policy %d",
			after.tid, after.nice, after.policy, caller.tid, caller.nice, caller.policy)
	}
	if !threadEnds(during.tid) {
		t.Fatalf("the thread %d of the work did not end", during.tid)
	}
}

// onThreadOtherThanMain runs f on a goroutine locked to a thread that is
// not the main thread of the process (which inBackground treats apart),
// and returns when f returns. That thread ends with the goroutine.
func onThreadOtherThanMain(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if syscall.Gettid() != syscall.Getpid() {
			f()
			return // still locked: the thread ends with the goroutine
		}
		// The main thread, held by this goroutine: a new goroutine runs
		// on another thread.
		defer runtime.UnlockOSThread()
		onThreadOtherThanMain(f)
	}()
	<-done
}
