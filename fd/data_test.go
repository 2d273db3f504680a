package fd

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// Developer-only measurements on real data. The data is not part of the
// repository and the ordinary test run never reads it: TestRealDataRates
// skips unless FD_DATA names a directory holding news20.train.svm.gz and
// w8a.train.svm.gz. Knobs (environment): FD_FILE (news20 or w8a), FD_N
// (first N examples), FD_M (sketch sizes, e.g. "5,10"), FD_CAPS (row caps
// in units of m), FD_THETAS, FD_BAND (row band), FD_C (the SON's
// projection bound C, default 1), FD_NOFAST, FD_DIAG, FD_LAZY (also count
// the column work a lazily transforming Host would do).

// readLIBSVM reads a gzipped LIBSVM file into examples (labels ±1, feature
// index j → slot j masked to bits).
func readLIBSVM(path string, bits uint) ([]sparse.Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out []sparse.Example
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	mask := uint32(1)<<bits - 1
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		y, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, err
		}
		ex := sparse.Example{Label: 1, HasLabel: true, Weight: 1}
		if y <= 0 {
			ex.Label = -1
		}
		acc := map[uint32]float64{}
		for _, fv := range fields[1:] {
			i := strings.IndexByte(fv, ':')
			j, err := strconv.ParseUint(fv[:i], 10, 32)
			if err != nil {
				return nil, err
			}
			v, err := strconv.ParseFloat(fv[i+1:], 64)
			if err != nil {
				return nil, err
			}
			acc[uint32(j)&mask] += v
		}
		for k, v := range acc {
			if v != 0 {
				ex.Idx = append(ex.Idx, k)
			}
		}
		sort.Slice(ex.Idx, func(a, b int) bool { return ex.Idx[a] < ex.Idx[b] })
		for _, k := range ex.Idx {
			ex.Val = append(ex.Val, acc[k])
		}
		out = append(out, ex)
	}
	return out, sc.Err()
}

// readVW reads a gzipped VW file as the command line does (the parser and
// hashing defaults: words hashed to bits, the constant feature), so that a
// learner sees the examples sparseson trains on.
func readVW(path string, bits uint) ([]sparse.Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	cfg := hashing.DefaultConfig()
	cfg.Bits = bits
	b, err := hashing.NewBuilder(cfg)
	if err != nil {
		return nil, err
	}
	var out []sparse.Example
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ex sparse.Example
		if err := parser.ParseVWLine(sc.Bytes(), b, &ex); err != nil {
			return nil, err
		}
		ex.Idx = append([]uint32(nil), ex.Idx...)
		ex.Val = append([]float64(nil), ex.Val...)
		out = append(out, ex)
	}
	return out, sc.Err()
}

// cliSON is the SON configuration of sparseson's defaults (-b bits, the
// scaled-space form: pre-scaling, α from the data, rate 5, C = ∞), and
// cliFD the sketch of --fd/--rfd -m m.
func cliSON(bits uint) son.Config {
	return son.Config{Bits: bits, C: math.Inf(1), Eta0: 1, Diag: true, Scaled: true, Unit: true, UnitRMS: true}
}

func cliFD(m int, robust bool) Config {
	return Config{M: m, Alpha: 1, Robust: robust, HostAlpha: true}
}

// runStream trains a SON with the sketch on data (logistic loss, C = 1,
// σ = 0, η_t = 1/√t, as docs/algorithms.md §10) and returns the wall time per
// example and the online mistake rate.
func runStream(tb testing.TB, data []sparse.Example, sk *Sketch, bits uint, diag bool) (perEx time.Duration, errRate float64, sl *son.Learner) {
	sl, err := son.New(son.Config{Bits: bits, C: benchC(), Eta0: 1, Diag: diag}, loss.Logistic{}, sk)
	if err != nil {
		tb.Fatal(err)
	}
	mistakes := 0
	lazy := os.Getenv("FD_LAZY") != ""
	lastC, lastF := map[uint32]int64{}, map[uint32]int{}
	var eagerC, eagerF, pendC, pendF float64
	var prevC int64
	prevF := 0
	start := time.Now()
	for i := range data {
		if lazy {
			// Work a lazy Host would do (see the package report): each
			// compaction's Transform and each fold applied to a feature's
			// column only when the feature is next touched.
			c, f := sk.Counts().Compactions, sl.Folds()
			eagerC += float64(c-prevC) * float64(sl.Seen())
			eagerF += float64(f-prevF) * float64(sl.Seen())
			prevC, prevF = c, f
			for _, j := range data[i].Idx {
				if lc, ok := lastC[j]; ok {
					pendC += float64(c - lc)
					pendF += float64(f - lastF[j])
				}
				lastC[j], lastF[j] = c, f
			}
		}
		p := sl.Learn(&data[i])
		if p*data[i].Label <= 0 {
			mistakes++
		}
	}
	el := time.Since(start)
	if lazy {
		fmt.Printf("lazy host: column transforms %.3g of eager %.3g (%.3f), folds %.3g of %.3g (%.3f)\n", pendC, eagerC, pendC/eagerC, pendF, eagerF, pendF/eagerF)
	}
	return el / time.Duration(len(data)), float64(mistakes) / float64(len(data)), sl
}

// TestRealDataRates prints, for each variant (fd, fd_fast, rfd, rfd_fast;
// α = 1 for FD, RFD₀ for RFD) and each row cap and θ, the time per
// example, the online error rate, the absorb/append/compaction rates per
// update, the core's folds, and why absorbs were refused (infeasible,
// ill-conditioned, row band), training SON with logistic loss, η_t = 1/√t,
// -b 18 on news20 and w8a.
func TestRealDataRates(t *testing.T) {
	dir := os.Getenv("FD_DATA")
	if dir == "" || testing.Short() {
		t.Skip("set FD_DATA to the directory with news20.train.svm.gz and w8a.train.svm.gz")
	}
	type variant struct {
		name string
		cfg  Config
	}
	ms := []int{10}
	if s := os.Getenv("FD_M"); s != "" {
		ms = nil
		for _, f := range strings.Split(s, ",") {
			m, _ := strconv.Atoi(f)
			ms = append(ms, m)
		}
	}
	diag := os.Getenv("FD_DIAG") != ""
	var band float64
	if b := os.Getenv("FD_BAND"); b != "" {
		band, _ = strconv.ParseFloat(b, 64)
	}
	for _, file := range []string{"news20.train.svm.gz", "w8a.train.svm.gz"} {
		if f := os.Getenv("FD_FILE"); f != "" && !strings.Contains(file, f) {
			continue
		}
		data, err := readLIBSVM(dir+"/"+file, 18)
		if err != nil {
			t.Skip(err)
		}
		if n := os.Getenv("FD_N"); n != "" {
			k, _ := strconv.Atoi(n)
			data = data[:min(k, len(data))]
		}
		for _, m := range ms {
			var vs []variant
			caps := []int{2, 4, 8}
			thetas := []float64{1e4, 1e8}
			if s := os.Getenv("FD_THETAS"); s != "" {
				thetas = nil
				for _, f := range strings.Split(s, ",") {
					th, _ := strconv.ParseFloat(f, 64)
					thetas = append(thetas, th)
				}
			}
			if s := os.Getenv("FD_CAPS"); s != "" {
				caps = nil
				for _, f := range strings.Split(s, ",") {
					c, _ := strconv.Atoi(f)
					caps = append(caps, c)
				}
			}
			for _, robust := range []bool{false, true} {
				for _, fast := range []bool{false, true} {
					if os.Getenv("FD_NOFAST") != "" && fast {
						continue
					}
					for _, c := range caps {
						if fast && c < 2 {
							continue
						}
						for _, th := range thetas {
							cfg := Config{M: m, Alpha: 1, Robust: robust, Fast: fast, RowCap: c * m, Theta: th, RowBand: band}
							if robust {
								cfg.Alpha = 0
							}
							if fast && cfg.RowCap < 2*m-1 {
								continue
							}
							vs = append(vs, variant{fmt.Sprintf("cap%dm_theta%g", c, th), cfg})
						}
					}
				}
			}
			for _, v := range vs {
				sk, err := New(v.cfg)
				if err != nil {
					t.Fatal(err)
				}
				per, er, sl := runStream(t, data, sk, 18, diag)
				c := sk.Counts()
				u := float64(c.Updates)
				fmt.Printf("%-22s m=%-3d %-9s %-18s %8.1fµs/ex err %.4f  absorb %.3f append %.3f compact %.4f (cond %.4f) seen %d folds %d  [infeas %.3f illcond %.3f band %.3f]\n",
					file[:strings.IndexByte(file, '.')], m, sk.Name(), v.name, float64(per.Nanoseconds())/1e3, er,
					float64(c.Absorbs)/u, float64(c.Appends)/u, float64(c.Compactions)/u, float64(c.CondCompact)/u, sl.Seen(), sl.Folds(), float64(c.AbsorbInfeasible)/u, float64(c.AbsorbIllCond)/u, float64(c.AbsorbBand)/u)
			}
		}
	}
}

// benchC is the projection bound C of the real-data runs (FD_C, default 1).
func benchC() float64 {
	if s := os.Getenv("FD_C"); s != "" {
		c, _ := strconv.ParseFloat(s, 64)
		return c
	}
	return 1
}
