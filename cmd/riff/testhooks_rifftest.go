//go:build rifftest

package main

// envTestLocal is the URL of the riff of this machine in riff server, in
// place of http://127.0.0.1:7878 (system.localRiff), so that a
// riff-server of the machine does not change the output of the tests.
const envTestLocal = "RIFF_TEST_LOCAL"

// testHooks sets the options of the system from the env of the
// end-to-end tests. Only a binary built with the tag rifftest (the tests
// of riff build their binaries so) has it: the riff of a person reads no
// hook of the tests (docs/cli.md, "Test hooks").
func testHooks(s *system) {
	if v := s.env(envTestLocal); v != "" {
		s.localRiff = v
	}
}
