package ada

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/sparse"
)

// Precond is the preconditioner's form.
type Precond int

const (
	// Delta is Wan & Zhang's (TPAMI 2022) H_t = δI + (S_tᵀS_t)^{1/2} (ADA-FD, ADA-FFD).
	Delta Precond = iota
	// Escaped is Yang et al.'s (ICML 2025) G̃_t^{1/2} = (ρ_{1:t}I + S_tᵀS_t)^{1/2} with the
	// FD sketch's escaped mass ρ_{1:t} (FTSL, FTFSL, S-ADA, Fast S-ADA).
	Escaped
)

// Update is the online update.
type Update int

const (
	// Mirror is composite mirror descent: β_{t+1} = β_t − η·P_t·g_t.
	Mirror Update = iota
	// Dual is dual averaging (Wan & Zhang's (TPAMI 2022) primal-dual subgradient method,
	// Yang et al.'s (ICML 2025) follow-the-leader form): β_{t+1} = −η·P_t·ḡ_t, ḡ_t = Σg.
	Dual
)

// Buffer is the sketch's buffer.
type Buffer int

const (
	// Single is the per-step FD shrink (Wan & Zhang (TPAMI 2022), Alg. 1/2): τ − 1 rows.
	Single Buffer = iota
	// Doubled is the doubled buffer (Wan & Zhang (TPAMI 2022), Alg. 3/4; fd.Config.RankBuffer).
	Doubled
)

// Config selects and tunes a learner.
type Config struct {
	Bits    uint // hash bits (-b)
	Tau     int  // sketch size τ (-m)
	Precond Precond
	Update  Update
	Buffer  Buffer
	Eta     float64 // step size η (-l)
	// Delta is δ > 0 of the δ form (unused by the escaped form).
	Delta float64
	// Epsilon ≥ 0 is added to ρ_{1:t} in the escaped form (ρ + ε)I; with
	// ρ + ε = 0 the pseudo-inverse is taken.
	Epsilon float64
	// Gate is ε of the gated sketch (gate.go): 0 is exact FD. With the
	// doubled buffer it selects the skips alone (no drops: the buffer has
	// no absorb to refuse). GateFrom is the number of features seen from which it
	// acts (fd.Config.GateFrom: 0 the default, negative from the start).
	Gate     float64
	GateFrom int
	// Skip ≥ 0 is κ of the escaped form's small gradients (gate.go): with
	// the gate acting, a gradient with ‖ĝ‖² < κ·ε·r stays out of the sketch
	// and its ‖ĝ‖²/τ is added to r (saved with the model). 0 is off; the δ
	// form skips below its own limit (εδ)² whenever it is gated.
	Skip float64
	// Project ≥ 0 is γ of the escaped per-step sketch's projected steps
	// (fd.Config.Project; gate.go, "Projected steps"): with the gate
	// acting, a gradient whose part outside the sketch's row space would
	// be dropped (b² < ε·r) and whose cross term with its part p inside
	// is small (b·‖p‖ < γ·ε·r) adds p alone, its b² counted as a drop's
	// E′. 0 is off (the models before it).
	Project float64
	// DualCache keeps, under dual averaging, t = C·(Z·ḡ) from one example
	// to the next while the sketch's factors stay as they are (ada.go,
	// score): t += g·C·(Z·x) instead of the product C·(Z·ḡ) afresh, the
	// same value up to rounding. False is the product every example (the
	// models before it); it is saved with the model.
	DualCache bool
	// RowCap is the most rows Z may have under the doubled buffer
	// (fd.Config.RowCap): 0 selects fd.DefaultRowCap, 3τ, the cap of the
	// models saved before DoubledRowCap; the CLI's new models take
	// DoubledRowCap. Unused (must be 0) with the per-step sketch.
	RowCap int
	// Diag selects the per-coordinate completion and the step η/√N, N
	// the mean ‖x‖² of the examples learned (diag.go). The CLI's default
	// under --ada_scale auto; model option ada_diag.
	Diag bool
	// Grow lets the δ form's δ grow with the escaped mass r_t (gate.go's
	// escapedMass: ρ_{1:t}, and the gate's drops and skips at 1/τ):
	// H_t = (δ + √r_t)I + (S_tᵀS_t)^{1/2} (grow.go). The CLI's default for
	// ADA-FD and ADA-FFD under --ada_scale auto, with Diag; model option
	// ada_grow. Unused (must be false) in the escaped form.
	Grow bool
}

// Named is one of the papers' learners: a name (its flag) and its choices.
type Named struct {
	Name    string
	Paper   string // the paper's name for it
	Precond Precond
	Buffer  Buffer
	// Update is the paper's update; UpdateFixed says the update is part
	// of the method (FTSL is dual averaging, S-ADA mirror descent) and
	// cannot be changed.
	Update      Update
	UpdateFixed bool
}

// Learners is the table of the six named learners; with ADA-FD and ADA-FFD
// under both updates they are the eight of issue 12.
var Learners = []Named{
	{Name: "ada_fd", Paper: "ADA-FD", Precond: Delta, Buffer: Single, Update: DefaultUpdate},
	{Name: "ada_ffd", Paper: "ADA-FFD", Precond: Delta, Buffer: Doubled, Update: DefaultUpdate},
	{Name: "ftsl", Paper: "FTSL", Precond: Escaped, Buffer: Single, Update: Dual, UpdateFixed: true},
	{Name: "ftfsl", Paper: "FTFSL", Precond: Escaped, Buffer: Doubled, Update: Dual, UpdateFixed: true},
	{Name: "sada", Paper: "S-ADA", Precond: Escaped, Buffer: Single, Update: Mirror, UpdateFixed: true},
	{Name: "sada_fast", Paper: "Fast S-ADA", Precond: Escaped, Buffer: Doubled, Update: Mirror, UpdateFixed: true},
}

// Lookup returns the named learner.
func Lookup(name string) (Named, bool) {
	for _, n := range Learners {
		if n.Name == name {
			return n, true
		}
	}
	return Named{}, false
}

// DefaultUpdate is ADA-FD's and ADA-FFD's update when none is chosen.
const DefaultUpdate = Mirror

// DefaultDelta returns Wan & Zhang (TPAMI 2022), §5.1's δ for ADA-FD/FFD at τ = 20: 10 for
// dual averaging, 1 for mirror descent.
func DefaultDelta(u Update) float64 {
	if u == Dual {
		return 10
	}
	return 1
}

// MaxTau bounds τ (package fd's sketch size bound).
const MaxTau = fd.MaxM

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Bits < 1 || c.Bits > sparse.MaxBits {
		return fmt.Errorf("Config.Bits %d out of range 1..%d", c.Bits, sparse.MaxBits)
	}
	if c.Tau < 1 || c.Tau > MaxTau {
		return fmt.Errorf("sketch size τ (Config.Tau) = %d out of range 1..%d", c.Tau, MaxTau)
	}
	if c.Precond != Delta && c.Precond != Escaped || c.Update != Mirror && c.Update != Dual || c.Buffer != Single && c.Buffer != Doubled {
		return errors.New("ada: unknown preconditioner, update or buffer")
	}
	if !(c.Eta > 0) || math.IsInf(c.Eta, 0) {
		return fmt.Errorf("learning rate η (Config.Eta) must be positive and finite, got %v", c.Eta)
	}
	if c.Precond == Delta && (!(c.Delta > 0) || math.IsInf(c.Delta, 0)) {
		return fmt.Errorf("Config.Delta must be positive and finite, got %v", c.Delta)
	}
	if !(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("Config.Epsilon must be finite and ≥ 0, got %v", c.Epsilon)
	}
	if c.Grow && c.Precond != Delta {
		return errors.New("Config.Grow: the growing δ is the δ form's (ADA-FD, ADA-FFD); the escaped form has r itself")
	}
	if c.RowCap != 0 && (c.Buffer != Doubled || c.RowCap < 2*c.Tau || c.RowCap > 3*MaxTau) {
		return fmt.Errorf("Config.RowCap %d: the doubled buffer's Z row cap must be 0 or in %d..%d (per-step sketch: 0)", c.RowCap, 2*c.Tau, 3*MaxTau)
	}
	return nil
}

// RowCap is the most rows Z may have: the Z stride of a feature's row.
func RowCap(c Config) int {
	if c.RowCap > 0 {
		return c.RowCap
	}
	return fd.DefaultRowCap(c.Tau, c.Buffer == Doubled)
}

// DoubledRowCap is the Z row cap of the doubled buffer for new models:
// 2τ, the least the buffer allows (it holds 2τ rows before its deferred
// shrink), against fd's 3τ. Every new direction is a row of Z here, so Z reaches
// its cap every few examples whatever the cap, and a compaction's cost
// (deferred by the core: O(cap·q) per feature when it recurs) and every
// example's Z·x grow with the cap while their number falls less.
// Measured on news20's training set, one pass, logistic, τ = 10
// (valgrind --tool=cachegrind instructions): ADA-FFD 6.79e9 at 3τ, 5.05e9
// at 2τ, 6.97e9 at 4τ; Fast S-ADA 8.05e9 → 5.10e9 (FD-SON, m = 10:
// 2.53e9). The sketch is the same — only the basis Z it is written in,
// and so the rounding, differs.
func DoubledRowCap(tau int) int { return 2 * tau }

// sketchConfig is the fd sketch for c: m = τ, the raw gradient, ρ = λ_τ.
// α only shapes fd's own (unused here) SON products, so any positive value
// does.
func (c Config) sketchConfig() fd.Config {
	return fd.Config{M: c.Tau, Alpha: 1, Fast: c.Buffer == Doubled, RankBuffer: c.Buffer == Doubled, RowCap: c.RowCap}
}
