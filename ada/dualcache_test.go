package ada

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
)

// cacheCases are dual-averaging cases with Config.DualCache: FTSL with
// projected steps (whose steps leave the factors as they were), FTFSL and
// ADA-FFD(P) with the doubled buffer's skips, and gated ADA-FD(P) — each
// on a stream where t is carried past some steps and formed afresh after
// others.
func cacheCases() []projCase {
	var out []projCase
	for _, c := range projCases() {
		if c.v.update == Dual && c.project < 1 {
			out = append(out, c)
		}
	}
	for _, lossName := range []string{"logistic", "squared"} {
		for _, c := range doubledSkipCases(func(v variant) oracleCase {
			return oracleCase{v: v, d: 40, s: 4, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: 5}
		}, 0.5, 0.3) {
			if c.v.update == Dual {
				out = append(out, projCase{gatedCase: c})
			}
		}
		o := oracleCase{v: variant{"ada_fd", Dual}, d: 40, s: 4, t: 300, tau: 5, lossName: lossName, eta: 0.5, seed: 5}
		out = append(out, projCase{gatedCase: o.gated(1)})
	}
	return out
}

func (c projCase) cached() Config {
	cfg := c.config()
	cfg.DualCache = true
	return cfg
}

// TestDualCacheOracle: with Config.DualCache the learners stay the dense
// reference's at 1e-9, prediction by prediction and on the final weights
// (t = C·Z·ḡ carried by t += g·C·Z·x is the same value up to rounding),
// and the carried t is used: carried past some steps, formed afresh after
// the sketch changed.
func TestDualCacheOracle(t *testing.T) {
	for _, c := range cacheCases() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			sp, dn, worst := c.sideBySide(t, c.cached(), c.project, c.data(), nil)
			if wworst := weightGap(sp, dn.Weights()); !(worst <= 1e-9) || !(wworst <= 1e-9) {
				t.Errorf("sparse vs dense: predictions %.3g, weights %.3g (tolerance 1e-9)", worst, wworst)
			}
			if sp.carried == 0 || sp.carried >= c.t {
				t.Errorf("t carried past %d of %d steps: want some, not all", sp.carried, c.t)
			}
		})
	}
}

// TestDualCacheSaveLoad: save → load → continue is bit-identical to never
// stopping with Config.DualCache, t being carried at the cut (it is saved
// as carried).
func TestDualCacheSaveLoad(t *testing.T) {
	for _, c := range cacheCases() {
		if c.lossName != "logistic" {
			continue
		}
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			cfg := c.cached()
			a, data := trainedTo(t, cfg, nil, 0), c.data()
			cut := learnUntil(a, data, c.t/2, func(carriedBefore int) bool { return a.carried > carriedBefore && a.tOK })
			if cut < 0 {
				t.Fatal("t not carried after half the stream: the case checks nothing")
			}
			learnsAsReloaded(t, a, cfg, data, cut)
		})
	}
}

// TestDualCacheConfig: DualCache is refused without dual averaging, and
// the error names the field.
func TestDualCacheConfig(t *testing.T) {
	for _, c := range []struct {
		update Update
		ok     bool
	}{{Dual, true}, {Mirror, false}} {
		t.Run(fmt.Sprint(c.update), func(t *testing.T) {
			cfg := Config{Bits: 10, Tau: 5, Eta: 1, Delta: 1, Update: c.update, DualCache: true}
			_, err := New(cfg, dense.Loss("logistic"))
			if (err == nil) != c.ok {
				t.Fatalf("New: %v, want ok = %v", err, c.ok)
			}
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte("Config.DualCache")) {
				t.Errorf("error %q does not name Config.DualCache", err)
			}
		})
	}
}
