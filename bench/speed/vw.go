package speed

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sparseson/sparseson/bench/internal/run"
)

// vwRow is one row of the comparison with Vowpal Wabbit: the same work
// asked of each program in its own flags (issue 27's table).
type vwRow struct {
	name     string
	ours, vw []string // the input is appended as -d PATH
	gz       bool     // reads the gzip copy of the text
}

var vwRows = []vwRow{
	{"default learner", nil, nil, false},
	// VW reads gzip only when told to (zlib then sniffs each input).
	{"default, gzip", nil, []string{"--compressed"}, true},
	{"Oja-SON m=10", []string{"--oja", "-m", "10"}, []string{"--OjaNewton", "--sketch_size", "10"}, false},
	{"predict only -t", []string{"-t"}, []string{"-t"}, false},
}

// vwBest is the least CPU time and the least wall time of one program's
// rounds of a row, and the peak RSS of its least-CPU run.
type vwBest struct {
	cpu, wall time.Duration
	rss       int64 // KiB
	examples  string
}

func (b *vwBest) add(r *run.Result) {
	if b.cpu == 0 || r.CPU < b.cpu {
		b.cpu, b.rss = r.CPU, r.MaxRSS
	}
	if b.wall == 0 || r.Wall < b.wall {
		b.wall = r.Wall
	}
	b.examples = r.Summary["number of examples"]
}

// compareVW times vwRows with sparseson (bin) and VW (vw) in turn, the
// order swapped every round, repeat rounds, on plain text and its gzip
// copy, and prints both programs' figures and their ratios to w; it
// returns the table as CSV. Without vw it prints why it skipped.
func compareVW(w io.Writer, bin, vw, plain, gz string, repeat int) (string, error) {
	if vw == "" {
		fmt.Fprintln(w, "VW column skipped: set VW=/path/to/vw (a Vowpal Wabbit binary, e.g. 9.11.2) to time the same rows with it")
		return "", nil
	}
	ours, theirs := make([]vwBest, len(vwRows)), make([]vwBest, len(vwRows))
	for r := range repeat {
		for i, row := range vwRows {
			in := plain
			if row.gz {
				in = gz
			}
			runs := []func() error{
				func() error { return vwExec(&ours[i], bin, bin, row.ours, in) },
				func() error { return vwExec(&theirs[i], bin, vw, row.vw, in) },
			}
			if r%2 == 1 {
				runs[0], runs[1] = runs[1], runs[0]
			}
			for _, f := range runs {
				if err := f(); err != nil {
					return "", err
				}
			}
			if ours[i].examples != theirs[i].examples {
				return "", fmt.Errorf("%s: sparseson counted %q examples and VW %q: the flags do not ask the same of both", row.name, ours[i].examples, theirs[i].examples)
			}
		}
	}
	fmt.Fprintf(w, "sparseson against VW (%s), logistic loss, one pass over the text, %d rounds alternated, least CPU time and least wall time\n", vw, repeat)
	fmt.Fprintf(w, "%-18s %10s %10s %9s %10s %10s %9s %9s %9s\n", "run", "CPU s", "wall s", "RSS MB", "VW CPU s", "VW wall s", "VW RSS MB", "wall/VW", "CPU/VW")
	var csv strings.Builder
	fmt.Fprintln(&csv, "run,cpu_s,wall_s,peak_rss_mb,vw_cpu_s,vw_wall_s,vw_peak_rss_mb")
	for i, row := range vwRows {
		o, v := ours[i], theirs[i]
		fmt.Fprintf(w, "%-18s %10.3f %10.3f %9.1f %10.3f %10.3f %9.1f %9.2f %9.2f\n", row.name,
			o.cpu.Seconds(), o.wall.Seconds(), float64(o.rss)/1024, v.cpu.Seconds(), v.wall.Seconds(), float64(v.rss)/1024,
			o.wall.Seconds()/v.wall.Seconds(), o.cpu.Seconds()/v.cpu.Seconds())
		fmt.Fprintf(&csv, "%s,%.3f,%.3f,%.1f,%.3f,%.3f,%.1f\n", row.name, o.cpu.Seconds(), o.wall.Seconds(), float64(o.rss)/1024, v.cpu.Seconds(), v.wall.Seconds(), float64(v.rss)/1024)
	}
	ratio := func(b []vwBest, i, j int) float64 { return b[i].wall.Seconds() / b[j].wall.Seconds() }
	fmt.Fprintf(w, "gzip / plain wall: sparseson %.2f×, VW %.2f×; Oja-SON / default wall: sparseson %.2f×, VW %.2f×\n",
		ratio(ours, 1, 0), ratio(theirs, 1, 0), ratio(ours, 2, 0), ratio(theirs, 2, 0))
	return csv.String(), nil
}

func vwExec(b *vwBest, ref, prog string, flags []string, in string) error {
	args := append(append([]string{"--loss_function", "logistic"}, flags...), "-d", in)
	r, err := run.ExecBeside(ref, prog, args...)
	if err != nil {
		return err
	}
	b.add(r)
	return nil
}

// gzipCopy writes src gzip'd at the default level, as gzip(1) would.
func gzipCopy(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, in); err != nil {
		out.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
