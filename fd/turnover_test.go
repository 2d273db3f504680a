package fd

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/son"
	"gonum.org/v1/gonum/mat"
)

// TestRealDataTurnover measures how far FD's sketch turns over between two
// compactions on news20 (developer-only, like TestRealDataRates: set
// FD_DATA; FD_PASSES, default 3). It trains the command line's FD-SON
// (--fd -m 10, the scaled-space form) and, as each compaction in the
// diagonal state begins, splits Z's rows into the q "old" rows the last
// compaction left and the rows appended since ("young"), and reports, with
// F = E^{−1/2}C taken on row-equilibrated Z:
//
//   - the numerical rank (singular values > 1e-8·σ₁) of F_old, F's columns
//     on the old rows: below q, some live direction has no component in
//     them at all;
//   - the condition number of F_old: the factor by which rows would be
//     swamped if the young rows were folded into the old ones
//     (Z_old += F_old⁻¹F_young·Z_young), the one compaction that would
//     leave every other feature's row current;
//   - how many of the p − q dead dimensions (null space of F) lie in the
//     young rows alone, and so could be dropped by touching only their
//     columns.
//
// It asserts only what makes the figures meaningful (some compactions
// were seen; rank and counts within their ranges).
func TestRealDataTurnover(t *testing.T) {
	dir := os.Getenv("FD_DATA")
	if dir == "" || testing.Short() {
		t.Skip("set FD_DATA to the directory with news20.train.svm.gz")
	}
	data, err := readLIBSVM(dir+"/news20.train.svm.gz", 18)
	if err != nil {
		t.Skip(err)
	}
	passes := 3
	if v := os.Getenv("FD_PASSES"); v != "" {
		fmt.Sscan(v, &passes)
	}
	sk, err := New(cliFD(10, false))
	if err != nil {
		t.Fatal(err)
	}
	sl, err := son.New(cliSON(18), loss.Logistic{}, sk)
	if err != nil {
		t.Fatal(err)
	}
	rank := func(a mat.Matrix) (int, float64) {
		var d mat.SVD
		if !d.Factorize(a, mat.SVDNone) {
			return -1, math.Inf(1)
		}
		v := d.Values(nil)
		n := 0
		for _, x := range v {
			if x > 1e-8*v[0] {
				n++
			}
		}
		return n, v[0] / v[len(v)-1]
	}
	var n, fullOld, youngOnlyDead, deadDims int
	var ranks [MaxM + 1]int
	var condLog [25]int
	pOld := -1 // rows after the last compaction (diagonal state)
	compactProbe = func(s *Sketch, done bool) {
		if done {
			pOld = s.p
			return
		}
		p, q, pm := s.p, s.q, s.pmax
		if !s.diag || pOld != q || p <= q {
			return
		}
		F := mat.NewDense(q, p, nil)
		for i := 0; i < q; i++ {
			inv := 1 / math.Sqrt(s.E[i])
			for j := 0; j < p; j++ {
				F.Set(i, j, s.C[i*pm+j]*inv*math.Sqrt(s.K[j*pm+j]))
			}
		}
		rOld, cond := rank(F.Slice(0, q, 0, q))
		rYoung, _ := rank(F.Slice(0, q, q, p))
		if rOld < 0 || rYoung < 0 {
			return
		}
		n++
		ranks[rOld]++
		if rOld == q {
			fullOld++
		}
		condLog[min(24, max(0, int(math.Log10(cond))))]++
		youngOnlyDead += (p - q) - rYoung
		deadDims += p - q
	}
	defer func() { compactProbe = nil }()
	for pass := 0; pass < passes; pass++ {
		for i := range data {
			sl.Learn(&data[i])
		}
	}
	if n == 0 {
		t.Fatal("no compaction in the diagonal state was seen")
	}
	fmt.Printf("news20, --fd -m 10, %d passes: %d compactions examined (of %d)\n", passes, n, sk.Counts().Compactions)
	fmt.Printf("rank of F_old (q = %d):", sk.m-1)
	for r, c := range ranks {
		if c > 0 {
			fmt.Printf(" %d: %d", r, c)
		}
	}
	fmt.Printf("\ncond(F_old), by decade:")
	for e, c := range condLog {
		if c > 0 {
			fmt.Printf(" 1e%d: %d", e, c)
		}
	}
	fmt.Printf("\nF_old full rank at %d of %d; dead dimensions in the young rows alone: %d of %d (%.1f%%)\n",
		fullOld, n, youngOnlyDead, deadDims, 100*float64(youngOnlyDead)/float64(deadDims))
	if youngOnlyDead < 0 || youngOnlyDead > deadDims {
		t.Fatalf("dead dimensions out of range: %d of %d", youngOnlyDead, deadDims)
	}
}
