package main

import "testing"

// TestGivenTheBinaryOfAPersonWhenRiffTestLocalIsSetThenRiffServerIgnoresIt:
// only the test build of riff (testdata/testbuild/testhooks.go) takes
// the riff of this machine from the env; the riff of a person asks
// http://127.0.0.1:7878.
func TestGivenTheBinaryOfAPersonWhenRiffTestLocalIsSetThenRiffServerIgnoresIt(t *testing.T) {
	s := &system{env: func(k string) string { return map[string]string{testLocalEnv: "http://127.0.0.1:1"}[k] }}
	testHooks(s)
	if s.localRiff != "" {
		t.Errorf("the riff of this machine = %q; want the default: a person's riff reads no hook of the tests", s.localRiff)
	}
}
