//go:build !rifftest

package main

// testHooks sets the options of the system that the end-to-end tests set
// through the env of a binary built with the tag rifftest
// (testhooks_rifftest.go). A binary built without it, the one that a
// person runs, reads no hook of the tests.
func testHooks(*system) {}
