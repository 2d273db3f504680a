// Command synthetic reproduces the ill-conditioned benchmark of seed 004
// §5.1 (Fig. 1): T = 10000 examples in d = 100 dimensions, X = Z·Λ^{1/2}·Vᵀ
// with Gaussian Z, a random orthonormal V and the spectrum Λ = (1, …, 1,
// then the last 10 rising linearly to κ); labels y = sign(Z·a) are the same
// for every κ (a linear change of X keeps the data separable by the same
// labels), so a truly invariant learner behaves identically for all κ.
// For κ = 10, 20, …, 200 it prints the one-pass progressive error
// (squared loss, --binary) of AdaGrad and of Oja-SON with m = 0, 5, 10,
// with and without --diag, each at its best learning rate or α over 2^j,
// j = −3…12 (widened by 3 when the best sits on an edge).
//
//	go run ./bench/synthetic [-kappas 10,20,...] [-out bench/out/synthetic.txt]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sparseson/sparseson/bench/internal/run"
	"gonum.org/v1/gonum/mat"
)

const (
	T = 10000
	d = 100
)

type learner struct {
	name  string
	flags []string
	rate  string // the flag swept over 2^j
}

var learners = []learner{
	{"AdaGrad", []string{"--adaptive"}, "-l"},
	{"Oja m=0", []string{"--oja", "-m", "0", "--diag=false"}, "--alpha"},
	{"Oja m=5", []string{"--oja", "-m", "5", "--diag=false"}, "--alpha"},
	{"Oja m=10", []string{"--oja", "-m", "10", "--diag=false"}, "--alpha"},
	{"Oja m=0 diag", []string{"--oja", "-m", "0", "--diag"}, "--alpha"},
	{"Oja m=5 diag", []string{"--oja", "-m", "5", "--diag"}, "--alpha"},
	{"Oja m=10 diag", []string{"--oja", "-m", "10", "--diag"}, "--alpha"},
}

func main() {
	kappaList := flag.String("kappas", "10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160,170,180,190,200", "condition numbers")
	seed := flag.Uint64("seed", 1, "random seed of Z, V and a")
	writeDir := flag.String("write", "", "only write the κ datasets (LIBSVM) into this directory")
	only := flag.String("learners", "", "comma-separated learner names to run (default: all)")
	flag.Parse()
	if *only != "" {
		var keep []learner
		for _, l := range learners {
			if strings.Contains(","+*only+",", ","+l.name+",") {
				keep = append(keep, l)
			}
		}
		learners = keep
	}
	bin, err := run.Binary()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "synthetic")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var kappas []float64
	for _, s := range strings.Split(*kappaList, ",") {
		k, err := strconv.ParseFloat(s, 64)
		if err != nil {
			log.Fatal(err)
		}
		kappas = append(kappas, k)
	}
	Z, V, y := problem(*seed)
	if *writeDir != "" {
		dir = *writeDir
	}
	files := map[float64]string{}
	for _, k := range kappas {
		files[k] = filepath.Join(dir, fmt.Sprintf("k%g.svm", k))
		if err := write(files[k], Z, V, y, k); err != nil {
			log.Fatal(err)
		}
	}
	if *writeDir != "" {
		return
	}
	var mu sync.Mutex
	// Progressive error needs the summary, which --quiet hides: run each
	// setting without --quiet and read "average loss" (0/1 loss with --binary).
	progressive := func(k float64, l learner, j int) (float64, error) {
		args := append([]string{"--noconstant", "--loss_function", "squared", "--binary", "-P", "1000000000", l.rate, run.Pow2(j)}, l.flags...)
		r, err := run.Exec(bin, append(args, files[k])...)
		if err != nil {
			return 0, err
		}
		v, err := strconv.ParseFloat(r.Summary["average loss"], 64)
		if err != nil {
			return 0, fmt.Errorf("no average loss: %s", r.Stderr)
		}
		return 100 * v, nil
	}
	best := make(map[[2]int]struct {
		err float64
		j   int
	})
	for ki, k := range kappas {
		for li, l := range learners {
			lo, hi := -3, 12
			res := map[int]float64{}
			for {
				var jobs []func() error
				for j := lo; j <= hi; j++ {
					if _, ok := res[j]; ok {
						continue
					}
					j := j
					jobs = append(jobs, func() error {
						e, err := progressive(k, l, j)
						mu.Lock()
						res[j] = e
						mu.Unlock()
						return err
					})
				}
				if err := run.Parallel(jobs); err != nil {
					log.Fatal(err)
				}
				bj := lo
				for j := lo; j <= hi; j++ {
					if res[j] < res[bj] {
						bj = j
					}
				}
				switch {
				case bj == lo && lo > -15:
					lo -= 3
					continue
				case bj == hi && hi < 24:
					hi += 3
					continue
				}
				best[[2]int{ki, li}] = struct {
					err float64
					j   int
				}{res[bj], bj}
				break
			}
		}
		fmt.Fprintf(os.Stderr, "κ = %g done\n", k)
	}
	fmt.Printf("One-pass progressive error (%%), squared loss, best of 2^j; T = %d, d = %d, seed %d\n", T, d, *seed)
	fmt.Printf("%5s", "κ")
	for _, l := range learners {
		fmt.Printf(" | %-15s", l.name)
	}
	fmt.Println()
	for ki, k := range kappas {
		fmt.Printf("%5g", k)
		for li := range learners {
			b := best[[2]int{ki, li}]
			fmt.Printf(" | %5.2f (2^%-3d)  ", b.err, b.j)
		}
		fmt.Println()
	}
	for li, l := range learners {
		lo, hi := math.Inf(1), math.Inf(-1)
		for ki := range kappas {
			e := best[[2]int{ki, li}].err
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
		fmt.Printf("%-15s spread over κ: %.2f pp (%.2f … %.2f)\n", l.name, hi-lo, lo, hi)
	}
}

// problem draws Z (T×d), an orthonormal V (d×d) and labels y = sign(Z·a).
func problem(seed uint64) (*mat.Dense, *mat.Dense, []float64) {
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
	return Z, &V, y
}

// write stores X = Z·Λ^{1/2}·Vᵀ for condition number κ as LIBSVM text.
func write(path string, Z, V *mat.Dense, y []float64, kappa float64) error {
	lam := make([]float64, d)
	for j := range lam {
		lam[j] = 1
		if i := j - (d - 10); i >= 0 {
			lam[j] = 1 + float64(i+1)*(kappa-1)/10
		}
	}
	W := mat.NewDense(d, d, nil) // Λ^{1/2}Vᵀ
	for i := 0; i < d; i++ {
		s := math.Sqrt(lam[i])
		for j := 0; j < d; j++ {
			W.Set(i, j, s*V.At(j, i))
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
