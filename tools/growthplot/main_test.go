package main

import (
	"testing"

	"github.com/como-technologies/riff/tools/loadtool"
)

// The label of the plot names the windows of the run, which
// BenchmarkGrowth sizes by the rate of the steady pair.
func TestGivenTheWindowsOfARunWhenThePlotIsLabelledThenItNamesTheirLength(t *testing.T) {
	for _, c := range []struct {
		ends []float64
		want string
	}{
		{[]float64{0.5, 1, 1.5}, "500ms"},
		{[]float64{0.75, 1.5}, "750ms"},
		{[]float64{2}, "2s"},
		{[]float64{2.0000001, 4}, "2s"},
		{nil, ""},
	} {
		var ws []loadtool.Window
		for _, e := range c.ends {
			ws = append(ws, loadtool.Window{EndS: e})
		}
		if got := windowOf(ws); got != c.want {
			t.Errorf("windowOf(ends %v) = %q; want %q", c.ends, got, c.want)
		}
	}
}
