package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

var adagrad = gd.Config{Bits: 12, Adaptive: true, Normalized: true, Eta: 0.5, PowerT: 0.5}

func gdFactory(t testing.TB) Factory {
	return func(r *model.Reader) (sparse.Learner, error) {
		if r == nil {
			return gd.New(adagrad, loss.Logistic{})
		}
		return gd.Load(r, adagrad, loss.Logistic{})
	}
}

// classStream draws n examples with labels in 1..k: the argmax of k hidden
// linear rules, 10% of the labels replaced by a random class.
func classStream(n, k int, seed uint64) []sparse.Example {
	const d = 200
	data := dense.Problem{D: d, S: 12, T: n, Loss: "squared", Seed: seed}.Examples()
	rng := rand.New(rand.NewPCG(seed, 7))
	theta := make([][]float64, k)
	for c := range theta {
		theta[c] = make([]float64, d)
		for j := range theta[c] {
			theta[c][j] = rng.NormFloat64()
		}
	}
	for i := range data {
		ex := &data[i]
		best := math.Inf(-1)
		for c := range theta {
			var m float64
			for q, j := range ex.Idx {
				m += theta[c][j] * ex.Val[q]
			}
			if m > best {
				best, ex.Label = m, float64(c+1)
			}
		}
		if rng.Float64() < 0.1 {
			ex.Label = float64(1 + rng.IntN(k))
		}
	}
	return data
}

// TestOAAIsKBinaryLearners: OAA's bases are exactly K binary learners
// trained on ±1 labels — every base's progressive score, the predicted
// class (the first highest score) and the final weights are bit-identical
// to K separately trained learners — and the example's label is left as
// it was.
//
// It holds whatever the classes' split over cores: serially, and in 2 and
// 3 parts forced on every example (run with -race to see that the parts
// share nothing they write).
func TestOAAIsKBinaryLearners(t *testing.T) {
	for _, parts := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) { testOAAIsKBinary(t, parts) })
	}
}

func testOAAIsKBinary(t *testing.T, parts int) {
	const k = 5
	data := classStream(2000, k, 1)
	o, err := NewOAA(k, 12, gdFactory(t))
	if err != nil {
		t.Fatal(err)
	}
	o.SetCores(parts)
	o.par.min = 0
	sep := make([]*gd.GD, k)
	for c := range sep {
		sep[c], _ = gd.New(adagrad, loss.Logistic{})
	}
	bin := make([]sparse.Example, k)
	for i := range data {
		ex := &data[i]
		y := ex.Label
		if i%7 == 0 {
			o.Predict(ex)
			for c := range sep {
				if s := sep[c].Predict(ex); s != o.scores[c] {
					t.Fatalf("example %d class %d: OAA predicts %v, separate learner %v", i, c+1, o.scores[c], s)
				}
			}
		}
		got := o.Learn(ex)
		if ex.Label != y {
			t.Fatalf("example %d: label %v left as %v", i, y, ex.Label)
		}
		best, want := math.Inf(-1), 0
		for c := range sep {
			bin[c].CopyFrom(ex)
			bin[c].Label = -1
			if float64(c+1) == y {
				bin[c].Label = 1
			}
			s := sep[c].Learn(&bin[c])
			if s != o.scores[c] {
				t.Fatalf("example %d class %d: OAA score %v, separate learner %v", i, c+1, o.scores[c], s)
			}
			if s > best {
				best, want = s, c+1
			}
		}
		if got != float64(want) {
			t.Fatalf("example %d: predicted %v, want %d", i, got, want)
		}
	}
	for c := range sep {
		want := map[uint32]float64{}
		sep[c].Weights(func(s uint32, w float64) { want[s] = w })
		n := 0
		o.ClassWeights(c+1, func(s uint32, w float64) {
			n++
			if w != want[s] {
				t.Fatalf("class %d slot %d: %v vs %v", c+1, s, w, want[s])
			}
		})
		if n != len(want) {
			t.Fatalf("class %d: %d weights, want %d", c+1, n, len(want))
		}
	}
	// It learns: the progressive error over the second half is far below
	// chance.
	var errs int
	o2, _ := NewOAA(k, 12, gdFactory(t))
	for i := range data {
		if p := o2.Learn(&data[i]); i >= len(data)/2 && p != data[i].Label {
			errs++
		}
	}
	rate := float64(errs) / float64(len(data)/2)
	t.Logf("progressive error over the second half: %.3f", rate)
	if rate > 0.5 {
		t.Fatalf("progressive error %.3f (chance: 0.8)", rate)
	}
}

func encode(t testing.TB, l sparse.Learner) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, l.Save); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOAASaveLoadContinue: save → load → continue is bit-identical to
// never stopping, and damaged models are refused.
func TestOAASaveLoadContinue(t *testing.T) {
	const k = 4
	data := classStream(1000, k, 2)
	a, _ := NewOAA(k, 12, gdFactory(t))
	for i := range data[:500] {
		a.Learn(&data[i])
	}
	saved := encode(t, a)
	_, r, err := model.Parse(saved)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOAA(r, k, 12, gdFactory(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data[500:] {
		ex := &data[500+i]
		if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
			t.Fatalf("step %d after load: %v vs %v", i, pa, pb)
		}
		for c := range a.scores {
			if a.scores[c] != b.scores[c] {
				t.Fatalf("step %d class %d: score %v vs %v", i, c+1, a.scores[c], b.scores[c])
			}
		}
	}
	if !bytes.Equal(encode(t, a), encode(t, b)) {
		t.Fatal("saved states differ after continuing")
	}

	_, r, _ = model.Parse(saved)
	if _, err := LoadOAA(r, k+1, 12, gdFactory(t)); !errors.Is(err, model.ErrCorrupt) {
		t.Errorf("wrong K: got %v, want a corrupt-model error", err)
	}
	// The last class's part holds garbage instead of a learner.
	var buf bytes.Buffer
	model.Encode(&buf, model.Options{}, func(w *model.Writer) error {
		w.Uint32(k)
		w.Uint32s(a.ids.Keys)
		for c := 0; c < k; c++ {
			sub := a.bases[c]
			w.Section(func(s *model.Writer) error {
				if c == k-1 {
					s.Uint32(1)
					return nil
				}
				return sub.Save(s)
			})
		}
		return nil
	})
	_, r, _ = model.Parse(buf.Bytes())
	if _, err := LoadOAA(r, k, 12, gdFactory(t)); !errors.Is(err, model.ErrCorrupt) || !strings.Contains(err.Error(), "class 4") {
		t.Errorf("damaged class: got %v, want a corrupt-model error naming class 4", err)
	}
	// A slot numbered twice.
	buf.Reset()
	model.Encode(&buf, model.Options{}, func(w *model.Writer) error {
		w.Uint32(k)
		w.Uint32s([]uint32{5, 9, 5})
		return nil
	})
	_, r, _ = model.Parse(buf.Bytes())
	if _, err := LoadOAA(r, k, 12, gdFactory(t)); !errors.Is(err, model.ErrCorrupt) {
		t.Errorf("duplicate slot: got %v, want a corrupt-model error", err)
	}
	if _, err := NewOAA(1, 12, gdFactory(t)); err == nil {
		t.Error("--oaa 1 accepted")
	}
}

// TestOAAProbabilities: VW's normalised logistic probabilities, positive
// and summing to 1 even for extreme or NaN scores; a label that is not a
// class is predicted, not learned.
func TestOAAProbabilities(t *testing.T) {
	o := &OAA{scores: []float64{0, 0, math.Log(3)}}
	p := make([]float64, 3)
	o.Probabilities(p)
	// σ(0) = ½, σ(log 3) = ¾: normalised ½/1.75, ½/1.75, ¾/1.75.
	want := []float64{0.5 / 1.75, 0.5 / 1.75, 0.75 / 1.75}
	for c := range p {
		if math.Abs(p[c]-want[c]) > 1e-15 {
			t.Fatalf("p = %v, want %v", p, want)
		}
	}
	for _, s := range [][]float64{{-1e6, -1e6, -1e6}, {math.NaN(), math.NaN(), math.NaN()}, {1e300, math.NaN(), -1e300}} {
		o.scores = s
		o.Probabilities(p)
		sum := 0.0
		for _, v := range p {
			if !(v >= 0) {
				t.Fatalf("scores %v: probability %v", s, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("scores %v: probabilities sum to %v", s, sum)
		}
	}
	if argmax([]float64{math.NaN(), 2, 2, 1}) != 2 {
		t.Fatal("argmax: want the first highest, NaN never winning")
	}
	oa, _ := NewOAA(3, 12, gdFactory(t))
	for _, y := range []float64{0, 4, 2.5} {
		ex := sparse.Example{Label: y, HasLabel: true, Weight: 1, Idx: []uint32{3}, Val: []float64{1}}
		oa.Learn(&ex)
		if ex.Label != y {
			t.Fatal("label changed")
		}
	}
	for _, b := range oa.bases {
		b.Weights(func(uint32, float64) { t.Fatal("an example without a valid class was learned from") })
	}
}

// TestOutputs: what each output stage reports and the loss it counts.
func TestOutputs(t *testing.T) {
	fixed := func(p float64) sparse.Learner { return constLearner(p) }
	sq := &loss.Squared{}
	sq.Observe(-1)
	sq.Observe(1)
	cases := []struct {
		name      string
		out       Output
		label     float64
		want, val float64
	}{
		{"scalar clamps to the label range", Scalar(fixed(3), sq), 1, 1, 0},
		{"scalar NaN is 0", Scalar(fixed(math.NaN()), sq), 1, 0, 1},
		{"scalar logistic", Scalar(fixed(2), loss.Logistic{}), -1, 2, math.Log1p(math.Exp(2))},
		{"binary right", Binary(Scalar(fixed(0.3), loss.Logistic{})), 1, 1, 0},
		{"binary zero is −1", Binary(Scalar(fixed(0), loss.Logistic{})), 1, -1, 1},
		{"link reports σ, loss on the score", Link(Scalar(fixed(2), loss.Logistic{})), -1, 1 / (1 + math.Exp(-2)), math.Log1p(math.Exp(2))},
	}
	for _, c := range cases {
		ex := &sparse.Example{Label: c.label, HasLabel: true, Weight: 1}
		for _, got := range []float64{c.out.Predict(ex), c.out.Learn(ex)} {
			if got != c.want {
				t.Errorf("%s: reports %v, want %v", c.name, got, c.want)
			}
			if l := c.out.Loss(ex, got); math.Abs(l-c.val) > 1e-15 {
				t.Errorf("%s: loss %v, want %v", c.name, l, c.val)
			}
		}
	}
	o, _ := NewOAA(3, 12, gdFactory(t))
	out := Classes(o)
	ex := &sparse.Example{Label: 2, HasLabel: true, Weight: 1, Idx: []uint32{1}, Val: []float64{1}}
	if p := out.Predict(ex); p != 1 || out.Loss(ex, p) != 1 || out.Loss(ex, 2) != 0 {
		t.Error("Classes: want class 1 on a fresh model (all scores 0) and 0/1 loss")
	}
}

type constLearner float64

func (c constLearner) Predict(*sparse.Example) float64 { return float64(c) }
func (c constLearner) Learn(*sparse.Example) float64   { return float64(c) }
func (constLearner) Save(*model.Writer) error          { return nil }
func (constLearner) Weights(func(uint32, float64))     {}

// BenchmarkOAA: K = 20 AdaGrad bases on the news20-like stream with random
// classes; BenchmarkBinary is the one-class unit it is K times.
func BenchmarkOAA(b *testing.B) {
	data := dense.News(18)
	rng := rand.New(rand.NewPCG(4, 5))
	cls := make([]sparse.Example, len(data))
	for i := range data {
		cls[i].CopyFrom(&data[i])
		cls[i].Label = float64(1 + rng.IntN(20))
	}
	cfg := adagrad
	cfg.Bits = 18
	for _, cores := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			o, _ := NewOAA(20, 18, func(*model.Reader) (sparse.Learner, error) { return gd.New(cfg, loss.Logistic{}) })
			o.SetCores(cores)
			dense.Steady(b, o, cls)
		})
	}
}

func BenchmarkBinary(b *testing.B) {
	cfg := adagrad
	cfg.Bits = 18
	g, _ := gd.New(cfg, loss.Logistic{})
	dense.Steady(b, g, dense.News(18))
}

// TestOAAParallelPaths: the classes shared out over 2 and 3 threads give
// the serial scores while the helpers spin, after they have parked (a
// pause longer than spinFor), across the wrap of the 32-bit generation
// counter, and after SetCores has replaced the helpers.
func TestOAAParallelPaths(t *testing.T) {
	const k = 7
	data := classStream(600, k, 3)
	for _, threads := range []int{2, 3} {
		o, _ := NewOAA(k, 12, gdFactory(t))
		o.SetCores(threads)
		o.par.min = 0
		o.par.state.Store(uint64(1<<32-3) << 32) // wraps within 3 examples
		ref, _ := NewOAA(k, 12, gdFactory(t))
		ref.SetCores(1)
		for i := range data {
			switch i {
			case 200, 201:
				time.Sleep(4 * spinFor)
			case 400:
				o.SetCores(threads)
				o.par.min = 0
			}
			got, want := o.Learn(&data[i]), ref.Learn(&data[i])
			if got != want || !slices.Equal(o.scores, ref.scores) {
				t.Fatalf("%d threads, example %d: class %v scores %v, serial %v %v", threads, i, got, o.scores, want, ref.scores)
			}
		}
	}
}

// slowLearner is constLearner taking a millisecond per example: a helper
// holding its chunk keeps the caller waiting past its spin (waitSpin).
type slowLearner struct{ constLearner }

func (s slowLearner) Learn(ex *sparse.Example) float64 {
	time.Sleep(time.Millisecond)
	return s.constLearner.Learn(ex)
}

// TestOAAWaitsForSlowHelper: the caller sleeping for a helper's chunk
// (the path taken when the OS deschedules the helper) wakes when it is
// done, every time, and the scores are the bases' own.
func TestOAAWaitsForSlowHelper(t *testing.T) {
	const k = 4
	bases := []sparse.Learner{constLearner(1), constLearner(2), constLearner(3), slowLearner{constLearner(4)}}
	i := 0
	o, err := NewOAA(k, 8, func(*model.Reader) (sparse.Learner, error) { i++; return bases[i-1], nil })
	if err != nil {
		t.Fatal(err)
	}
	o.SetCores(2)
	o.par.min = 0
	ex := &sparse.Example{Label: 2, HasLabel: true, Weight: 1, Idx: []uint32{1, 2}, Val: []float64{1, 1}}
	for n := 0; n < 200; n++ {
		if got := o.Learn(ex); got != 4 || !slices.Equal(o.scores, []float64{1, 2, 3, 4}) {
			t.Fatalf("example %d: class %v, scores %v", n, got, o.scores)
		}
	}
}
