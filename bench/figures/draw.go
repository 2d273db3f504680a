package figures

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/sparseson/sparseson/bench/internal/run"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// series is one named line of a figure.
type series struct {
	name string
	xy   plotter.XYs
}

// axes says how a figure's axes are labelled and scaled.
type axes struct {
	title, x, y string
	logX, logY  bool
}

// draw writes name.png and name.svg under -out: one line with points per
// series, a legend, log scales where asked (the data spans decades).
func draw(env *run.Env, name string, a axes, ss []series) error {
	p := plot.New()
	p.Title.Text = a.title
	p.X.Label.Text = a.x
	p.Y.Label.Text = a.y
	if a.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if a.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var args []any
	dense := false
	for _, s := range ss {
		if len(s.xy) == 0 {
			continue
		}
		sort.Slice(s.xy, func(i, j int) bool { return s.xy[i].X < s.xy[j].X })
		for _, pt := range s.xy {
			if err := env.Finite(name+" "+s.name, pt.X, pt.Y); err != nil {
				return err
			}
			if (a.logX && pt.X <= 0) || (a.logY && pt.Y <= 0) {
				return fmt.Errorf("%s: %s has a point (%g, %g) off a log axis", name, s.name, pt.X, pt.Y)
			}
		}
		args = append(args, s.name, s.xy)
		dense = dense || len(s.xy) > 30
	}
	if len(args) == 0 {
		return fmt.Errorf("%s: no data", name)
	}
	// Curves of hundreds of points read better without markers.
	add := plotutil.AddLinePoints
	if dense {
		add = plotutil.AddLines
	}
	if err := add(p, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Headroom above the data for the legend, one line's height per entry,
	// so that it does not hide the curves.
	frac := 0.05 * float64(len(args)/2)
	if a.logY {
		p.Y.Max = p.Y.Max * math.Pow(p.Y.Max/p.Y.Min, frac/(1-frac))
	} else {
		p.Y.Max += (p.Y.Max - p.Y.Min) * frac / (1 - frac)
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, env.OutPath(name+ext)); err != nil {
			return fmt.Errorf("%s%s: %w", name, ext, err)
		}
	}
	return nil
}

// readCSV returns the rows of a CSV file with a header as maps.
func readCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// num parses a CSV cell; a bad cell is NaN, which draw rejects.
func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// firstCSV reads the first of the named files under -out that exists.
func firstCSV(env *run.Env, names ...string) ([]map[string]string, error) {
	for _, n := range names {
		if _, err := os.Stat(env.OutPath(n)); err == nil {
			return readCSV(env.OutPath(n))
		}
	}
	return nil, fmt.Errorf("none of %v in %s", names, env.Out)
}

// logTicks labels 1, 2 and 5 times the powers of ten (plot.LogTicks
// labels only the powers, which leaves an axis spanning less than a
// decade bare), with unlabelled minor ticks between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	wide := math.Log10(hi/lo) > 3 // then only the powers of ten are labelled
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
