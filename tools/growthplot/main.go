// Command growthplot draws the plot of docs/performance.md ("Flat as
// the riff grows"): the rate and the p99 of the fresh-session load by
// windows of time, against the sessions that the riff held, for each
// build of a run of BenchmarkGrowth (cmd/riff-server, RIFF_GROWTH_OUT).
// It writes the points as text and runs gnuplot (Debian: gnuplot-nox)
// to make a PNG:
//
//	go run ./growthplot -out ../docs/growth.png "base build=/tmp/growth-0.json" "this build=/tmp/growth-1.json"
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/como-technologies/riff/tools/loadtool"
)

func main() {
	out := flag.String("out", "growth.png", "the PNG to write")
	flag.Parse()
	if err := plot(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "growthplot:", err)
		os.Exit(1)
	}
}

func plot(out string, series []string) error {
	if len(series) == 0 {
		return errors.New(`give one or more "LABEL=FILE" of RIFF_GROWTH_OUT`)
	}
	gnuplot, err := exec.LookPath("gnuplot")
	if err != nil {
		return errors.New("gnuplot is not installed (Debian: apt-get install gnuplot-nox)")
	}
	tmp, err := os.MkdirTemp("", "growthplot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var rate, p99, windows []string
	for k, s := range series {
		label, path, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("%q is not LABEL=FILE", s)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var run struct {
			Fresh loadtool.Result `json:"fresh"`
		}
		if err := json.Unmarshal(data, &run); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ws := run.Fresh.Windows
		if w := windowOf(ws); w != "" && !slices.Contains(windows, w) {
			windows = append(windows, w)
		}
		if len(ws) > 1 {
			ws = ws[:len(ws)-1] // the last window is cut short by the end of the load
		}
		var b strings.Builder
		for _, w := range ws {
			// x: the sessions at the middle of the window
			fmt.Fprintf(&b, "%d %.1f %.2f\n", w.CallsBefore+w.Calls/2, w.CallsPerS, w.P99Ms)
		}
		dat := filepath.Join(tmp, fmt.Sprintf("%d.dat", k))
		if err := os.WriteFile(dat, []byte(b.String()), 0o644); err != nil {
			return err
		}
		rate = append(rate, fmt.Sprintf("%q using ($1/1000):2 with linespoints title %q", dat, label))
		p99 = append(p99, fmt.Sprintf("%q using ($1/1000):3 with linespoints title %q", dat, label))
	}
	script := fmt.Sprintf(`set terminal png size 900,700
set output %[1]q
set multiplot layout 2,1 title "fresh-session load: 64 clients, each call a claim by a new session (riff-server --dir)"
set grid
set key outside right
set xlabel "sessions in the riff (thousands)"
set ylabel "claims/s (window of %[4]s)"
set yrange [0:*]
plot %[2]s
set ylabel "p99 (ms, window of %[4]s)"
set yrange [0:*]
plot %[3]s
unset multiplot
`, out, strings.Join(rate, ", "), strings.Join(p99, ", "), strings.Join(windows, " or "))
	cmd := exec.Command(gnuplot)
	cmd.Stdin = strings.NewReader(script)
	if data, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gnuplot: %v\n%s", err, data)
	}
	return nil
}

// windowOf gives the length of the windows of a load (BenchmarkGrowth
// sizes them by the rate of the steady pair): the time between the ends
// of the first two, or the end of the only one; "" with none.
func windowOf(ws []loadtool.Window) string {
	var s float64
	switch {
	case len(ws) >= 2:
		s = ws[1].EndS - ws[0].EndS
	case len(ws) == 1:
		s = ws[0].EndS
	default:
		return ""
	}
	return (time.Duration(s*1000+0.5) * time.Millisecond).String()
}
