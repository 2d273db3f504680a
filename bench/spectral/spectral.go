// Package spectral is the spectral suite of go run ./bench: Luo Luo, Cheng
// Chen, Zhihua Zhang, Wu-Jun Li, Tong Zhang, "Robust Frequent Directions
// with Application in Online Learning", JMLR 20, 2019, §6.1, Fig. 1 — the
// relative spectral error of the covariance sketch,
//
//	FD:  ‖AᵀA − BᵀB‖₂ / ‖A‖_F²       RFD: ‖AᵀA − (BᵀB + αI)‖₂ / ‖A‖_F²
//
// against the sketch size m, with A the first -rows rows of a shared
// LIBSVM set. Both sketches are the doubled-buffer ("fast") forms the
// paper's experiments use (its App. A, Alg. 4 and 5): rows are appended
// until 2m are held, then B is shrunk by its m-th squared singular value
// δ to m − 1 rows, and RFD adds δ/2 to α.
//
// The sketches here are dense and written for this figure, not the fd
// package's: fd's sketch is fed gradients through sparse.Step and keeps
// its state in the learner's scaled space, which has no exported way to
// take a raw data row. The error's spectral norm is found by power
// iteration on x ↦ Aᵀ(Ax) − Bᵀ(Bx) − αx, which needs A only as sparse
// rows, so that news20's 10⁵ columns cost no d×d matrix.
//
//	go run ./bench spectral [-sets w8a,spam,news20] [-rows 2000]
package spectral

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
	"gonum.org/v1/gonum/mat"
)

// sketchSizes are the m of each set: up to about d/4 on the low-
// dimensional spam (d = 57).
var sketchSizes = map[string][]int{
	"w8a":    {5, 10, 20, 40},
	"news20": {5, 10, 20, 40},
	"spam":   {2, 4, 8, 16},
	"splice": {2, 4, 8, 16},
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("spectral", flag.ContinueOnError)
	env.Register(fs)
	sets := fs.String("sets", "w8a,spam,news20", "comma-separated LIBSVM sets (w8a, spam, news20, splice)")
	rows := fs.Int("rows", 2000, "rows of each set taken as the matrix A")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	if err := env.QuickDefaults(fs, map[string]string{"sets": "spam", "rows": fmt.Sprint(run.QuickLines)}); err != nil {
		return err
	}
	fmt.Printf("Luo et al. (JMLR 2019), Fig. 1: relative spectral error of the covariance sketch, A = the first %d rows of each training set (LIBSVM)\n", *rows)
	fmt.Printf("%-8s %6s %4s %12s %12s %9s\n", "set", "d", "m", "FD", "RFD", "RFD/FD")
	var csv strings.Builder
	fmt.Fprintln(&csv, "dataset,d,m,fd,rfd")
	for _, name := range strings.Split(*sets, ",") {
		ms, ok := sketchSizes[name]
		if !ok {
			return fmt.Errorf("-sets: no sketch sizes for %q", name)
		}
		train, _, err := env.Paths(name, "svm")
		if err != nil {
			return err
		}
		A, d, err := readRows(train, *rows)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if env.Quick && m > 4 {
				continue
			}
			fd, rfd := sketch(A, d, m)
			efd := relErr(A, d, fd, 0)
			erfd := relErr(A, d, rfd, rfd.alpha)
			if err := env.Finite(fmt.Sprintf("spectral %s m=%d", name, m), efd, erfd); err != nil {
				return err
			}
			fmt.Printf("%-8s %6d %4d %12.4g %12.4g %9.3f\n", name, d, m, efd, erfd, erfd/efd)
			fmt.Fprintf(&csv, "%s,%d,%d,%.6g,%.6g\n", name, d, m, efd, erfd)
		}
	}
	return env.Write("spectral.csv", []byte(csv.String()))
}

// row is a sparse row of A, its columns renumbered 0…d−1 in order of
// first appearance.
type row struct {
	idx []int
	val []float64
}

// readRows reads the first n rows of a LIBSVM file (gzip or plain).
func readRows(path string, n int) ([]row, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var sc *bufio.Scanner
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		sc = bufio.NewScanner(zr)
	} else {
		sc = bufio.NewScanner(br)
	}
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	cols := map[string]int{}
	var A []row
	for len(A) < n && sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		var r row
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, ":")
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%s line %d: %q: %w", path, len(A)+1, f, err)
			}
			c, seen := cols[k]
			if !seen {
				c = len(cols)
				cols[k] = c
			}
			r.idx = append(r.idx, c)
			r.val = append(r.val, x)
		}
		A = append(A, r)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return A, len(cols), nil
}

// fdSketch is a dense sketch B (rows × d, row-major) and RFD's α.
type fdSketch struct {
	B     []float64
	rows  int
	d     int
	alpha float64
}

// sketch feeds A's rows to a doubled-buffer FD sketch of size m and
// returns it, and the RFD sketch (the same B, since RFD's shrink is FD's;
// only α differs).
func sketch(A []row, d, m int) (fd, rfd fdSketch) {
	s := fdSketch{B: make([]float64, 2*m*d), d: d}
	for _, r := range A {
		if s.rows == 2*m {
			s.shrink(m)
		}
		b := s.B[s.rows*d : (s.rows+1)*d]
		for i, c := range r.idx {
			b[c] = r.val[i]
		}
		s.rows++
	}
	fd = s
	fd.alpha = 0
	return fd, s
}

// shrink is FD's step: B = UΣVᵀ, Σ² ← max(Σ² − σ_m², 0), keeping the
// m − 1 leading rows ΣVᵀ; α grows by σ_m²/2 (RFD, Luo et al. (JMLR 2019), Alg. 4). The
// SVD comes from the eigendecomposition of the small Gram matrix BBᵀ.
func (s *fdSketch) shrink(m int) {
	p, d := s.rows, s.d
	Bm := mat.NewDense(p, d, s.B[:p*d])
	var G mat.SymDense
	G.SymOuterK(1, Bm)
	var eig mat.EigenSym
	if !eig.Factorize(&G, true) {
		panic("spectral: eigendecomposition of BBᵀ failed")
	}
	lam := eig.Values(nil) // ascending
	var U mat.Dense
	eig.VectorsTo(&U)
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return lam[order[a]] > lam[order[b]] })
	delta := math.Max(lam[order[m-1]], 0)
	next := make([]float64, len(s.B))
	for k := 0; k < m-1; k++ {
		i := order[k]
		l := lam[i]
		if l <= delta || l <= 0 {
			break
		}
		// Row k of the new B: sqrt(λ − δ)·vᵀ, with v = Bᵀu/σ.
		scale := math.Sqrt(l-delta) / math.Sqrt(l)
		out := next[k*d : (k+1)*d]
		for r := 0; r < p; r++ {
			u := U.At(r, i) * scale
			if u == 0 {
				continue
			}
			br := s.B[r*d : (r+1)*d]
			for c, v := range br {
				out[c] += u * v
			}
		}
	}
	s.B, s.rows = next, m-1
	s.alpha += delta / 2
}

// relErr is ‖AᵀA − BᵀB − αI‖₂ / ‖A‖_F², the norm by power iteration
// (the largest |eigenvalue| of the symmetric error; FD's is PSD, RFD's
// need not be).
func relErr(A []row, d int, s fdSketch, alpha float64) float64 {
	var fro float64
	for _, r := range A {
		for _, v := range r.val {
			fro += v * v
		}
	}
	rng := rand.New(rand.NewPCG(2, 19))
	x := make([]float64, d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := make([]float64, d)
	bx := make([]float64, s.rows)
	var est float64
	for it := 0; it < 500; it++ {
		normalize(x)
		for i := range y {
			y[i] = -alpha * x[i]
		}
		for _, r := range A {
			var dot float64
			for i, c := range r.idx {
				dot += r.val[i] * x[c]
			}
			for i, c := range r.idx {
				y[c] += dot * r.val[i]
			}
		}
		for k := 0; k < s.rows; k++ {
			b := s.B[k*d : (k+1)*d]
			var dot float64
			for c, v := range b {
				dot += v * x[c]
			}
			bx[k] = dot
		}
		for k := 0; k < s.rows; k++ {
			b := s.B[k*d : (k+1)*d]
			for c, v := range b {
				y[c] -= bx[k] * v
			}
		}
		n := norm(y)
		done := it > 20 && math.Abs(n-est) <= 1e-7*n
		est = n
		copy(x, y)
		if done {
			break
		}
	}
	return est / fro
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func normalize(x []float64) {
	if n := norm(x); n > 0 {
		for i := range x {
			x[i] /= n
		}
	}
}
