package son

import (
	"math"
	"runtime"

	"github.com/sparseson/sparseson/sparse"
)

// Diagnostics are a SON learner's numerical health figures (Diagnose).
type Diagnostics struct {
	Rows int // rows of Z in use (p)
	// ZFrob2 is ‖Z‖_F² = tr(ZZᵀ), recomputed over every feature: the
	// growth of Z.
	ZFrob2 float64
	// KDrift is ‖K − ZZᵀ‖_F / ‖ZZᵀ‖_F for a sketch that keeps K = ZZᵀ
	// incrementally (GramSketch): how far its copy has drifted from the
	// Z it describes. −1 when there is no K.
	KDrift float64
	// Ortho is ‖F·ZZᵀ·Fᵀ − I‖_F for a sparse.BasisSketch: the orthonormality
	// drift of its basis V = F·Z measured against the actual Z. −1 when
	// the sketch has no orthonormal basis now.
	Ortho float64
}

// Diagnose measures the learner's numerical health, O(d·p²) for d
// features seen: a diagnostic for long runs, not for the learning path.
func (s *Learner) Diagnose() Diagnostics {
	defer runtime.KeepAlive(s)
	p := len(s.st.Z)
	dg := Diagnostics{Rows: p, KDrift: -1, Ortho: -1}
	if p == 0 {
		dg.KDrift, dg.Ortho = 0, 0
		return dg
	}
	G := make([]float64, p*p) // ZZᵀ from the table, deferred steps applied
	wz := make([]float64, 1+s.pmax)
	for r := range s.tab.Keys {
		s.refreshed(r, wz)
		z := wz[1 : 1+p]
		for i, zi := range z {
			if zi == 0 {
				continue
			}
			for j, zj := range z {
				G[i*p+j] += zi * zj
			}
		}
	}
	var gn float64
	for i := 0; i < p; i++ {
		dg.ZFrob2 += G[i*p+i]
	}
	for _, v := range G {
		gn += v * v
	}
	gn = math.Sqrt(gn)
	if g, ok := s.sk.(sparse.GramSketch); ok {
		K, ks := g.Gram()
		var d float64
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				e := K[i*ks+j] - G[i*p+j]
				d += e * e
			}
		}
		dg.KDrift = math.Sqrt(d) / math.Max(gn, math.SmallestNonzeroFloat64)
	}
	if b, ok := s.sk.(sparse.BasisSketch); ok {
		F, rows, fs, ok := b.OrthoBasis()
		if ok {
			// O = F·G·Fᵀ − I.
			FG := make([]float64, rows*p)
			for i := 0; i < rows; i++ {
				for k := 0; k < p; k++ {
					if f := F[i*fs+k]; f != 0 {
						for j := 0; j < p; j++ {
							FG[i*p+j] += f * G[k*p+j]
						}
					}
				}
			}
			var o float64
			for i := 0; i < rows; i++ {
				for j := 0; j < rows; j++ {
					var v float64
					for k := 0; k < p; k++ {
						v += FG[i*p+k] * F[j*fs+k]
					}
					if i == j {
						v--
					}
					o += v * v
				}
			}
			dg.Ortho = math.Sqrt(o)
		}
	}
	return dg
}
