package mem_test

import (
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/internal/storetest"
	"github.com/como-technologies/riff/rifflog/mem"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rifflog.Store { return mem.New() })
}
