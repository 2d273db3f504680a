package son

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/sparse"
)

// Config tunes the Sketched Online Newton core.
type Config struct {
	Bits uint
	// C bounds predictions: w is projected onto |w·x| ≤ C before each
	// prediction (Lemma 1); +Inf turns the projection off.
	C float64
	// The to-sketch vector is ĝ = √(σ_t+η_t)·g (Alg. 1 line 7) with σ_t = Sigma
	// and η_t = Eta0·t^(−EtaPower), unless Scale > 0 replaces √(σ_t+η_t) by
	// Scale. EtaPower 0 means ½, Luo et al.'s (NIPS 2016) η_t ∝ 1/√t; Luo et al. (JMLR 2019) runs
	// RFD-SON with η_t = 1/t (EtaPower 1).
	Sigma, Eta0, Scale float64
	EtaPower           float64
	// Diag feeds D^{-1/2}x instead of x, D = 0.1·I + diag(Σ g gᵀ) of the
	// raw gradients (Luo et al. (NIPS 2016), §5.2; docs/algorithms.md §6), with D updated before
	// the sketch and weight step of each round (see rescale).
	Diag bool
	// Scaled selects the scaled-space sketch of scaled.go (with Diag): the
	// sketch estimates the curvature of the current pre-scaled problem, α
	// follows the data, and the step is ONS's with the current example
	// included exactly. Without it the round is Luo et al.'s (NIPS 2016) Alg. 1 as
	// written (the "paper" form; Sigma, Eta0, Scale and EtaPower apply).
	Scaled bool
	// Alpha0, with Scaled, fixes α₀ (the regulariser relative to the
	// pre-scaled curvature, whose diagonal is ≈ 1); 0 derives it from the
	// data each round (scaled.go).
	Alpha0 float64
	// Rate, with Scaled, multiplies the step (0 means DefaultRate).
	Rate float64
	// FoldRatio bounds the cancellation in w = w̄ + Zᵀb: when ‖w̄‖ or the
	// bound ‖b‖·‖Z‖₂ on ‖Zᵀb‖ exceeds FoldRatio·‖w‖ (‖w‖ measured at the
	// last fold), Zᵀb is folded into w̄. 0 means DefaultFoldRatio; +Inf
	// never folds for this reason.
	FoldRatio float64
	// Total, with Scaled and α₀ from the data, says that this learner sees
	// one of Total equal shards of the stream (--total; 0 or 1: the whole
	// stream). See setAlpha in scaled.go for what it changes.
	Total int
	// Unit, with Diag, pre-scales by D_j = 0.1·u_j² + Σg_j², u_j the
	// largest |x_j| so far (or their root mean square: UnitRMS), instead
	// of 0.1 + Σg_j², so that x̃ does not depend on the features' units
	// (units.go).
	Unit bool
	// UnitRMS, with Unit, takes u_j as the root mean square of feature
	// j's learned values so far (the example's own included; followed
	// within a band of about ±1.6 %) instead of their largest magnitude:
	// the CLI's --diag_init auto (units.go).
	UnitRMS bool
	// LazyRing is how many generations of deferred folds and transforms
	// the core keeps (lazy.go) for sketches that support deferral: 0 sizes
	// the ring by the number of features seen, a negative value applies
	// every fold and transform eagerly (for tests and comparisons).
	LazyRing int
	// RMS learns on x̃_j = x_j/s_j, s_j the root mean square of feature
	// j's training values so far (rms.go): the pre-scaling of package
	// ada's Prescaled, kept in two more columns of the feature's own row
	// (before w̄_j: setLayout) so that it costs no lookup of its own. Not
	// with Diag.
	RMS bool
	// Aux is a number of columns the caller keeps in each feature's row,
	// just before w̄_j (zero in a new row, never read or written by the
	// core, not saved; aux.go, setLayout): per-feature state of a learner
	// on the split that then costs no lookup of its own.
	Aux int
	// AuxDot, with RMS, is 1 + an auxiliary column whose dot product
	// with x̃ the lookup forms in its pass over x̃ (Split.AuxDot); 0 for
	// none.
	AuxDot int
}

// DefaultFoldRatio: see SONConfig.FoldRatio and the measurements in
// guard's comment.
const DefaultFoldRatio = 10

// diag0 is D_1 = 0.1·I of Luo et al. (NIPS 2016), §5.2 (footnote 6).
const diag0 = 0.1

// Learner is Sketched Online Newton (Luo et al. (NIPS 2016), Alg. 1) in its sparse form
// (Alg. 4, Eq. 5–6; docs/algorithms.md §2): the weights are split as w = w̄ + Zᵀb
// with Z the sparsely updated factor of the sketch, so an example costs
// O(ps + p²) plus the sketch's own p×p work, never O(d). Per feature the
// table row holds [w̄_j, Z_{1..p_max, j}, D_j − 0.1, 1/√D_j] (and 1/u_j with
// Config.Unit, D then that of x/u: units.go), preceded by the RMS and
// auxiliary columns when configured (setLayout).
//
// Invariant between examples: w_t = w̄ + Zᵀb is the weight vector u_{t+1}
// of Alg. 1, before the projection for the next example.
type Learner struct {
	cfg    Config
	loss   loss.Loss
	sk     sparse.Sketch
	tab    *sparse.Table
	stride int
	rowMul uint64 // ⌈2⁶⁴/stride⌉ for rowOf; 0 for stride 1
	pmax   int
	// Column offsets relative to w̄_j, where the core's offsets (offs)
	// point: the RMS and auxiliary columns lead the row, before w̄_j, so
	// that they share w̄_j's first cache line (see lead).
	dOff int // columns D_j − 0.1 and 1/√D_j (diag only), after Z
	uOff int // column 1/u_j after them (Config.Unit; units.go); 0 for none
	rOff int // columns Σx_j² and n_j (RMS only; rms.go), < 0; 0 for none
	aOff int // the caller's Config.Aux columns (aux.go), < 0; 0 for none
	// Config.AuxDot's column (< 0; 0 for none) and its dot product with
	// x̃ over the example of the last lookup.
	dotOff int
	dot    float64
	lead   int // the columns before w̄_j: a row starts lead before its offset
	saved  int // the columns from w̄_j on that Save writes ([w̄_j, Z_j, D])
	// rmsOrder lists the rows in the order they got their first value
	// (rms.go, Scales); first is the example's offsets that got theirs
	// (linalg.RMSAdd).
	rmsOrder []uint32
	first    []int
	b        []float64
	t        float64 // rounds with a positive importance weight
	sumG2    float64 // Σ‖ĝ‖², for the sketch report
	// Scaled mode (scaled.go): W = Σ importance, the sketch's α in its sum
	// units as last set (restored on load), and this round's α₀.
	w, alphaSk, alpha0 float64
	// wOwn is the part of W that this learner saw as one of Total shards:
	// the importance weight since it was created or merged (0 when Total
	// is 1; scaled.go, setAlpha).
	wOwn float64

	// Cancellation guard (see SONConfig.FoldRatio): wsq tracks ‖w̄‖², w0sq is
	// ‖w‖² at the last fold; folded/wsqI note a fold inside this example.
	wsq, w0sq float64
	folded    bool
	wsqI      float64
	// sqI is Σ_{j∈I} w̄_j² as the last per-feature pass that wrote w̄_I
	// left it (sqOK: nothing has changed w̄_I since), so that the guard
	// need not pass over the rows again.
	sqI  float64
	sqOK bool
	// A weight step w̄_I −= pendF·x̃_I not yet written (deferStep): the
	// sketch's absorb writes it in its own pass over the rows; any other
	// Host operation, or the end of the round, writes it first (settle).
	pend     bool
	pendF    float64
	folds    int
	rejected int // weight and projection steps refused (step.go)

	// Deferred folds and transforms (lazy.go), for sketches that keep
	// K = ZZᵀ; y = Z·w̄ keeps ‖w̄‖² exact through deferred folds.
	lz   lazyZ
	gram sparse.GramSketch
	y    []float64
	kb   []float64
	tk   []float64

	// Tᵀ and its rows' offsets (an eager Transform's scratch)
	tt     []float64
	ttOffs []int

	// per-example scratch
	offs []int     // row offsets of the example's features
	xt   []float64 // x̃
	xu   []float64 // x' = x/u (Config.Unit)
	// a prediction's seen features (zx's scratch)
	seenOffs []int
	seenXt   []float64
	z        []float64 // Z·x̃ (capacity pmax)
	mz       []float64
	st       sparse.Step
	c        float64 // current ĝ = c·x̃
}

// New returns an untrained SON learner around a fresh sketch.
func New(cfg Config, l loss.Loss, sk sparse.Sketch) (*Learner, error) {
	if cfg.Bits < 1 || cfg.Bits > sparse.MaxBits {
		return nil, fmt.Errorf("-b %d out of range 1..%d", cfg.Bits, sparse.MaxBits)
	}
	if !(cfg.C > 0) {
		return nil, fmt.Errorf("projection bound C must be positive (or +Inf), got %v", cfg.C)
	}
	if cfg.Sigma < 0 || cfg.Eta0 < 0 || cfg.Scale < 0 || math.IsInf(cfg.Scale, 0) || math.IsInf(cfg.Eta0, 0) || math.IsInf(cfg.Sigma, 0) {
		return nil, errors.New("σ, η₀ and the sketch scale must be finite and ≥ 0")
	}
	if !(cfg.EtaPower >= 0 && cfg.EtaPower <= 2) {
		return nil, fmt.Errorf("η_t's exponent must be in [0, 2], got %v", cfg.EtaPower)
	}
	if cfg.RMS && cfg.Diag {
		return nil, errors.New("pre-scaling by the root mean square (Config.RMS) and diagonal pre-scaling (Config.Diag) exclude each other")
	}
	if cfg.Unit && !cfg.Diag {
		return nil, errors.New("the features' units (Config.Unit) need diagonal pre-scaling (Config.Diag)")
	}
	if cfg.UnitRMS && !cfg.Unit {
		return nil, errors.New("the features' root-mean-square units (Config.UnitRMS) need Config.Unit")
	}
	if cfg.Scaled && !cfg.Diag {
		return nil, errors.New("the scaled-space sketch (Config.Scaled) needs diagonal pre-scaling (Config.Diag)")
	}
	if cfg.Scaled && (cfg.Alpha0 < 0 || math.IsInf(cfg.Alpha0, 0) || math.IsNaN(cfg.Alpha0)) {
		return nil, fmt.Errorf("α₀ must be finite and ≥ 0 (0: from the data), got %v", cfg.Alpha0)
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if !(cfg.Rate > 0) || math.IsInf(cfg.Rate, 0) {
		return nil, fmt.Errorf("SON step rate must be positive and finite, got %v", cfg.Rate)
	}
	if !cfg.Scaled && cfg.Scale == 0 && cfg.Sigma == 0 && cfg.Eta0 == 0 && sk.MaxRows() > 0 {
		return nil, errors.New("the to-sketch scale √(σ+η_t) is 0: the sketch would never learn")
	}
	pmax := sk.MaxRows()
	if cfg.Total == 0 {
		cfg.Total = 1
	}
	if cfg.Total < 1 {
		return nil, fmt.Errorf("the number of shards (Config.Total) must be ≥ 1, got %d", cfg.Total)
	}
	if cfg.FoldRatio == 0 {
		cfg.FoldRatio = DefaultFoldRatio
	}
	if !(cfg.FoldRatio > 1) {
		return nil, fmt.Errorf("fold ratio must exceed 1, got %v", cfg.FoldRatio)
	}
	if cfg.Aux < 0 || cfg.Aux > maxAux {
		return nil, fmt.Errorf("son: %d auxiliary columns (Config.Aux), 0..%d", cfg.Aux, maxAux)
	}
	if cfg.AuxDot < 0 || cfg.AuxDot > cfg.Aux || cfg.AuxDot > 0 && !cfg.RMS {
		return nil, fmt.Errorf("son: the dot product's column (Config.AuxDot) %d: 0, or 1..%d with Config.RMS", cfg.AuxDot, cfg.Aux)
	}
	s := &Learner{cfg: cfg, loss: l, sk: sk, pmax: pmax}
	s.setLayout()
	s.rowMul = linalg.RowMultiplier(s.stride)
	s.tab = sparse.NewTable(cfg.Bits, s.stride)
	// A new row is copied from Init in one append: without it the table
	// appends a row's zeros one by one (S-ADA on news20's training set,
	// one text pass, a 45-value row: 0.956e9 → 0.921e9 instructions).
	s.tab.Init = make([]float64, s.stride)
	if cfg.Diag {
		s.tab.Init[s.lead+s.dOff+1] = 1 / math.Sqrt(diag0)
	}
	s.b = make([]float64, pmax)
	s.z = make([]float64, pmax)
	s.mz = make([]float64, pmax)
	if cfg.LazyRing > maxRing {
		return nil, fmt.Errorf("deferred-step ring %d exceeds %d", cfg.LazyRing, maxRing)
	}
	if g, ok := sk.(sparse.GramSketch); ok && pmax > 0 && cfg.LazyRing >= 0 {
		s.gram, s.lz.on = g, true
		s.y = make([]float64, pmax)
		s.kb = make([]float64, pmax)
		s.tk = make([]float64, pmax*pmax)
		s.lz.tmp = make([]float64, (1+pmax)*pmax)
	}
	return s, nil
}

// setLayout sets the row layout: [Σx_j², n_j (RMS), aux (Config.Aux),
// w̄_j, Z_{1..pmax, j}, D_j − 0.1, 1/√D_j (Diag), 1/u_j (Unit), Σx_j², n_j
// (UnitRMS)]. The core's offsets point
// at w̄_j, so the kernels that read w̄_j at o and Z's column from o+1 see
// the rows as before, and the leading columns are at negative offsets.
//
// Why the RMS and auxiliary columns lead: they are read with w̄_j on every
// example, while Z's column is live only up to the rows Z has now (S-ADA
// at τ = 20 keeps about 19 of its cap of 40 on news20). After Z they made
// every feature fetch the row's last line as well, so the whole row was
// prefetched; before w̄_j the example's lines are the first
// lead + 2 + p values of each row (prefetchSize). News20 ×10 from the
// cache, one pass, least CPU of 7 alternated rounds at load 2.4–3.1 on 2
// shared cores: S-ADA 0.94 → 0.92 s, FTSL 0.90 → 0.86 s, FTFSL 1.16 →
// 1.12 s (FD-SON, without leading columns, 0.53 s both).
func (s *Learner) setLayout() {
	cfg := s.cfg
	if cfg.RMS {
		s.lead += 2
	}
	s.lead += cfg.Aux
	if cfg.RMS {
		s.rOff = -s.lead
	}
	if cfg.Aux > 0 {
		s.aOff = -cfg.Aux
	}
	if cfg.AuxDot > 0 {
		s.dotOff = s.aOff + cfg.AuxDot - 1
	}
	s.saved = 1 + s.pmax
	if cfg.Diag {
		// Two columns: Σg² and the x̃ scale 1/√(0.1 + Σg²), kept so that
		// predicting costs no square root per feature.
		s.dOff = s.saved
		s.saved += 2
	}
	if cfg.Unit {
		s.uOff = s.saved
		s.saved++
		if cfg.UnitRMS {
			s.saved += 2 // Σx_j² and n_j (units.go)
		}
	}
	s.stride = s.lead + s.saved
	if w := (s.stride + lineVals - 1) &^ (lineVals - 1); s.lead > 0 && 8*(w-s.stride) <= s.stride {
		// A whole number of cache lines (the table's rows start on a
		// page), so that a row's live part, from its start, spans as few
		// lines as its length allows, where that widens the row by at
		// most an eighth. News20 ×10 from the cache, least CPU of 11
		// alternated rounds at load 1.5–2.0: FTSL (45 → 48 values, live
		// 16: 2 lines) 0.78 → 0.72 s, S-ADA (live 24: 3 lines) 0.89 →
		// 0.86 s; Fast S-ADA's 25 values padded to 32 took 0.76 → 0.79 s
		// (its rows' first lines then fall in a quarter of the cache's
		// sets, their live three lines in three quarters).
		s.stride = w
	}
}

// lineVals is the float64 values in a cache line.
const lineVals = 8

// wOff is the offset of table row r's w̄_j: the core's offset for it.
func (s *Learner) wOff(r int) int { return r*s.stride + s.lead }

// prefetchSize is how many values from a row's start the example's
// prefetches ask for: the whole row without leading columns (what the
// learners without them were measured with), else the leading columns,
// w̄_j and the rows Z has of its column (the rest of the cap is zero and
// unread but by an append, rare once the sketch has warmed up: S-ADA
// appended 95 times in news20 ×10's 113,140 examples, FTFSL 1,976).
func (s *Learner) prefetchSize() int {
	if s.lead == 0 {
		return s.stride
	}
	return min(s.stride, s.lead+1+len(s.st.Z))
}

// toW moves the table's row-start offsets in s.offs to w̄_j (a negative
// offset, a feature without a row, stays).
func (s *Learner) toW() {
	if s.lead == 0 {
		return
	}
	lead := s.lead
	for i, o := range s.offs {
		if o >= 0 {
			s.offs[i] = o + lead
		}
	}
}

// Sketch returns the learner's sketch.
func (s *Learner) Sketch() sparse.Sketch { return s.sk }

// scale returns √(σ_t + η_t) for round t.
func (s *Learner) scale() float64 {
	if s.cfg.Scale > 0 {
		return s.cfg.Scale
	}
	return math.Sqrt(s.cfg.Sigma + eta(s.cfg.Eta0, s.cfg.EtaPower, s.t))
}

// eta returns η_t = η₀·t^(−p) (p = 0 meaning ½).
func eta(eta0, p, t float64) float64 {
	switch p {
	case 0, 0.5:
		return eta0 / math.Sqrt(t)
	case 1:
		return eta0 / t
	}
	return eta0 * math.Pow(t, -p)
}

// resolve looks up the rows of ex's features for a prediction, creating
// none (unseen features get offset -1), and computes x̃ and ‖x̃‖². A
// learning example's lookup, which creates rows, is resolveZ.
func (s *Learner) resolve(ex *sparse.Example) (n float64) {
	s.sqOK = false
	// The lookups first, then the rows' lines prefetched, then the loads:
	// a lookup, a row load and the next lookup one after the other left
	// one miss at a time in flight, and predicting (-t) took more time
	// than learning.
	s.offs = s.tab.FindOffsets(s.offs[:0], ex.Idx)
	rows := s.tab.Rows
	s.lz.touch = linalg.PrefetchCols(rows, s.offs, s.prefetchSize())
	s.toW()
	if s.rOff != 0 {
		n = s.rmsPredict(ex.Val)
	} else {
		val := ex.Val[:len(s.offs)]
		xt := s.xt[:0]
		diag, d1 := s.cfg.Diag, s.dOff+1
		for i, o := range s.offs {
			x := val[i]
			if diag && o >= 0 {
				if s.uOff != 0 {
					x *= rows[o+s.uOff]
				}
				x *= rows[o+d1]
			} else if diag {
				x /= math.Sqrt(diag0)
			}
			xt = append(xt, x)
			n += x * x
		}
		s.xt = xt
	}
	// Deferred steps are brought up to date in a second loop: the lookups
	// above then follow one another without dependent work between them,
	// so the processor overlaps their cache misses (slot index and row),
	// as it does for a sketch without deferral. Refreshing inside the
	// lookup loop, the slot-index lookups of ten FD passes over news20
	// took 0.43–0.51 s of CPU profile, against 0.08 s in two loops.
	if s.lz.on {
		l := &s.lz
		for _, o := range s.offs {
			if o < 0 {
				continue
			}
			if r := s.rowOf(o); r == len(l.stamp) || l.stamp[r] != l.gen {
				s.current(r)
			}
		}
	}
	return n
}

// rowOf is the table row of offset o, a row's start or inside it
// (linalg.RowOf: a multiplication, not the division the deferred steps'
// stamp check did for every feature of every example).
func (s *Learner) rowOf(o int) int { return linalg.RowOf(o, s.rowMul) }

// zx computes z = Z·x̃ over the first p rows and returns w̄·x̃ and
// Σ_{j∈I} w̄_j² (for the fold guard).
func (s *Learner) zx(p int) (wx, wsq float64) {
	rows := s.tab.Rows
	xt := s.xt[:len(s.offs)]
	// The seen features' columns, gathered as a learning example's are
	// (the same sums in the same order as one axpy per seen feature).
	so, sx := s.seenOffs[:0], s.seenXt[:0]
	for k, o := range s.offs {
		if o < 0 {
			continue
		}
		x := xt[k]
		w := rows[o]
		wx += w * x
		wsq += w * w
		so = append(so, o)
		sx = append(sx, x)
	}
	s.seenOffs, s.seenXt = so, sx
	gatherZ(s.z[:p], rows, so, sx)
	return wx, wsq
}

func (s *Learner) wbarDot() (wx float64) {
	rows := s.tab.Rows
	for k, o := range s.offs {
		wx += rows[o] * s.xt[k]
	}
	return wx
}

// addTo sets y += a·x, element by element: the products and sums of
// gonum's floats.AddScaled, whose call costs more than the loop at the
// lengths of a row of Z (p ≤ 2m). Inlined into the per-feature loops it
// took Oja-SON on news20 from 6344 to 5179 ns per example (the fastest of
// passes 2–6, best of 6 alternated runs, load 3.0–3.4). Four elements a
// step: the loop's own counting and branching was as much as its
// arithmetic.
func addTo(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		yy, xx := y[i:i+4:i+4], x[i:i+4:i+4]
		yy[0] += a * xx[0]
		yy[1] += a * xx[1]
		yy[2] += a * xx[2]
		yy[3] += a * xx[3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// gatherZ sets z = Z·x̃ over the example's rows: z[i] = Σ_k xt[k]·Z_{k,i},
// the Z column of feature k being rows[offs[k]+1 :]. Each z[i] is summed
// over k in order from 0, as a loop of addTo(z, xt[k], Z_k) sums it, so
// the bits are the same; but a block of z is held in registers across the
// whole example instead of being loaded and stored once per feature (the
// example's rows are in cache by then: 140 rows of news20 are 15 KiB at
// m = 10), two lanes at a time on amd64 (linalg.GatherCols).
func gatherZ(z, rows []float64, offs []int, xt []float64) {
	if len(rows) == 0 { // no features seen, so none in offs
		clear(z)
		return
	}
	linalg.GatherCols(z, rows[1:], offs, xt)
}

// tauC is τ_C(y) = sgn(y)·max(|y| − C, 0) of Lemma 1.
func tauC(y, C float64) float64 {
	switch {
	case y > C:
		return y - C
	case y < -C:
		return y + C
	}
	return 0
}

func clip(y, C float64) float64 { return math.Max(-C, math.Min(C, y)) }

// Predict implements sparse.Learner: the score training would predict next,
// clip(uᵀx̃, ±C), since the projection of Lemma 1 only clips uᵀx.
func (s *Learner) Predict(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(s)
	s.resolve(ex)
	p := len(s.st.Z)
	wx, _ := s.zx(p)
	return ex.Initial + clip(wx+linalg.Dot(s.b[:p], s.z[:p]), s.cfg.C)
}

// resolveZ is resolve's lookup, creating the rows of unseen features,
// followed by zx(p): the first pass of Learn over the example's rows (the
// sums run in zx's order: the same bits). The lookups (Offsets), then the
// rows' cache lines prefetched, so that the misses of all the example's
// slot-index entries, and then of all its rows, overlap; stale rows are
// brought up to date (deferred steps), and one pass computes x̃ and z
// (linalg.ScaleGather). Oja-SON on news20: 6607 → 6276 ns
// per example (without deferred steps the lookups had computed x̃ and z
// as they went; the fastest of passes 2–6, best of 8 alternated runs,
// load 3.4); the lookups apart from the row loads: 1.88 → 1.63 CPU-s
// for ten passes (least of 3 alternated runs, load 15–18).
func (s *Learner) resolveZ(ex *sparse.Example, p int) (n, wx, wsq float64) {
	s.offs, s.xt = s.offs[:0], s.xt[:0]
	s.sqOK = false
	size := s.prefetchSize()
	// The slot index first, in one loop of lookups with nothing waiting
	// on them, then the rows' lines: done in one loop, each row's loads
	// waited on its lookup and held the processor's window, so fewer
	// rows' misses overlapped. Offsets adds rows for new slots in the
	// order Row would.
	s.offs = s.tab.Offsets(s.offs, ex.Idx)
	rows := s.tab.Rows // Offsets may have moved Rows
	// The rows' lines are prefetched, so that all their misses overlap;
	// the stamps (random, as likely to miss as the rows) are read after,
	// their misses overlapping the rows', instead of stalling the
	// refreshes below one at a time. New rows (r ≥ len(stamp)) come in
	// order, as current expects. A loop that loaded one value of each
	// line (and summed it, to keep the loads) had each row's loads hold
	// the processor's window until their data came, and cost more
	// instructions: Oja-SON on news20×10 spent 1.42e9 in this function
	// then, 0.73e9 with the prefetches and the indexed loads below.
	l := &s.lz
	stale := l.stale[:0]
	var touch float64
	if l.on {
		// The stale rows in the loop that prefetches the rows' lines
		// (linalg.PrefetchStale): 125e6 → 75e6 instructions for FD-SON
		// on news20 (m = 10, 3 cached passes) against the two loops.
		if cap(stale) < len(s.offs) {
			stale = make([]int, 0, 2*len(s.offs))
		}
		var n int
		n, touch = linalg.PrefetchStale(rows, s.offs, size, l.stamp, l.gen, s.rowMul, stale[:len(s.offs)])
		stale = stale[:n]
	} else {
		touch = linalg.PrefetchCols(rows, s.offs, size)
	}
	l.stale = stale
	l.touch = touch
	s.toW()
	// rows: refreshes write rows but never move them.
	for _, r := range stale {
		s.current(r)
	}
	offs := s.offs
	if cap(s.xt) < len(offs) {
		s.xt = make([]float64, 0, 2*len(offs))
	}
	s.xt = s.xt[:len(offs)]
	scale := -1
	if s.cfg.Diag {
		scale = s.dOff + 1
	}
	val := ex.Val
	if s.rOff != 0 {
		// x̃ = x/s into xt, which ScaleGather then takes as it comes.
		s.rmsLearn(ex.Val, ex.Weight > 0)
		val = s.xt
	}
	if s.uOff != 0 {
		val = s.unitVals(ex.Val, ex.Weight > 0)
	}
	// x̃ = D^{-1/2}x, its norm, w̄·x̃, Σ w̄_j² and z = Z·x̃ in one pass over
	// the rows (linalg.ScaleGather: the same sums as a loop and then
	// gatherZ).
	n, wx, wsq = linalg.ScaleGather(s.z[:p], rows, offs, val, s.xt, scale)
	return n, wx, wsq
}

// Learn implements sparse.Learner: one round of Alg. 1 in the split form.
func (s *Learner) Learn(ex *sparse.Example) float64 {
	defer runtime.KeepAlive(s)
	p := len(s.st.Z)
	n, wx, oldsq := s.resolveZ(ex, p)
	z := s.z[:p]
	s.folded = false
	wsq := oldsq // Σ_I w̄_j² as w̄_I stands (−1: unknown)
	// P1: project onto |w·x̃| ≤ C in the A_{t−1} norm.
	if tau := tauC(wx+linalg.Dot(s.b[:p], z), s.cfg.C); tau != 0 && n > 0 {
		s.project(tau, n, z)
		wx = s.wbarDot()
		wsq = -1
	}
	// P2: predict.
	pred := ex.Initial + wx + linalg.Dot(s.b[:p], z)
	h := ex.Weight
	d := s.loss.Deriv(pred, ex.Label)
	if !(h > 0) || math.IsNaN(pred) || math.IsInf(pred, 0) || math.IsNaN(d) || math.IsInf(d, 0) {
		return pred
	}
	s.t++
	if s.cfg.Diag {
		n, z = s.rescale(ex, d, h)
	}
	if s.cfg.Scaled {
		s.learnScaled(h, d, n, z, oldsq, wsq)
		return pred
	}
	// P3–P4: sketch ĝ = √h·√(σ+η)·ℓ'·x̃; importance h counts as h copies.
	s.c = math.Sqrt(h) * s.scale() * d
	s.st.C, s.st.N, s.st.Z, s.st.Seen = s.c, n, z, s.tab.Len()
	s.sk.Update(&s.st, s)
	p = len(s.st.Z)
	z = s.st.Z
	s.sumG2 = min(s.sumG2+s.c*s.c*n, math.MaxFloat64) // saturated: saved with the model
	// P5: u_{t+1} = w_t − A_t⁻¹g with g = h·ℓ'·x̃.
	g := h * d
	mz := s.mz[:p]
	newsq := -1.0
	var f, fb float64
	if alpha := s.sk.Alpha(); alpha > 0 {
		f = g / alpha
		fb = f
		s.sk.MulM(mz, z)
	} else if p > 0 {
		fb = -g
		s.sk.MulPinv(mz, z)
	}
	if s.trial(f, fb, mz) {
		newsq = s.apply(f, z, fb, mz)
	} else {
		s.rejected++
	}
	s.guard(oldsq, newsq)
	return pred
}

// rescale adds this example's squared raw gradient to D (h copies) and
// recomputes x̃ = D^{-1/2}x, ‖x̃‖² and z = Z·x̃ with the new D, so the sketch
// and the weight step of round t use D_{t+1} while the prediction used D_t.
// This is VW's order and AdaGrad's convention (the denominator includes the
// current gradient, so |x̃_j| ≤ 1/|ℓ'|); Luo et al. (NIPS 2016), §5.2 uses D_t for the
// whole round, which lets D_1 = 0.1·I inflate the first example: on the
// §5.1 synthetic data (|x_j| ≈ 3.5) the first ĝ then carried 99.9% of
// Σ‖ĝ‖² and pinned the sketch's top direction to it (docs/algorithms.md §6).
func (s *Learner) rescale(ex *sparse.Example, d, h float64) (n float64, z []float64) {
	p := len(s.st.Z)
	z = s.z[:p]
	// D, x̃ and ‖x̃‖², then z = Z·x̃ with the new x̃, in one pass over the
	// rows in cache (linalg.RescaleGather: the bits of the loop and a
	// gatherZ after it). D_j is saturated as sat does: it is saved with
	// the model, and a D_j at the top of the float64 range already scales
	// x_j down to nothing.
	val := ex.Val
	if s.uOff != 0 {
		val = s.xu // x' (resolveZ)
	}
	n = linalg.RescaleGather(z, s.tab.Rows, s.offs, val, s.xt[:len(s.offs)], s.dOff, d, h, diag0)
	return n, z
}

// sat keeps the fold guard's sums of squares finite (they are saved with
// the model): beyond the float64 range, or NaN from ∞ − ∞ after extreme
// inputs, they read as the largest float64, which only makes the guard
// fold.
func sat(v float64) float64 {
	if !(v <= math.MaxFloat64) {
		return math.MaxFloat64
	}
	return v
}

// wbarSq returns Σ_{j∈I} w̄_j² over the example's features.
func (s *Learner) wbarSq() (v float64) {
	rows := s.tab.Rows
	for _, o := range s.offs {
		v += rows[o] * rows[o]
	}
	return v
}

// guard updates ‖w̄‖² after an example (oldsq was Σ_I w̄_j² before it,
// newsq is Σ_I w̄_j² after it, or −1 if not yet known) and
// folds when w̄ or Zᵀb has grown FoldRatio times past ‖w‖. Two effects make
// this necessary (docs/algorithms.md §2, "Numerical fact"): w̄ and Zᵀb cancel along
// the sketched directions, and b holds w's sketched part in the skewed
// basis Z (cond K up to θ), so every rounding error is relative to ‖b‖·‖Z‖
// rather than to ‖w‖. After a fold b restarts from zero.
func (s *Learner) guard(oldsq, newsq float64) {
	if newsq < 0 {
		if s.sqOK {
			newsq = s.sqI
		} else {
			newsq = s.wbarSq()
		}
	}
	if s.folded {
		s.wsq = sat(s.wsq + newsq - s.wsqI)
	} else {
		s.wsq = sat(s.wsq + newsq - oldsq)
	}
	p := len(s.st.Z)
	if p == 0 {
		return
	}
	lim := s.cfg.FoldRatio * s.cfg.FoldRatio * s.w0sq
	b := s.b[:p]
	if s.wsq > lim || linalg.Dot(b, b)*s.sk.ZNorm2() > lim {
		s.Fold()
	}
}

// project applies Lemma 1: w = u − τ/(xᵀA⁻¹x)·A⁻¹x, with A⁻¹ = α⁻¹(I − ZᵀMZ)
// (the α > 0 branch of §2 P1), or the pseudo-inverse branch of §1.
func (s *Learner) project(tau, n float64, z []float64) {
	p := len(z)
	mz := s.mz[:p]
	var f, fb float64
	switch alpha := s.sk.Alpha(); {
	case alpha > 0 || p == 0:
		if p > 0 {
			s.sk.MulM(mz, z)
		}
		q := n - linalg.Dot(z, mz)
		if !(q > 0) {
			return
		}
		f, fb = tau/q, tau/q
	default:
		// α = 0: r = x − Px with P = Zᵀ(F_LᵀF_L)Z.
		s.sk.MulProj(mz, z)
		if r2 := n - linalg.Dot(z, mz); r2 > pinvResidual*n {
			f, fb = tau/r2, tau/r2
			break
		}
		s.sk.MulPinv(mz, z)
		q := linalg.Dot(z, mz)
		if !(q > 0) {
			return
		}
		fb = -(tau / q)
	}
	if !s.trial(f, fb, mz) {
		s.rejected++
		return
	}
	s.apply(f, z, fb, mz)
}

// pinvResidual is ε_r of docs/algorithms.md §1: below it x counts as inside the
// sketch's span.
const pinvResidual = 1e-9

// Weights implements sparse.Learner: w_j = (w̄_j + Z_jᵀb)/√D_j in the raw space.
func (s *Learner) Weights(fn func(slot uint32, w float64)) {
	defer runtime.KeepAlive(s)
	p := len(s.st.Z)
	rows := s.tab.Rows
	wz := make([]float64, 1+s.pmax)
	for r, k := range s.tab.Keys {
		o := s.wOff(r)
		s.refreshed(r, wz)
		w := wz[0] + linalg.Dot(s.b[:p], wz[1:1+p])
		if s.cfg.Diag {
			w *= rows[o+s.dOff+1]
		}
		if s.uOff != 0 {
			w *= rows[o+s.uOff]
		}
		fn(k, w)
	}
}

// ZColumn returns a copy of Z's live entries for slot, or nil if the slot
// has never been seen (diagnostics and tests).
func (s *Learner) ZColumn(slot uint32) []float64 {
	defer runtime.KeepAlive(s)
	r := s.tab.Find(slot)
	if r < 0 {
		return nil
	}
	wz := make([]float64, 1+s.pmax)
	s.refreshed(r, wz)
	return wz[1 : 1+len(s.st.Z)]
}

// Seen is the number of distinct feature slots with state.
func (s *Learner) Seen() int { return s.tab.Len() }

// Folds is the number of folds of Zᵀb into w̄ so far (re-basings included).
func (s *Learner) Folds() int { return s.folds }

// Rejected counts the weight and projection steps refused because they
// would have left the weight range (step.go).
func (s *Learner) Rejected() int { return s.rejected }

// Report implements sparse.Reporter: the sketch's report plus the core's counts.
func (s *Learner) Report(w io.Writer) {
	defer runtime.KeepAlive(s)
	s.sk.Report(w, s.sumG2)
	fmt.Fprintf(w, "folds of Zᵀb into w̄ = %d, features with state = %d, steps refused = %d\n", s.folds, s.tab.Len(), s.rejected)
	if s.cfg.Scaled {
		fmt.Fprintf(w, "scaled-space form: α₀ = %.4g (last round), sketch α = %.6g, W = %.6g, step rate %g\n", s.alpha0, s.sk.Alpha(), s.w, s.cfg.Rate)
	}
	if l := &s.lz; l.on {
		fmt.Fprintf(w, "deferred steps = %d, flushes = %d, row refreshes per update = %.3g\n", l.steps, l.flushes, float64(l.refreshes)/math.Max(1, s.t))
	}
}

// Deferred reports the deferred-step counters (lazy.go): generation steps
// recorded, flushes of the whole table, and rows brought up to date.
func (s *Learner) Deferred() (steps, flushes, refreshes int64) {
	return s.lz.steps, s.lz.flushes, s.lz.refreshes
}
