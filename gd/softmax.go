package gd

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// Softmax is multinomial logistic regression (--softmax K): one K×d weight
// matrix W, class scores s = Wx, probabilities p = softmax(s), and the loss
// ℓ = −log p_y of the example's class y ∈ 1…K, whose gradient is the
// rank-one matrix G = (p − e_y)xᵀ — row k is d_k·x with d_k = p_k − [k = y].
//
// Each row of W is updated as the binary learner updates its weights with
// the derivative d_k in place of ℓ': with Config.Adaptive each weight w_kj
// has its own AdaGrad sum Σ importance·d_k²·x_j², and with
// Config.Normalized VW's scale-invariant normalization applies as it does
// in the binary learner. Its state is per feature, not per weight — the
// largest |x_j| seen (N_j) rescales the K weights of feature j together,
// and the global rate √(Σ importance / Σ importance·Σ_j x_j²/N_j²) counts
// each example once — since x is shared by the K rows. The learning-rate
// schedule (-l, --power_t, --initial_t) and the --l2 contraction (a global
// scale, O(1)) are the binary learner's. NASA steps are not offered.
//
// Cost: O(K·s) per example with s the example's features (K dot products
// to predict; K weight and accumulator updates per feature to learn), the
// same as K binary AdaGrad learners, and 2K + 1 floats per feature seen
// (K + 1 without --adaptive); no O(d) work.
type Softmax struct {
	cfg   Config
	k     int
	tab   *sparse.Table // per feature: [N_j, w_1j … w_Kj, (G_1j … G_Kj)]
	scale float64       // the model's W is scale·(stored W)
	t     float64       // initial_t + Σ importance of training examples
	// normalized state: Σ importance·Σ_j x_j²/N_j² and Σ importance
	normSum, totalWeight float64

	rows []int     // per-example scratch: row offsets
	s, p []float64 // the last example's scores and probabilities
	c    []float64 // per-example scratch: per-class step factors

	rejected int // updates refused as numerically out of range (gradInRange)
}

// Rejected counts the updates refused because a feature's gradient was
// beyond 1e150 (numerically out of range).
func (m *Softmax) Rejected() int { return m.rejected }

// softmax layout: column 0 is N_j, then K weights, then K AdaGrad sums.
const smN = 0

func (m *Softmax) stride() int {
	if m.cfg.Adaptive {
		return 1 + 2*m.k
	}
	return 1 + m.k
}

// NewSoftmax returns an untrained K-class model; cfg is the binary
// learner's Config (Step must be the default schedule).
func NewSoftmax(cfg Config, k int) (*Softmax, error) {
	if cfg.Bits < 1 || cfg.Bits > sparse.MaxBits {
		return nil, fmt.Errorf("Config.Bits %d out of range 1..%d", cfg.Bits, sparse.MaxBits)
	}
	if k < 2 || k > MaxClasses {
		return nil, fmt.Errorf("NewSoftmax: %d classes: the number of classes must be in 2..%d", k, MaxClasses)
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 0) {
		return nil, fmt.Errorf("Config.Eta, the learning rate, must be positive and finite, got %v", cfg.Eta)
	}
	if cfg.PowerT < 0 || cfg.InitialT < 0 || cfg.L2 < 0 {
		return nil, errors.New("Config.PowerT, Config.InitialT and Config.L2 must be ≥ 0")
	}
	if cfg.Step != StepSchedule {
		return nil, errors.New("the softmax model takes the AdaGrad, normalized or plain gradient steps (Config.Step schedule), not NASA's")
	}
	if cfg.RMS {
		return nil, errors.New("Config.RMS: the softmax model learns on x as given")
	}
	m := &Softmax{cfg: cfg, k: k, scale: 1, t: cfg.InitialT,
		s: make([]float64, k), p: make([]float64, k), c: make([]float64, k)}
	m.tab = sparse.NewTable(cfg.Bits, m.stride())
	return m, nil
}

// MaxClasses bounds K for the multiclass learners (a row of the feature
// table holds 2K+1 floats).
const MaxClasses = 1 << 16

// Classes implements sparse.Multiclass.
func (m *Softmax) Classes() int { return m.k }

// scores fills m.s with s = W·x over the rows in m.rows (−1: unseen) and
// m.p with softmax(s); it returns the predicted class.
func (m *Softmax) scores(ex *sparse.Example) int {
	rows, k := m.tab.Rows, m.k
	s := m.s
	clear(s)
	for i, o := range m.rows {
		if o < 0 {
			continue
		}
		x := ex.Val[i]
		w := rows[o+1 : o+1+k]
		for c := range s {
			s[c] += w[c] * x
		}
	}
	top, arg := math.Inf(-1), 0
	for c := range s {
		s[c] *= m.scale
		if s[c] > top {
			top, arg = s[c], c
		}
	}
	// Subtracting the largest score keeps every exponent ≤ 0.
	var z float64
	for c, v := range s {
		m.p[c] = math.Exp(v - top)
		z += m.p[c]
	}
	if !(z > 0) || math.IsInf(z, 0) {
		// A NaN or infinite score: report uniform probabilities.
		for c := range m.p {
			m.p[c] = 1 / float64(k)
		}
		return arg + 1
	}
	for c := range m.p {
		m.p[c] /= z
	}
	return arg + 1
}

// Predict implements sparse.Learner: the predicted class.
func (m *Softmax) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(m)
	m.rows = m.rows[:0]
	for _, slot := range ex.Idx {
		r := m.tab.Find(slot)
		if r >= 0 {
			r *= m.stride()
		}
		m.rows = append(m.rows, r)
	}
	return float64(m.scores(ex))
}

// Learn implements sparse.Learner: the class predicted before the update,
// then one step on −log p_y. An example whose label is not a class in 1…K
// is predicted only.
func (m *Softmax) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(m)
	y := int(ex.Label)
	if float64(y) != ex.Label || y < 1 || y > m.k {
		return m.Predict(ex)
	}
	st, k := m.stride(), m.k
	m.rows = m.rows[:0]
	for _, slot := range ex.Idx {
		m.rows = append(m.rows, m.tab.Row(slot)*st)
	}
	pred := m.scores(ex)
	wt := ex.Weight
	if !(wt > 0) {
		return float64(pred)
	}
	for _, v := range m.s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return float64(pred)
		}
	}
	// |p_k − [k = y]| ≤ 1: the gradient of a feature is at most wt·|x|.
	if !gradInRange(wt, ex) {
		m.rejected++
		return float64(pred)
	}
	m.t += wt
	rows := m.tab.Rows
	d := m.c // d_k = p_k − [k = y], then the step factors
	copy(d, m.p)
	d[y-1]--

	// Pass 1: the feature scales and the AdaGrad sums.
	var normX float64
	for i, o := range m.rows {
		x := ex.Val[i]
		x2 := x * x
		if m.cfg.Normalized {
			ax := math.Abs(x)
			if N := rows[o+smN]; ax > N {
				// A larger scale for this feature: rescale its K weights as
				// if the new scale had been known all along.
				if N > 0 {
					f := N / ax
					if !m.cfg.Adaptive {
						f *= f
					}
					for c := 1; c <= k; c++ {
						rows[o+c] *= f
					}
				}
				rows[o+smN] = ax
			}
			N := rows[o+smN]
			if nn := N * N; nn >= 0x1p-1022 {
				normX += x2 / nn
			}
			// (A feature whose scale squared underflows, |x| < 1.5e-154,
			// is not updated: see pass 2.)
		}
		if m.cfg.Adaptive {
			g := rows[o+1+k : o+1+2*k]
			for c, dc := range d {
				// Saturated, not infinite: the state stays finite.
				g[c] = min(g[c]+wt*dc*dc*x2, math.MaxFloat64)
			}
		}
	}
	mult := 1.0
	if m.cfg.Normalized {
		m.normSum += wt * normX
		m.totalWeight += wt
		if m.normSum > 0 {
			mult = m.totalWeight / m.normSum
			if m.cfg.Adaptive {
				mult = math.Sqrt(mult)
			}
		}
	}
	eta := m.cfg.Eta * wt
	if !m.cfg.Adaptive {
		eta *= math.Pow(m.t, -m.cfg.PowerT)
	}
	f := -eta * mult / m.scale
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return float64(pred)
	}
	for c := range d {
		d[c] *= f
	}

	// Pass 2: the weight steps.
	for i, o := range m.rows {
		x := ex.Val[i]
		r := 1.0
		if m.cfg.Normalized {
			N := rows[o+smN]
			if N*N < 0x1p-1022 {
				continue
			}
			if m.cfg.Adaptive {
				r /= N
			} else {
				r /= N * N
			}
		}
		w := rows[o+1 : o+1+k]
		if !m.cfg.Adaptive {
			u := x * r
			for c := range w {
				// A step that would overflow a weight is not taken.
				if v := w[c] + d[c]*u; v-v == 0 {
					w[c] = v
				}
			}
			continue
		}
		g := rows[o+1+k : o+1+2*k]
		for c := range w {
			G := g[c]
			if !(G > 0) {
				continue
			}
			var a float64
			if m.cfg.PowerT == 0.5 {
				a = 1 / math.Sqrt(G)
			} else {
				a = math.Pow(G, -m.cfg.PowerT)
			}
			if v := w[c] + d[c]*x*r*a; v-v == 0 {
				w[c] = v
			}
		}
	}
	if m.cfg.L2 > 0 {
		m.scale *= 1 - m.cfg.L2*eta
		if m.scale < 1e-9 || !(m.scale > 0) {
			m.syncScale()
		}
	}
	return float64(pred)
}

// syncScale folds the global scale into the stored weights (features seen
// only).
func (m *Softmax) syncScale() {
	if !(m.scale > 0) {
		m.scale = 0
	}
	st, rows := m.stride(), m.tab.Rows
	for o := 0; o < len(rows); o += st {
		for c := 1; c <= m.k; c++ {
			rows[o+c] *= m.scale
		}
	}
	m.scale = 1
}

// Probabilities implements sparse.Multiclass: softmax(s) of the last
// example.
func (m *Softmax) Probabilities(p []float64) { copy(p, m.p) }

// ClassWeights implements sparse.Multiclass.
func (m *Softmax) ClassWeights(k int, fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(m)
	st := m.stride()
	for r, key := range m.tab.Keys {
		fn(key, m.scale*m.tab.Rows[r*st+k])
	}
}

// Weights implements sparse.Learner: every class's weights, class after
// class.
func (m *Softmax) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(m)
	for c := 1; c <= m.k; c++ {
		m.ClassWeights(c, fn)
	}
}

// Save implements sparse.Learner.
func (m *Softmax) Save(w *model.Writer) error {
	defer runtime.KeepAlive(m)
	w.Uint32(uint32(m.k))
	for _, v := range []float64{m.scale, m.t, m.normSum, m.totalWeight} {
		w.Float64(v)
	}
	w.Uint32s(m.tab.Keys)
	w.Float64s(m.tab.Rows)
	return nil
}

// LoadSoftmax restores a model saved by Save; cfg and k must be the ones
// it was trained with (the CLI takes them from the model header).
func LoadSoftmax(r *model.Reader, cfg Config, k int) (*Softmax, error) {
	m, err := NewSoftmax(cfg, k)
	if err != nil {
		return nil, err
	}
	if got := r.Uint32(); r.Err() == nil && int(got) != k {
		r.Fail("the model holds %d classes, its options say %d", got, k)
	}
	m.scale, m.t, m.normSum, m.totalWeight = r.Float64(), r.Float64(), r.Float64(), r.Float64()
	m.tab.Keys = r.Uint32s(nil)
	m.tab.Rows = r.Float64s(nil)
	if err := r.Done(); err != nil {
		return nil, err
	}
	if err := m.tab.Rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrCorrupt, err)
	}
	for _, part := range [][]float64{{m.scale, m.t, m.normSum, m.totalWeight}, m.tab.Rows} {
		for _, v := range part {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: non-finite value in the model", model.ErrCorrupt)
			}
		}
	}
	if m.scale < 0 || m.t < 0 || m.normSum < 0 || m.totalWeight < 0 {
		return nil, fmt.Errorf("%w: negative counters in the model", model.ErrCorrupt)
	}
	st := m.stride()
	for o := 0; o < len(m.tab.Rows); o += st {
		bad := m.tab.Rows[o+smN] < 0
		if m.cfg.Adaptive {
			for _, g := range m.tab.Rows[o+1+k : o+1+2*k] {
				bad = bad || g < 0
			}
		}
		if bad {
			return nil, fmt.Errorf("%w: a negative feature scale or AdaGrad sum", model.ErrCorrupt)
		}
	}
	return m, nil
}
