package record

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/fence"
)

// TestTheModuleImportsOnlyDownward keeps the imports of this module
// pointing down the map of the modules.
func TestTheModuleImportsOnlyDownward(t *testing.T) {
	fence.Check(t,
		"github.com/como-technologies/riff/riffstate",
		"github.com/como-technologies/riff/rifflog",
		"github.com/como-technologies/riff/riffengine",
		"github.com/como-technologies/riff/riffclient",
		"github.com/como-technologies/riff/cmd",
	)
}
