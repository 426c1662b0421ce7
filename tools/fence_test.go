package tools

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/fence"
)

// TestTheToolsImportNothingOfTheServer keeps the tools apart from what
// they measure: a load measures the server alone, and the benchmarks of
// the server may import the tools with no cycle of modules.
func TestTheToolsImportNothingOfTheServer(t *testing.T) {
	fence.Check(t,
		"github.com/como-technologies/riff/cmd",
		"github.com/como-technologies/riff/riffengine",
		"github.com/como-technologies/riff/riffstate",
		"github.com/como-technologies/riff/rifflog",
		"github.com/como-technologies/riff/riffclient",
	)
}
