// Package synthetic is the synthetic suite of go run ./bench; it
// reproduces the ill-conditioned benchmark of Haipeng Luo, Alekh Agarwal,
// Nicolò Cesa-Bianchi, John Langford, "Efficient Second Order Online
// Learning by Sketching", NIPS 2016, §5.1 (Fig. 1): T =
// 10000 examples in d = 100 dimensions, X = Z·Λ^{1/2}·Vᵀ with Gaussian Z,
// a random orthonormal V and the spectrum Λ = (1, …, 1, then the last 10
// rising linearly to κ); labels y = sign(Z·a) are the same for every κ (a
// linear change of X keeps the data separable by the same labels), so a
// truly invariant learner behaves identically for all κ.
//
// A second family, -family scaled, multiplies every coordinate of the same
// X by its own scale s_j = 10^u, u uniform in [−2, 2]: the ill-conditioned
// directions are then also badly scaled per coordinate, so that neither
// diagonal pre-scaling alone (it cannot see a rotation) nor a sketch alone
// (without pre-scaling α must match scales spanning 10⁴) suffices.
//
// For each κ it prints the one-pass progressive error (squared loss,
// --binary) of each learner: the tuned ones at their best learning rate or
// α over 2^j, j = −3…12 (widened by 3 when the best sits on an edge), the
// default configuration (no flags beyond the sketch) as it is.
//
// The table is also written to -out as synthetic_<family>.csv, from which
// the figures suite draws Luo et al.'s (NIPS 2016) Fig. 1.
//
//	go run ./bench synthetic [-family rotated|scaled] [-kappas 10,50,...] [-learners a,b]
package synthetic

import (
	"bufio"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sparseson/sparseson/bench/internal/run"
	"gonum.org/v1/gonum/mat"
)

// d is the dimension of the problem.
const d = 100

type learner struct {
	name  string
	flags []string
	rate  string // the flag swept over 2^j; "" runs the flags as they are
}

var allLearners = []learner{
	{"AdaGrad", []string{"--adaptive"}, "-l"},
	{"AdaGrad normalized", nil, "-l"},
	{"SON m=0 plain", []string{"--oja", "-m", "0", "--diag=false"}, "--alpha"},
	{"Oja m=10 plain", []string{"--oja", "-m", "10", "--diag=false"}, "--alpha"},
	{"SON m=0 paper", []string{"--oja", "-m", "0", "--diag_sketch", "paper"}, "--alpha"},
	{"Oja m=10 paper", []string{"--oja", "-m", "10", "--diag_sketch", "paper"}, "--alpha"},
	{"SON m=0 default", []string{"--oja", "-m", "0"}, ""},
	{"Oja m=5 default", []string{"--oja", "-m", "5"}, ""},
	{"Oja m=10 default", []string{"--oja", "-m", "10"}, ""},
	{"Oja m=10 best -l", []string{"--oja", "-m", "10"}, "-l"},
	{"FD m=10 default", []string{"--fd", "-m", "10"}, ""},
	{"RP m=10 default", []string{"--rp", "-m", "10"}, ""},
}

// cell is one learner's result at one κ: its progressive error at its
// best 2^j (j = math.MinInt: untuned).
type cell struct {
	err float64
	j   int
}

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("synthetic", flag.ContinueOnError)
	env.Register(fs)
	T := fs.Int("T", 10000, "examples (Luo et al. (NIPS 2016): 10000)")
	kappaList := fs.String("kappas", "10,50,100,150,200", "condition numbers")
	family := fs.String("family", "rotated", "rotated (Luo et al. (NIPS 2016), §5.1) or scaled (the same, each coordinate scaled by 10^U(−2,2))")
	seed := fs.Uint64("seed", 1, "random seed of Z, V, a and the scales")
	writeDir := fs.String("write", "", "only write the κ datasets (LIBSVM) into this directory")
	only := fs.String("learners", "", "comma-separated learner names to run (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	jlo, jhi := -3, 12
	if env.Quick {
		jlo, jhi = 0, 0
	}
	if err := env.QuickDefaults(fs, map[string]string{"T": fmt.Sprint(run.QuickLines), "kappas": "10", "learners": "AdaGrad,Oja m=10 default"}); err != nil {
		return err
	}
	if *family != "rotated" && *family != "scaled" {
		return fmt.Errorf("-family %q: rotated or scaled", *family)
	}
	learners := allLearners
	if *only != "" {
		var keep []learner
		for _, l := range learners {
			if strings.Contains(","+*only+",", ","+l.name+",") {
				keep = append(keep, l)
			}
		}
		learners = keep
	}
	var kappas []float64
	for _, s := range strings.Split(*kappaList, ",") {
		k, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("-kappas: %w", err)
		}
		kappas = append(kappas, k)
	}
	files, err := writeSets(env, *writeDir, *family, *seed, *T, kappas)
	if err != nil || *writeDir != "" {
		return err
	}
	bin, err := env.Bin()
	if err != nil {
		return err
	}
	best, err := sweep(env, bin, files, kappas, learners, jlo, jhi)
	if err != nil {
		return err
	}
	fmt.Printf("One-pass progressive error (%%), squared loss, family %s; tuned learners at their best rate over 2^j (j in parentheses), defaults as they are; T = %d, d = %d, seed %d\n\n", *family, *T, d, *seed)
	printTable(kappas, learners, best)
	return writeCSV(env, *family, kappas, learners, best)
}

// writeSets writes the κ datasets of a family as LIBSVM text into dir (a
// temporary directory when dir is "") and returns their paths by κ.
func writeSets(env *run.Env, dir, family string, seed uint64, T int, kappas []float64) (map[float64]string, error) {
	Z, V, y, scales := problem(seed, T)
	if family == "rotated" {
		scales = nil
	}
	if dir == "" {
		tmp, err := os.MkdirTemp(env.Temp(), "synthetic")
		if err != nil {
			return nil, err
		}
		dir = tmp
	}
	files := map[float64]string{}
	for _, k := range kappas {
		files[k] = filepath.Join(dir, fmt.Sprintf("%s_k%g.svm", family, k))
		if err := write(files[k], Z, V, y, scales, k); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// progressive is the one-pass progressive error (%) of learner l on file
// at rate 2^j. It needs the summary, which --quiet hides: the run is
// without --quiet and "average loss" is read (0/1 loss with --binary).
func progressive(bin, file string, l learner, j int) (float64, error) {
	args := append([]string{"--noconstant", "--loss_function", "squared", "--binary", "-P", "1000000000"}, l.flags...)
	if l.rate != "" {
		args = append(args, l.rate, run.Pow2(j))
	}
	r, err := run.Exec(bin, append(args, file)...)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(r.Summary["average loss"], 64)
	if err != nil {
		return 0, fmt.Errorf("no average loss: %s", r.Stderr)
	}
	return 100 * v, nil
}

// sweep returns each learner's result per κ (by κ and learner index):
// the untuned ones as they are, the tuned ones at their best 2^j over
// jlo…jhi, the range widened by 3 while the best sits on its edge (not
// under --quick). Each κ is a run.Grid of learners × 2^j, rerun for the
// widened ranges on only the values not yet run.
func sweep(env *run.Env, bin string, files map[float64]string, kappas []float64, learners []learner, jlo, jhi int) (map[[2]int]cell, error) {
	best := make(map[[2]int]cell)
	for ki, k := range kappas {
		lo, hi := make([]int, len(learners)), make([]int, len(learners))
		pending := map[int]bool{}
		for li := range learners {
			lo[li], hi[li], pending[li] = jlo, jhi, true
		}
		res := run.Results{}
		for len(pending) > 0 {
			r, err := run.Grid{
				Learners: len(learners), Sets: 1,
				Js: func(li int) []int {
					if learners[li].rate == "" {
						return []int{run.Default}
					}
					var js []int
					for j := lo[li]; j <= hi[li]; j++ {
						if _, ok := res[run.Cell{Learner: li, J: j}]; !ok {
							js = append(js, j)
						}
					}
					return js
				},
				Skip: func(c run.Cell) bool { return !pending[c.Learner] },
				Do: func(c run.Cell) ([]float64, error) {
					e, err := progressive(bin, files[k], learners[c.Learner], c.J)
					return []float64{e}, err
				},
			}.Run()
			if err != nil {
				return nil, err
			}
			maps.Copy(res, r)
			for li := range pending {
				if learners[li].rate == "" {
					best[[2]int{ki, li}] = cell{res[run.Cell{Learner: li, J: run.Default}][0], math.MinInt}
					delete(pending, li)
					continue
				}
				at := func(j int) float64 { return res[run.Cell{Learner: li, J: j}][0] }
				bj := lo[li]
				for j := lo[li]; j <= hi[li]; j++ {
					if at(j) < at(bj) {
						bj = j
					}
				}
				switch {
				case env.Quick:
				case bj == lo[li] && lo[li] > -15:
					lo[li] -= 3
					continue
				case bj == hi[li] && hi[li] < 24:
					hi[li] += 3
					continue
				}
				best[[2]int{ki, li}] = cell{at(bj), bj}
				delete(pending, li)
			}
		}
		fmt.Fprintf(os.Stderr, "κ = %g done\n", k)
	}
	return best, nil
}

// printTable prints the error table, κ by learner, and each learner's
// spread over κ.
func printTable(kappas []float64, learners []learner, best map[[2]int]cell) {
	fmt.Printf("| κ |")
	for _, l := range learners {
		fmt.Printf(" %s |", l.name)
	}
	fmt.Printf("\n|---|")
	for range learners {
		fmt.Printf("---|")
	}
	fmt.Println()
	for ki, k := range kappas {
		fmt.Printf("| %g |", k)
		for li := range learners {
			b := best[[2]int{ki, li}]
			if b.j == math.MinInt {
				fmt.Printf(" %.2f |", b.err)
			} else {
				fmt.Printf(" %.2f (%d) |", b.err, b.j)
			}
		}
		fmt.Println()
	}
	fmt.Printf("| spread |")
	for li := range learners {
		lo, hi := math.Inf(1), math.Inf(-1)
		for ki := range kappas {
			e := best[[2]int{ki, li}].err
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
		fmt.Printf(" %.2f pp |", hi-lo)
	}
	fmt.Println()
}

// writeCSV writes synthetic_<family>.csv, checking under --quick that
// every error is finite.
func writeCSV(env *run.Env, family string, kappas []float64, learners []learner, best map[[2]int]cell) error {
	var csv strings.Builder
	fmt.Fprintln(&csv, "kappa,learner,error_pct,log2rate")
	for ki, k := range kappas {
		for li, l := range learners {
			b := best[[2]int{ki, li}]
			j := ""
			if b.j != math.MinInt {
				j = fmt.Sprint(b.j)
			}
			fmt.Fprintf(&csv, "%g,%s,%.4f,%s\n", k, l.name, b.err, j)
			if err := env.Finite(fmt.Sprintf("synthetic κ=%g %s", k, l.name), b.err); err != nil {
				return err
			}
		}
	}
	return env.Write("synthetic_"+family+".csv", []byte(csv.String()))
}

// problem draws Z (T×d), an orthonormal V (d×d), labels y = sign(Z·a) and
// the per-coordinate scales of the "scaled" family.
func problem(seed uint64, T int) (*mat.Dense, *mat.Dense, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x51))
	Z := mat.NewDense(T, d, nil)
	for i := 0; i < T; i++ {
		for j := 0; j < d; j++ {
			Z.Set(i, j, rng.NormFloat64())
		}
	}
	G := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(G)
	var V mat.Dense
	qr.QTo(&V)
	a := make([]float64, d)
	for j := range a {
		a[j] = rng.NormFloat64()
	}
	y := make([]float64, T)
	for i := range y {
		var s float64
		for j := 0; j < d; j++ {
			s += Z.At(i, j) * a[j]
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
	}
	// Drawn after the rest, so the rotated family is unchanged by it.
	scales := make([]float64, d)
	for j := range scales {
		scales[j] = math.Pow(10, 4*rng.Float64()-2)
	}
	return Z, &V, y, scales
}

// write stores X = Z·Λ^{1/2}·Vᵀ·diag(scales) (scales nil: none) for
// condition number κ as LIBSVM text.
func write(path string, Z, V *mat.Dense, y, scales []float64, kappa float64) error {
	T, _ := Z.Dims()
	lam := make([]float64, d)
	for j := range lam {
		lam[j] = 1
		if i := j - (d - 10); i >= 0 {
			lam[j] = 1 + float64(i+1)*(kappa-1)/10
		}
	}
	W := mat.NewDense(d, d, nil) // Λ^{1/2}Vᵀ·diag(scales)
	for i := 0; i < d; i++ {
		s := math.Sqrt(lam[i])
		for j := 0; j < d; j++ {
			v := s * V.At(j, i)
			if scales != nil {
				v *= scales[j]
			}
			W.Set(i, j, v)
		}
	}
	var X mat.Dense
	X.Mul(Z, W)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := 0; i < T; i++ {
		fmt.Fprintf(w, "%g", y[i])
		for j := 0; j < d; j++ {
			fmt.Fprintf(w, " %d:%s", j+1, strconv.FormatFloat(X.At(i, j), 'g', 10, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
