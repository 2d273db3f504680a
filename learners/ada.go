package learners

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sparseson/sparseson/ada"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// ADAFull is the model option ada's value for the dense ADA-FULL
// reference (Wan & Zhang (TPAMI 2022), Eq. 1/2).
const ADAFull = "ada_full"

// ADADefaultTau is τ of FTSL, FTFSL and S-ADA when the sketch size is not
// given at --ada_scale paper: the default sketch size of Wan & Zhang
// (TPAMI 2022), §5.1 and of Yang et al. (ICML 2025), with which the
// former's δ defaults go.
const ADADefaultTau = 20

// ADASmallTau is τ of ADA-FD, ADA-FFD (both updates) and Fast S-ADA when
// the sketch size is not given (ADADefaultTauOf). Measured with
// go run ./bench ada -part accuracy -m 10 against -m 20 (one pass,
// logistic, the 11 shared binary sets; docs/algorithms.md §19, "The
// default τ"): at τ = 10 these five keep their mean test accuracy (+0.1
// to +0.5 pp against τ = 20) and no set is more than 3 pp below default
// AdaGrad, while the per-step shrink (O(τ²)) and the doubled buffer's
// rotation per new direction (O(τ²p), p ≤ 3τ) and compactions shrink with
// τ: on news20, one pass, ADA-FD takes 1.38× FD-SON's instructions
// instead of 2.79×, ADA-FFD 2.69× instead of 6.38× (2.00× with the row
// cap of ada.DoubledRowCap). FTSL, FTFSL and
// S-ADA keep the papers' 20: at τ = 10 the escaped mass ρ_{1:t} grows
// faster on sparse text and their news20 accuracy falls 3.0–3.8 pp below
// AdaGrad's (1.9–2.9 at τ = 20); FTSL and S-ADA cost about FD-SON's
// instructions at 20 with the gated sketch anyway.
//
// Since the per-coordinate completion (ada.Config.Diag, the default under
// --ada_scale auto) each feature steps by at least its own AdaGrad step
// whatever the escaped mass, and the three keep their accuracy at τ = 10
// too: one pass, -b 18, the 11 sets, mean test accuracy τ = 20 → 10
// (AdaGrad 85.68 % logistic, 86.34 % squared): S-ADA 87.33 → 87.39 %
// logistic, 87.66 → 87.42 % squared; FTSL 86.82 → 86.75 %, 86.99 →
// 87.59 %; FTFSL 86.66 → 86.64 %, 87.12 → 87.33 %; no set more than 2.4 pp
// below AdaGrad, news20's test error within 0.08 pp (S-ADA logistic 6.36
// → 6.44 %). News20 ×10 as text, one pass, logistic, least wall of 5
// runs against FD-SON's in the same run: S-ADA 1.71× → 1.19×, FTSL and
// FTFSL at τ = 10 1.19× and 1.55×. So under --ada_scale auto every
// FD-adaptive learner defaults to τ = 10; at --ada_scale paper, without
// the completion, FTSL, FTFSL and S-ADA keep 20.
const ADASmallTau = 10

// ADADefaultTauOf is the FD-adaptive learner's τ when -m is not given:
// ADASmallTau for the δ form and Fast S-ADA, and for every learner under
// --ada_scale auto (scale); ADADefaultTau for FTSL, FTFSL and S-ADA at
// --ada_scale paper.
func ADADefaultTauOf(name, scale string) int {
	n, ok := ada.Lookup(name)
	if ok && (n.Precond == ada.Delta || n.Name == "sada_fast" || scale != "paper") {
		return ADASmallTau
	}
	return ADADefaultTau
}

// ADADefaultEta is η when the learning rate is not given, one value per
// preconditioner form, chosen with go run ./bench ada -part accuracy
// (docs/algorithms.md §19): over η = 2^j, j = −4…4, at τ = 20,
// logistic loss, one pass over the 11 shared binary sets, the η with the
// best mean test accuracy among those never more than 2 pp below default
// AdaGrad on news20 and w8a. The same j wins for every learner of a form:
// j = −2 for the δ form (ADA-FD, ADA-FFD, both updates: means
// 85.35–86.43%), j = −1 for the escaped-mass form (FTSL, FTFSL, S-ADA,
// Fast S-ADA: 85.46–86.81%). That grid ran on x as it comes (ada_scale
// paper). Rerun under the default ada_scale auto (features of unit root
// mean square, ada.Prescaled) over η = 2^j, j = −4…3: ½ is still the best
// mean of the four escaped-form learners (86.61–87.37%); for the δ form a
// larger η has a mean up to 0.7 pp higher but puts ADA-FD(M)/ADA-FFD(M)
// 5.6 pp below AdaGrad on heart_scale, and ¼ has no set more than 3 pp
// below it. No η puts FTSL within 3 pp of AdaGrad on both heart_scale
// (wants η ≤ ¼) and news20 (wants η ≥ 1): docs/algorithms.md §19, "The
// defaults at --ada_scale auto". Since the escaped form's completion
// (model option ada_diag, ada.Config.Diag) its η under --ada_scale auto is
// divided by √N, N the mean ‖x‖² of the examples learned; ½ was kept
// against ¼ (logistic means down to 85.76 %, news20 logistic 7.2–7.7 %)
// and 1 (news20 squared up to 7.16 %, FTFSL 4.76 pp below AdaGrad on sonar
// under squared loss): news20 one pass at ½, 5.88–6.37 % test error under
// squared loss, 6.35–6.93 % under logistic (docs/algorithms.md §19,
// "Squared loss on sparse text").
//
// Since the δ form's growing δ_t (ada.Config.Grow) it takes the
// completion too under --ada_scale auto, and with it the escaped form's
// ½ (and √N): over η ∈ {¼, ½, 1}, one pass, the eleven shared binary
// sets, ¼ put ADA-FD(P)/ADA-FFD(P) 0.62–0.68 pp below AdaGrad's logistic
// mean and 4.3–5.7 pp below it on ionosphere; ½ and 1 meet both lines,
// and ½ keeps news20 under squared loss furthest inside its line
// (docs/algorithms.md §19, "The δ form's growing δ").
func ADADefaultEta(name, scale string) float64 {
	n, ok := ada.Lookup(name)
	if ok && (n.Precond == ada.Escaped || scale != "paper") {
		return 0.5
	}
	return 0.25
}

// ADADeltaGate is ADA-FD's gate ε (--fd_gate, ada.Config.Gate) when none
// is given: the gated sketch drops a direction with E′ < (εδ)² and keeps a
// gradient with ‖ĝ‖² < (εδ)² out of the sketch (ada/gate.go). Measured
// with logistic loss, τ = 10, news20 test error after one pass of news20
// (exact FD 7.57 %) and after one pass of news20 ×10 (6.84 %): ε = 1 7.69
// and 6.85 %, 2 7.29 and 6.93 %, 3 7.57 and 7.25 %, 4 7.83 and 7.17 %;
// squared loss, one pass, 11.03 % exact, 11.75, 12.71, 14.22 % at ε = 1,
// 2, 3. ε = 2, FD-SON's gate too, is within 0.1 point of exact FD on
// both streams under logistic loss. Instructions for one pass of news20
// (valgrind --tool=cachegrind): 2.87e9 exact, 2.15e9, 1.86e9, 1.72e9 at
// ε = 1, 2, 3 (FD-SON, m = 10: 1.51e9); at ε = 2, 98.1 % of news20 ×10's
// gradients stay out of the sketch. The gate acts only from fd.GateRows·2τ features seen, so
// the small sets keep exact FD's models. Only under --ada_scale auto: the
// limit is in the units of g², and at --ada_scale paper (raw news20
// counts) ε = 2 cost 0.12 points (10.22 → 10.34 %), ε = 3 0.6, so the
// paper form stays exact unless --fd_gate is given.
const ADADeltaGate = 2

// ADAGrowGate is ADA-FD's and ADA-FFD's gate ε when none is given and δ
// grows (ada.Config.Grow, the default under --ada_scale auto): the limit
// is then (εδ_t)², in the units of the preconditioner as it stands, so a
// skipped gradient moves H_t along any direction by less than a factor
// 1 + ε. 0.2 is S-ADA's skip in those units: S-ADA keeps ‖ĝ‖² < κ·ε·r =
// 0.03·r out, r the floor of its G̃ (ADASkip, ε 0.3), and 0.2² = 0.04.
// ADADeltaGate's ε = 2 against the grown δ_t would let 15 of news20's
// 11,314 gradients into the sketch (one live row). News20, one pass
// (test error, ADA-FD(M), ADA-FD(P), ADA-FFD(M), ADA-FFD(P)), and the
// gradients that reach the sketch: the fixed limit (εδ)², ε = 2, logistic
// 6.56/6.39/6.51/6.40 %, squared 6.35/5.64/6.20/5.62 %, 3,082 (ADA-FD(M));
// (εδ_t)², ε = 0.2, logistic 6.55/6.39/6.49/6.39 %, squared
// 6.35/5.63/6.17/5.64 %, 225; ε = 0.5, 55 and within 0.1 pp of those.
// Instructions, news20's training set, one text pass, logistic
// (valgrind --tool=cachegrind, GOMAXPROCS=1): ADA-FD(M) 1.877e9 → 1.433e9,
// ADA-FFD(M) 1.990e9 → 1.511e9, ADA-FD(P) 1.316e9 → 1.393e9 (its δ = 10
// made the fixed limit 400, looser early on), FD-SON 1.182e9. Only
// news20 among the shared sets has the features seen for the gate to act.
const ADAGrowGate = 0.2

// ADASkip is κ of S-ADA's skips (ada.Config.Skip, model option ada_skip):
// with the gate acting, a gradient with ‖ĝ‖² < κ·ε·r stays out of the
// sketch and its ‖ĝ‖²/τ is added to r, as a dropped direction's E′ is
// (ada/gate.go). Measured on news20, one pass (test error; no skips: 8.87 %
// logistic, 7.85 % squared): κ = 0.1 8.92 % and 7.87 %, 0.3 8.94 % and
// 7.95 %, 1 8.98 % and 7.90 %; at κ = 0.1 all but 647 of news20 ×10's
// 113,140 gradients stay out. Each skip raises r and with it the limit, so
// after the first few thousand examples the sketch changes seldom.
// FTSL keeps every gradient: under dual averaging the same rule cost 0.45
// (κ = 0.1) to 1.2 points (κ = 1) of news20 test error, and FTSL is within
// its speed line without it.
const ADASkip = 0.1

// ADADefaultEpsilon is ε of an escaped-mass learner when --epsilon is not
// given: 1 for the dual-averaging ones (FTSL, FTFSL) on pre-scaled
// features, else the papers' 0 (the pseudo-inverse while ρ_{1:t} = 0).
//
// Why dual averaging only: while FD has discarded nothing, a direction u
// of small eigenvalue λ gets the weight −η·(ḡ·u)/√λ, ḡ the sum of the
// gradients — up to η·√t by Cauchy–Schwarz, the paper's bound, and
// reached where the data span fewer than τ directions so that ρ_{1:t}
// stays 0 for the whole run (heart_scale's 13 features: an eigenvalue of
// 4e-4 against a largest of 26 after 16 examples, and FTSL 5.6 points of
// test accuracy below AdaGrad). Mirror descent moves by
// −η·(g·u)/√λ per step, at most η since λ ≥ (g·u)² while nothing is
// discarded: S-ADA needs no floor. Under --ada_scale auto the gradients
// are ℓ′ times features of unit root mean square, so ε = 1 — one
// example's squared gradient per direction, FTSL-Shampoo's ε — is a
// floor in no unit of the data. One pass, logistic, the eleven shared
// binary sets: FTSL 85.19 → 88.89% on heart_scale, no set more than 3
// points below AdaGrad (news20 −2.9 with the gate), the mean 86.78 →
// 86.60% (AdaGrad 85.68%); under squared loss the mean moves by −0.14
// (FTSL) and −0.28 points (FTFSL). On S-ADA and Fast S-ADA the same
// floor cost 0.3–0.6 points of mean for nothing.
func ADADefaultEpsilon(name, scale string) float64 {
	if n, ok := ada.Lookup(name); ok && n.Precond == ada.Escaped && n.Update == ada.Dual && scale != "paper" {
		return 1
	}
	return 0
}

// FTSL-Shampoo's defaults when η, τ and ε are not given (η: of the
// paper's form, --ada_scale paper; ShampooDiagDefaultEta under auto): the setting of
// the grid η ∈ {½ … 256}, ε ∈ {0.01, 1, 100}, τ ∈ {5, 10, 20} with the
// smallest mean relative excess one-pass test error over 20-class news20
// and three-class abalone (go run ./bench multiclass -part shampoo;
// docs/algorithms.md §20): 34.17% and 40.07% against the grid's best
// 33.18% and 39.93%.
const (
	ShampooDefaultEta     = 4.0
	ShampooDefaultTau     = 20
	ShampooDefaultEpsilon = 1.0
)

// ShampooDiagDefaultEta is FTSL-Shampoo's η under --ada_scale auto, where
// a new model takes the per-coordinate completion of R^{−1/4} and the
// per-example left factor with η/√N (model option shampoo_diag,
// ada.ShampooConfig.Diag); τ and ε stay ShampooDefaultTau and
// ShampooDefaultEpsilon. Chosen as the other defaults were — the smallest
// mean relative excess one-pass test error over 20-class news20 and
// abalone3 (5 training orders) — on η = 2^{j/2}: test error %, news20 /
// abalone3, at η = ¼ 22.36/40.72, ½ 22.01/39.71, 0.7 21.53/39.54,
// 1 20.98/39.35, 1.4 20.62/39.40, 2 20.98/39.69, 2.8 21.77/39.76,
// 4 22.54/40.10, 8 25.19/41.75 (softmax AdaGrad 21.40/44.29; the paper's
// form at its defaults 26.46/39.45). Both sets are best at η 1–1.4: the
// η/√N is what lets one η serve ~140 features an example and ~10. At
// η 1.4, ε 0.01/0.1/10 give 20.13/20.17/21.63 on news20 (abalone3
// 39.45/39.45/39.52): ε stays 1, one example's squared gradient per
// direction on pre-scaled features, since only news20 moves with it;
// τ 5/10/40 give 21.28/21.14/20.69 (39.78/39.40/39.40).
// docs/algorithms.md §20.
const ShampooDiagDefaultEta = 1.4

var adaFamily = &Family{
	Name:    "ada",
	options: adaOptions,
	Tunable: []string{"learning_rate"},
	build: func(o model.Options, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := adaConfig(o)
		if err != nil {
			return nil, err
		}
		full := o["ada"] == ADAFull
		if o["ada_scale"] != "auto" {
			return adaBuild(cfg, full, l, r)
		}
		return adaPrescaled(cfg, full, l, r)
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := adaConfig(o)
		if err != nil {
			return 0, 0, err
		}
		if o["ada"] == ADAFull {
			// Every slot's scale under --ada_scale auto (Σx_j², n_j), a
			// bit for each slot refused beyond the cap (sparse.SlotCap);
			// the slots kept are in capped.
			per := 0.0
			if o["ada_scale"] == "auto" {
				per = 16
			}
			return per, math.Ldexp(1, int(cfg.Bits)-3), nil
		}
		// A feature's row: β̄_j (or ḡ_j), its Z column, the pre-scaling's
		// Σx_j² and n_j under --ada_scale auto, and a deferred-step stamp;
		// the sketch's p×p matrices and the core's ring of maps.
		p, row := float64(ada.RowCap(cfg)), 1.0
		if o["ada_scale"] == "auto" {
			row += 2
		}
		per := 8*(row+p) + 4
		if cfg.Diag {
			// The completion's G_jj and u_j, two more columns of the row.
			per += 8 * 2
		}
		return per, 8*4*p*p + 8*256*(2*p*p+p), nil
	},
	capped: func(o model.Options) (int, float64) {
		if o["ada"] != ADAFull {
			return 0, 0
		}
		// β_j and a row of U and of its double buffer (ada/full.go), at
		// most MaxFullSlots wide.
		return ada.MaxFullSlots, 8 * (1 + 2*float64(fullRows(o, ada.MaxFullSlots)))
	},
	describe: func(o model.Options) []string {
		cfg, _ := adaConfig(o)
		line := "learner = " + cfg.Name()
		if o["ada"] != ADAFull {
			line += ", τ = " + o["m"]
		}
		line += ", η = " + o["learning_rate"]
		if v, ok := o["delta"]; ok {
			line += ", δ = " + v
		} else {
			line += ", ε = " + o["epsilon"]
		}
		return []string{line + scaleNote(o)}
	},
}

// scaleNote says in the run header which features the learner sees.
func scaleNote(o model.Options) string {
	if o["ada_scale"] == "auto" {
		return ", on x_j/s_j, s_j the root mean square of x_j (--ada_scale auto)"
	}
	return ", on x as given (--ada_scale paper)"
}

// adaBuild makes (r nil) or loads the learner of cfg.
func adaBuild(cfg ada.Config, full bool, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
	switch {
	case full && r == nil:
		return ada.NewFull(cfg, l)
	case full:
		return ada.LoadFull(r, cfg, l)
	case r == nil:
		return ada.New(cfg, l)
	}
	return ada.Load(r, cfg, l)
}

// adaPrescaled makes (r nil) or loads the learner of cfg on pre-scaled
// features (--ada_scale auto): the scales in the split's rows for the
// learners on the SON core, a wrapper around ADA-FULL. Both save the
// wrapper's format (ada.Prescaled).
func adaPrescaled(cfg ada.Config, full bool, l loss.Loss, r *model.Reader) (sparse.Learner, error) {
	var p *ada.Prescaled
	var err error
	switch {
	case full && r == nil:
		var in sparse.Learner
		if in, err = adaBuild(cfg, full, l, nil); err == nil {
			p = ada.NewPrescaled(in, cfg.Bits)
		}
	case full:
		p, err = ada.LoadPrescaled(r, cfg.Bits, func(r *model.Reader) (sparse.Learner, error) { return adaBuild(cfg, full, l, r) })
	case r == nil:
		p, err = ada.NewPrescaledLearner(cfg, l)
	default:
		p, err = ada.LoadPrescaledLearner(r, cfg, l)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// adaConfig decodes an FD-adaptive model's options.
func adaConfig(o model.Options) (ada.Config, error) {
	var p optParser
	cfg := ada.Config{Bits: uint(p.int(o, "bits")), Eta: p.float(o, "learning_rate")}
	switch o["update"] {
	case "dual":
		cfg.Update = ada.Dual
	case "mirror":
		cfg.Update = ada.Mirror
	default:
		return cfg, fmt.Errorf("model option update=%q is not dual or mirror", o["update"])
	}
	name := o["ada"]
	if name == ADAFull {
		cfg.Precond, cfg.Delta = ada.Delta, p.float(o, "delta")
		return cfg, p.err
	}
	n, ok := ada.Lookup(name)
	if !ok {
		return cfg, fmt.Errorf("unknown FD-adaptive learner %q", name)
	}
	if n.UpdateFixed && cfg.Update != n.Update {
		return cfg, fmt.Errorf("model option update=%q does not fit %s", o["update"], n.Paper)
	}
	cfg.Precond, cfg.Buffer, cfg.Tau = n.Precond, n.Buffer, p.int(o, "m")
	// Models without fd_gate are exact FD (as every model before it).
	cfg.Gate = optFloat(o, "fd_gate", 0, &p)
	cfg.Skip = optFloat(o, "ada_skip", 0, &p)
	// Models without ada_project take no projected steps (as before them).
	cfg.Project = optFloat(o, "ada_project", 0, &p)
	// Models without ada_dual_cache form C·(Z·ḡ) afresh every example.
	cfg.DualCache = optFloat(o, "ada_dual_cache", 0, &p) != 0
	// Models without ada_diag have no completion, those without ada_grow
	// a fixed δ (as every model before them).
	for _, b := range []struct {
		key string
		on  *bool
	}{{"ada_diag", &cfg.Diag}, {"ada_grow", &cfg.Grow}} {
		switch v := optFloat(o, b.key, 0, &p); v {
		case 0, 1:
			*b.on = v == 1
		default:
			return cfg, fmt.Errorf("model option %s=%v is not 0 or 1", b.key, v)
		}
	}
	if _, ok := o["row_cap"]; ok {
		// Models without it have fd's doubled-buffer cap 3τ (Config.RowCap 0).
		cfg.RowCap = p.int(o, "row_cap")
	}
	if n.Precond == ada.Delta {
		cfg.Delta = p.float(o, "delta")
	} else {
		cfg.Epsilon = p.float(o, "epsilon")
	}
	return cfg, p.err
}

var shampooFamily = &Family{
	Name:    "shampoo",
	options: shampooOptions,
	// η only scales W = −η·P·Ḡ, so a resumed run may change it.
	Tunable: []string{"learning_rate"},
	Fixed:   []string{"classes", "shampoo_exact_left"},
	build: func(o model.Options, _ loss.Loss, r *model.Reader) (sparse.Learner, error) {
		cfg, err := shampooConfig(o)
		if err != nil {
			return nil, err
		}
		switch {
		case o["ada_scale"] != "auto" && r == nil:
			return ada.NewShampoo(cfg)
		case o["ada_scale"] != "auto":
			return ada.LoadShampoo(r, cfg)
		case r == nil:
			m, err := ada.NewShampoo(cfg)
			if err != nil {
				return nil, err
			}
			return ada.NewPrescaledMulticlass(m, cfg.Bits), nil
		}
		return ada.LoadPrescaledMulticlass(r, cfg.Bits, func(r *model.Reader) (*ada.Shampoo, error) { return ada.LoadShampoo(r, cfg) })
	},
	memory: func(o model.Options) (float64, float64, error) {
		cfg, err := shampooConfig(o)
		if err != nil {
			return 0, 0, err
		}
		// A feature's row: its K entries of Ḡ (and R_jj under the
		// completion), the split table's [β̄_j, Z_j] and a deferred-step
		// stamp; fixed: Y (p×K), the
		// sketch's p×p matrices and the core's ring of maps, the left
		// factor.
		p, k := float64(ada.ShampooRowCap(cfg)), float64(cfg.Classes)
		per := 8*(k+1+p) + 4
		if cfg.Diag {
			per += 8 // R_jj
		}
		return per, 8 * (p*k + 4*p*p + 256*(2*p*p+p) + k*(k+1)), nil
	},
	describe: func(o model.Options) []string {
		k, _ := strconv.Atoi(o["classes"])
		m, _ := strconv.Atoi(o["m"])
		left := "sketched, τ_L = τ"
		switch {
		case o["shampoo_exact_left"] == "true":
			left = "exact"
		case m >= k:
			// L̂L̂ᵀ has rank ≤ K − 1 (1ᵀ(p − e_y) = 0): τ ≥ K keeps it exactly.
			left = "exact (τ ≥ K)"
		}
		lines := []string{
			"learner = FTSL-Shampoo, softmax (multinomial logistic), " + o["classes"] + " classes",
			"sketch size τ = " + o["m"] + ", left factor " + left + ", ε = " + o["epsilon"] + ", η = " + o["learning_rate"] + scaleNote(o),
		}
		if o["shampoo_diag"] == "1" {
			lines = append(lines, "R^{−1/4} completed per coordinate by (R_jj + ε)^{−1/4}, left factor per example with η/√N (docs/algorithms.md §20)")
		}
		return lines
	},
}

// shampooConfig decodes an FTSL-Shampoo model's options.
func shampooConfig(o model.Options) (ada.ShampooConfig, error) {
	var p optParser
	cfg := ada.ShampooConfig{
		Bits:    uint(p.int(o, "bits")),
		Classes: p.int(o, "classes"),
		Tau:     p.int(o, "m"),
		Eta:     p.float(o, "learning_rate"),
		Epsilon: p.float(o, "epsilon"),
	}
	// Models without shampoo_diag are the paper's form (as every model
	// before it).
	switch v := optFloat(o, "shampoo_diag", 0, &p); v {
	case 0, 1:
		cfg.Diag = v == 1
	default:
		return cfg, fmt.Errorf("model option shampoo_diag=%v is not 0 or 1", v)
	}
	cfg.LeftTau = cfg.Tau
	if p.bool(o, "shampoo_exact_left") {
		cfg.LeftTau = 0
	}
	if p.err != nil {
		return cfg, p.err
	}
	return cfg, cfg.Validate()
}

// adaGated reports whether the settings choose an FD-adaptive learner
// --fd_gate applies to (ada.Config.Gate): the per-step sketch's, and the
// doubled buffers that skip small gradients (adaSkipsDoubled).
func adaGated(s *Settings) bool {
	name, _ := ADASelected(s)
	n, ok := ada.Lookup(name)
	return ok && (n.Buffer == ada.Single || adaSkipsDoubled(name))
}

// adaSkipsDoubled reports whether the named doubled-buffer learner keeps
// small gradients out of its buffer (ada.Config.Gate with the doubled
// buffer: skips only, ada/gate.go). ADA-FFD skips as ADA-FD does (‖ĝ‖² <
// (εδ_t)², ε = ADAGrowGate under --ada_scale auto), Fast S-ADA as S-ADA
// (‖ĝ‖² < κ·ε·r, κ = ADASkip), FTFSL at κ = ADADualSkip.
func adaSkipsDoubled(name string) bool {
	return name == "ada_ffd" || name == "sada_fast" || name == "ftfsl"
}

// ADADualSkip is κ of FTFSL's skips (ada.Config.Skip, model option
// ada_skip; ε is --fd_gate's 0.3). Measured on news20, one pass, logistic,
// -b 18 (test error; no skips: 9.626 %): κ = 0.1 9.719 % (10,544 of the
// 11,314 gradients kept out of the buffer), 0.03 9.652 % (9,337), 0.01
// 9.586 % (7,029). Dual averaging sums every gradient into its step, so a
// skip changes only the preconditioner, yet FTSL lost 0.45 points at κ =
// 0.1 (and so keeps every gradient); FTFSL takes the κ whose cost is
// well inside 0.1 point. On news20 ×10 as text (one pass, least CPU of 3
// rounds) its CPU time falls 8.22 s → 1.53 s against FD-SON's 0.80 s.
const ADADualSkip = 0.03

// ADAProject is γ of FTSL's projected steps (ada.Config.Project, model
// option ada_project; fd/project.go): with the gate acting, a gradient
// whose part outside the sketch's row space the gate would drop
// (b² < ε·r) and whose cross term with its part p inside is below
// γ·ε·r (b·‖p‖) adds p alone, without the shrink. Measured on news20,
// one pass, logistic, -b 18 (test error, log loss; exact gate 9.80 %,
// 0.33854): γ = 0.003 9.85 %, 0.33866 (29 % of the updates shrink);
// 0.01 9.85 %, 0.33838 (12 %); 0.03 9.96 %, 0.33905 (5 %); 0.1 9.93 %,
// 0.33937 (1.8 %). Under --ada_scale auto only: the paper form stays as
// it was.
const ADAProject = 0.01
