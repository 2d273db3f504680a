package son

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// The shard-aware ridge of the scaled-space form (scaled.go, setAlpha:
// --total K).

func newTotalSON(t *testing.T, total int) *Learner {
	t.Helper()
	s, err := New(Config{Bits: 12, C: math.Inf(1), Diag: true, Scaled: true, Total: total}, loss.Logistic{}, &NoSketch{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// totalExamples are sparse examples over 400 features, 3–12 per example,
// with importance weights in [0.5, 2).
func totalExamples(n int, seed uint64) []sparse.Example {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]sparse.Example, n)
	for i := range out {
		e := &out[i]
		e.Label, e.HasLabel, e.Weight = float64(2*r.IntN(2)-1), true, 0.5+1.5*r.Float64()
		seen := map[uint32]bool{}
		for k := 3 + r.IntN(10); k > 0; k-- {
			j := uint32(r.IntN(400))
			if !seen[j] {
				seen[j] = true
				e.Idx = append(e.Idx, j)
				e.Val = append(e.Val, r.NormFloat64())
			}
		}
	}
	return out
}

// rhoOf is ρ of setAlpha for an m = 0 sketch (nothing captured, rank 0).
func rhoOf(s *Learner, wPrev float64) float64 {
	return math.Max(0, s.sumG2/(wPrev*float64(s.tab.Len())))
}

// TestTotalRidge: a shard of K (Total = K) that has seen W has the α₀ of
// a stream learner that has seen K·W with the same features and the same
// ρ: ρ + ¼·(d/(K·W))². Started from a merged model of weight W₀ (its own
// weight W_own = W − W₀), the stream's weight is W₀ + K·W_own. Fails if
// the ridge ignores Total, multiplies the wrong W, or changes ρ.
func TestTotalRidge(t *testing.T) {
	const K = 4
	ex := totalExamples(300, 1)
	shard := newTotalSON(t, K)
	// First example: ρ = 0 (nothing sketched before), so α₀ is the ridge
	// alone, with W = h₁.
	shard.Learn(&ex[0])
	d, h := float64(len(ex[0].Idx)), ex[0].Weight
	if want := Prior * (d / (K * h)) * (d / (K * h)); math.Abs(shard.Alpha0()-want) > 1e-12*want {
		t.Fatalf("after one example: α₀ = %v, want ¼·(d/(K·h))² = %v", shard.Alpha0(), want)
	}
	var wsum float64 = h
	for i := 1; i < len(ex); i++ {
		shard.Learn(&ex[i])
		wsum += ex[i].Weight
	}
	if shard.wOwn != shard.w || math.Abs(shard.w-wsum) > 1e-9 {
		t.Fatalf("W_own = %v, W = %v, Σh = %v: a fresh shard's weight is all its own", shard.wOwn, shard.w, wsum)
	}
	// The same state as a stream learner (Total 1) with K times the
	// weight and K times Σ‖ĝ‖² (so the same ρ): the same α₀.
	W, wPrev := shard.w, shard.w-ex[len(ex)-1].Weight
	shard.setAlpha(wPrev)
	dd := float64(shard.tab.Len())
	want := rhoOf(shard, wPrev) + Prior*(dd/(K*W))*(dd/(K*W))
	if got := shard.Alpha0(); math.Abs(got-want) > 1e-12*want {
		t.Fatalf("shard α₀ = %v, want ρ + ¼·(d/(K·W))² = %v", got, want)
	}
	stream := newTotalSON(t, 1)
	stream.tab, stream.sumG2, stream.w = shard.tab, K*shard.sumG2, K*W
	stream.setAlpha(K * wPrev)
	if math.Abs(stream.Alpha0()-shard.Alpha0()) > 1e-12*want {
		t.Fatalf("stream learner after K·W: α₀ = %v, shard %v", stream.Alpha0(), shard.Alpha0())
	}
	if stream.Alpha0() == newAlphaWithoutTotal(shard, wPrev) {
		t.Fatal("the shard's α₀ equals its α₀ without --total: the test cannot tell the rules apart")
	}
	// A later round: W₀ from the merged model, W_own seen since.
	const w0 = 1000.0
	shard.w, shard.wOwn = w0+W, W
	shard.setAlpha(w0 + wPrev)
	stream.w = w0 + K*W
	stream.sumG2 = shard.sumG2 * (w0 + K*wPrev) / (w0 + wPrev)
	stream.setAlpha(w0 + K*wPrev)
	want = rhoOf(shard, w0+wPrev) + Prior*(dd/(w0+K*W))*(dd/(w0+K*W))
	if math.Abs(shard.Alpha0()-want) > 1e-12*want || math.Abs(stream.Alpha0()-want) > 1e-12*want {
		t.Fatalf("after a merge: shard α₀ = %v, stream %v, want %v", shard.Alpha0(), stream.Alpha0(), want)
	}
}

// newAlphaWithoutTotal is the α₀ the same state would have with Total 1.
func newAlphaWithoutTotal(s *Learner, wPrev float64) float64 {
	c := *s
	c.cfg.Total = 1
	c.sk = &NoSketch{}
	c.setAlpha(wPrev)
	return c.alpha0
}

// TestTotalOwnWeight: W_own grows only with Total > 1, is saved with the
// model, is dropped when the model is resumed as the whole stream
// (Total 1), and is 0 in a merged model (all of whose weight is the
// stream's), whose α₀ is then ¼·(d/W)² + ρ.
func TestTotalOwnWeight(t *testing.T) {
	ex := totalExamples(200, 2)
	one, four := newTotalSON(t, 1), newTotalSON(t, 4)
	for i := range ex {
		one.Learn(&ex[i])
		four.Learn(&ex[i])
	}
	if one.wOwn != 0 || !(four.wOwn > 0) || four.wOwn != four.w {
		t.Fatalf("W_own: %v with Total 1, %v with Total 4 (W = %v)", one.wOwn, four.wOwn, four.w)
	}
	if one.Alpha0() == four.Alpha0() {
		t.Fatal("Total 4 did not change α₀")
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, func(w *model.Writer) error { return four.Save(w) }); err != nil {
		t.Fatal(err)
	}
	for _, total := range []int{4, 1} {
		_, r, err := model.Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		cfg := four.cfg
		cfg.Total = total
		back, err := Load(r, cfg, loss.Logistic{}, &NoSketch{})
		if err != nil {
			t.Fatal(err)
		}
		want := four.wOwn
		if total == 1 {
			want = 0
		}
		if back.wOwn != want {
			t.Fatalf("loaded with Total %d: W_own = %v, want %v", total, back.wOwn, want)
		}
	}
	// Two shards of 4 merged.
	a, b := newTotalSON(t, 4), newTotalSON(t, 4)
	for i := range ex {
		if i%2 == 0 {
			a.Learn(&ex[i])
		} else {
			b.Learn(&ex[i])
		}
	}
	m := newTotalSON(t, 4)
	if err := m.Merge(&sparse.MergeArgs{Parts: []sparse.Learner{a, b}}); err != nil {
		t.Fatal(err)
	}
	if m.wOwn != 0 || math.Abs(m.w-(a.w+b.w)) > 1e-9 {
		t.Fatalf("merged: W_own = %v, W = %v (parts %v + %v)", m.wOwn, m.w, a.w, b.w)
	}
	d := float64(m.tab.Len())
	if want := rhoOf(m, m.w) + Prior*(d/m.w)*(d/m.w); math.Abs(m.Alpha0()-want) > 1e-12*want {
		t.Fatalf("merged α₀ = %v, want ρ + ¼·(d/W)² = %v", m.Alpha0(), want)
	}
	// Parts with another Total are refused.
	c := newTotalSON(t, 2)
	c.Learn(&ex[0])
	if err := newTotalSON(t, 4).Merge(&sparse.MergeArgs{Parts: []sparse.Learner{a, c}}); err == nil {
		t.Fatal("merged a part trained with Total 2 into Total 4")
	}
	if _, err := New(Config{Bits: 12, C: 1, Diag: true, Scaled: true, Total: -1}, loss.Logistic{}, &NoSketch{}); err == nil {
		t.Fatal("Total −1 accepted")
	}
}
