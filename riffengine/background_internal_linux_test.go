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

// threadNice gives the nice value and the ID of the thread that runs the
// caller (locked to it), from /proc/thread-self/stat.
func threadNice() (nice, tid int, err error) {
	data, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return 0, 0, err
	}
	// The name of the command, in parentheses, may hold spaces: the
	// fields from the state on (field 3) come after its last ')'. Nice is
	// field 19.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, errors.New("/proc/thread-self/stat has no command name")
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 17 {
		return 0, 0, errors.New("/proc/thread-self/stat has too few fields")
	}
	if nice, err = strconv.Atoi(fields[16]); err != nil {
		return 0, 0, err
	}
	return nice, syscall.Gettid(), nil
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
// thread at nice 19, which ends, and the main thread keeps its priority.
func TestGivenTheMainThreadWhenWorkGoesToTheBackgroundThenItRunsOnAnotherThreadThatEnds(t *testing.T) {
	runtime.LockOSThread() // this goroutine's thread plays the main thread, kept
	defer runtime.UnlockOSThread()
	before, main, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	var nice, tid int
	var workErr error
	inBackgroundBeside(main, func() { nice, tid, workErr = threadNice() })
	if workErr != nil {
		t.Fatal(workErr)
	}
	if tid == main || nice != backgroundNice {
		t.Fatalf("the work ran on thread %d at nice %d; want another thread than %d, at nice %d", tid, nice, main, backgroundNice)
	}
	if after, _, _ := threadNice(); after != before {
		t.Fatalf("the main thread went from nice %d to %d", before, after)
	}
	if !threadEnds(tid) {
		t.Fatalf("the thread %d of the work did not end", tid)
	}
}
