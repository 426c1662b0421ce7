package main

// testHooks sets the options of the system that only a test sets: none
// in this build. The end-to-end tests build riff with this file replaced
// (go build -overlay with testdata/testbuild/testhooks.go, see
// testOverlay in binaries_test.go), so that the riff of this machine in
// riff server is a riff of the test; the riff that a person runs reads
// no hook of the tests.
func testHooks(*system) {}
