package mix_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/gd"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/mix"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func families() []family {
	return []family{gdFamily(), sonFamily("oja", 4), sonFamily("fd", 4)}
}

// train runs exs through m in batches of the given size (0: one Learn per
// example; below 0, batches of −batch handed over by Submit, waiting only
// for the pass's last), with a Mix after every pass, and returns the
// progressive predictions and the saved model.
func train(t testing.TB, m *mix.Mixer, exs []sparse.Example, passes, batch int) ([]float64, []byte) {
	t.Helper()
	var preds []float64
	for range passes {
		out := make([]float64, len(exs))
		if batch == 0 {
			for i := range exs {
				out[i] = m.Learn(&exs[i])
			}
		} else if batch < 0 {
			var last *mix.Batch
			for i := 0; i < len(exs); i -= batch {
				j := min(i-batch, len(exs))
				b, err := m.Submit(exs[i:j], out[i:j])
				if err != nil {
					t.Fatal(err)
				}
				last = b
			}
			last.Wait()
		} else {
			for i := 0; i < len(exs); i += batch {
				j := min(i+batch, len(exs))
				if err := m.LearnBatch(exs[i:j], out[i:j]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := m.Mix(); err != nil {
			t.Fatal(err)
		}
		preds = append(preds, out...)
	}
	return preds, save(t, m)
}

// TestOneShardIsThePlainLearner: K = 1 adds nothing — the same
// progressive predictions and the same model bytes as the learner alone.
func TestOneShardIsThePlainLearner(t *testing.T) {
	exs := stream(600, 3000, 12, 1)
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			plain, err := f.new(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []float64
			for range 2 {
				for i := range exs {
					want = append(want, plain.Learn(&exs[i]))
				}
			}
			wantModel := save(t, plain)
			for _, batch := range []int{0, 1, 64} {
				m, err := mix.New(f.config(1, 100))
				if err != nil {
					t.Fatal(err)
				}
				got, gotModel := train(t, m, exs, 2, batch)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("batch %d: prediction %d: %v, the plain learner %v", batch, i, got[i], want[i])
					}
				}
				if !bytes.Equal(gotModel, wantModel) {
					t.Fatalf("batch %d: the model differs from the plain learner's", batch)
				}
				if s := m.Stats(); s.Mixes != 0 {
					t.Fatalf("batch %d: %d mixes with K = 1", batch, s.Mixes)
				}
			}
		})
	}
}

// TestDeterministic: for a fixed K the predictions and the model do not
// depend on GOMAXPROCS nor on how the stream is cut into batches. The
// stream has more features than a merge's block (sparse.MergeBlock), so
// that the merges run on several cores where there are several.
func TestDeterministic(t *testing.T) {
	exs := stream(700, 40000, 12, 2)
	if d := distinct(exs); d <= sparse.MergeBlock {
		t.Fatalf("%d features: the merges would not be cut into blocks", d)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, f := range families() {
		for _, k := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/K=%d", f.name, k), func(t *testing.T) {
				var refPreds []float64
				var refModel []byte
				for _, procs := range []int{1, 2, 8} {
					runtime.GOMAXPROCS(procs)
					for _, batch := range []int{0, 1, 37, -37, len(exs)} {
						m, err := mix.New(f.config(k, 150))
						if err != nil {
							t.Fatal(err)
						}
						preds, model := train(t, m, exs, 2, batch)
						if refModel == nil {
							refPreds, refModel = preds, model
							// 150, 300, … 1350 and the two pass ends (700, 1400).
							if s := m.Stats(); s.Mixes != 11 {
								t.Fatalf("%d mixes, want 11", s.Mixes)
							}
							continue
						}
						for i := range preds {
							if preds[i] != refPreds[i] {
								t.Fatalf("GOMAXPROCS %d, batch %d: prediction %d is %v, first run %v", procs, batch, i, preds[i], refPreds[i])
							}
						}
						if !bytes.Equal(model, refModel) {
							t.Fatalf("GOMAXPROCS %d, batch %d: the model differs from the first run's", procs, batch)
						}
					}
				}
			})
		}
	}
}

// TestMixIsTheMergeOfTheShards: one pass in K = 2 shards with a mix at
// its end is the merge of two learners trained apart on the even and the
// odd examples, and the shards continue from that merge.
func TestMixIsTheMergeOfTheShards(t *testing.T) {
	exs := stream(500, 3000, 12, 3)
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			var parts []sparse.Learner
			var want []float64
			for range 2 {
				l, err := f.new(2, nil)
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, l)
			}
			want = make([]float64, len(exs))
			for i := range exs {
				want[i] = parts[i%2].Learn(&exs[i])
			}
			target, err := f.new(2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := target.(sparse.Merger).Merge(&sparse.MergeArgs{Parts: parts}); err != nil {
				t.Fatal(err)
			}
			m, err := mix.New(f.config(2, 0))
			if err != nil {
				t.Fatal(err)
			}
			got, gotModel := train(t, m, exs, 1, 64)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("prediction %d: %v, the shard trained apart %v", i, got[i], want[i])
				}
			}
			if !bytes.Equal(gotModel, save(t, target)) {
				t.Fatal("the mixed model is not the merge of the shards trained apart")
			}
			// The second pass starts every shard from the merge.
			next := make([]float64, 2)
			if err := m.LearnBatch(exs[:2], next); err != nil {
				t.Fatal(err)
			}
			if p := target.Predict(&exs[0]); next[0] != p {
				t.Fatalf("shard 0 after the mix predicts %v, the merge %v", next[0], p)
			}
			if m.Pending() != 2 {
				t.Fatalf("pending %d, want 2", m.Pending())
			}
		})
	}
}

// TestMixedModelLoads: the model a sharded run saves is an ordinary model
// of its learner: loaded alone, it predicts what the Mixer predicts.
func TestMixedModelLoads(t *testing.T) {
	exs := stream(400, 3000, 12, 4)
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			m, err := mix.New(f.config(4, 97))
			if err != nil {
				t.Fatal(err)
			}
			_, data := train(t, m, exs, 1, 50)
			_, r, err := model.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			l, err := f.new(4, r)
			if err != nil {
				t.Fatal(err)
			}
			for i := range exs[:50] {
				if a, b := l.Predict(&exs[i]), m.Predict(&exs[i]); a != b {
					t.Fatalf("example %d: the loaded model predicts %v, the Mixer %v", i, a, b)
				}
			}
		})
	}
}

// TestRefused: configurations and learners that cannot be mixed are
// refused by New, naming the field or the learner.
func TestRefused(t *testing.T) {
	g := gdFamily()
	nasa := gd.Config{Bits: bits, Adaptive: true, Eta: 0.5, PowerT: 0.5, Step: gd.StepNASA, NasaC: 1, NasaH: 1, NasaL: 1}
	full := son.Config{Bits: 8, C: 1, Eta0: 1, EtaPower: 0.5}
	cases := []struct {
		name string
		cfg  mix.Config
		want string
	}{
		{"K", mix.Config{K: 0, New: g.config(1, 0).New}, "Config.K"},
		{"New", mix.Config{K: 2, Load: g.config(2, 0).Load}, "Config.New"},
		{"Load", mix.Config{K: 2, New: g.config(2, 0).New}, "Config.Load"},
		{"Every", mix.Config{K: 2, New: g.config(2, 0).New, Load: g.config(2, 0).Load, Every: -1}, "Config.Every"},
		{"nasa", mix.Config{K: 2, Load: g.config(2, 0).Load, New: func(int) (sparse.Learner, error) { return gd.New(nasa, loss.Logistic{}) }}, "*gd.GD cannot be merged"},
		{"full", mix.Config{K: 2, Load: g.config(2, 0).Load, New: func(int) (sparse.Learner, error) { return son.NewFull(full, 1, loss.Logistic{}) }}, "*son.Full cannot be merged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mix.New(c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
	// One shard needs no merge: any learner goes.
	if _, err := mix.New(mix.Config{K: 1, New: func(int) (sparse.Learner, error) { return son.NewFull(full, 1, loss.Logistic{}) }}); err != nil {
		t.Fatalf("K = 1 with full ONS: %v", err)
	}
}

// distinct is the number of features the examples hold.
func distinct(exs []sparse.Example) int {
	seen := map[uint32]bool{}
	for _, ex := range exs {
		for _, k := range ex.Idx {
			seen[k] = true
		}
	}
	return len(seen)
}

// TestCopiesLazily: a mix restarts the shards from the merge only when
// they learn again, so a run that ends with a mix (a pass end, Save)
// copies nothing after it; a warm-up's hand-off copies at once.
func TestCopiesLazily(t *testing.T) {
	f := gdFamily()
	exs := stream(300, 500, 8, 5)
	out := make([]float64, len(exs))
	for _, tc := range []struct {
		name   string
		cfg    mix.Config
		before int // copies after the first LearnBatch (the warm-up's)
	}{
		{"no warm-up", f.config(2, 0), 0},
		{"warm-up of 100", f.warmed(2, 0, 100), 1},
	} {
		m, err := mix.New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.LearnBatch(exs[:200], out); err != nil {
			t.Fatal(err)
		}
		want := tc.before
		for step, do := range []func() error{
			m.Mix, // merges: no copy yet
			func() error { return m.LearnBatch(exs[200:], out) }, // the shards restart first
			m.Mix,
			func() error { _ = save(t, m); return nil }, // Save mixes nothing new
		} {
			if err := do(); err != nil {
				t.Fatal(err)
			}
			if step == 1 {
				want++
			}
			if got := m.Stats().Copies; got != want {
				t.Fatalf("%s, step %d: %d copies, want %d", tc.name, step, got, want)
			}
		}
	}
}
