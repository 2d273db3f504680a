package rp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/sparseson/sparseson/sparse"
)

// Basis implements sparse.SketchMerger: the sketch is Z itself (F = I).
func (s *Sketch) Basis() ([]float64, int) {
	if s.p == 0 {
		return nil, 0
	}
	m := s.m
	C := make([]float64, m*m)
	for i := 0; i < m; i++ {
		C[i*m+i] = 1
	}
	return C, m
}

// Merge implements sparse.SketchMerger: the parts' projections are summed,
// S = Σ_i Ω_i·S_i, as S_i = Σ_t r_t ĝ_tᵀ are sums of independent rank-one
// terms with E[S_iᵀS_i] = Σĝĝᵀ over part i's examples. Ω_i is a diagonal
// of independent random signs, drawn from a generator seeded by part i's
// own state: shards trained with the same --random_seed, or from the same
// model (every round of parameter mixing), draw the same r_t, and the
// plain sum would then hold the cross terms Σ_t ĝ_{i,t}ĝ_{j,t}ᵀ of
// different examples; with the signs E[Ω_iΩ_j] = 0 for i ≠ j and
// E[SᵀS] = ΣE[S_iᵀS_i], the unbiased estimate of the whole data's Σĝĝᵀ
// that a single stream's RP sketch is. One part is kept as it is (no
// cross terms). N = αI + SSᵀ and H = N⁻¹ are recomputed from the merged
// Z; rounds and counters add up; the captured energy is each part's,
// rescaled as the core rescaled its rows. The generator continues from a
// state mixed from every part's (one part: its own), so that its next
// r_t are new draws for every part.
func (s *Sketch) Merge(ms *sparse.SketchMerge) error {
	parts, ts, base, err := s.mergeParts(ms)
	if err != nil {
		return err
	}
	T, err := s.signedSum(ms, parts)
	if err != nil {
		return err
	}
	r := 0
	if ms.N > 0 {
		r = s.m
	}
	gram := ms.Apply(T, r)
	if err := s.setMerged(gram, r); err != nil {
		return err
	}
	s.t = math.Max(0, sparse.MergedSum(ts, baseT(base)))
	s.mergeCounters(ms, parts)
	s.k2, s.nmax = s.norms()
	return s.mergeSource(parts)
}

// mergeParts checks the receiver, and that the parts and the base are RP
// sketches configured as it is; ts are the parts' rounds.
func (s *Sketch) mergeParts(ms *sparse.SketchMerge) (parts []*Sketch, ts []float64, base *Sketch, err error) {
	if s.p != 0 || s.t != 0 {
		return nil, nil, nil, errors.New("rp: merge into a sketch that is not new")
	}
	parts = make([]*Sketch, len(ms.Parts))
	ts = make([]float64, len(parts))
	for i, sk := range ms.Parts {
		p, ok := sk.(*Sketch)
		if !ok || p.cfg != s.cfg {
			return nil, nil, nil, fmt.Errorf("rp: cannot merge a %s sketch into rp (m = %d)", sk.Name(), s.m)
		}
		parts[i], ts[i] = p, p.t
	}
	if ms.Base != nil {
		b, ok := ms.Base.(*Sketch)
		if !ok || b.cfg != s.cfg {
			return nil, nil, nil, fmt.Errorf("rp: the base's %s sketch does not match rp (m = %d)", ms.Base.Name(), s.m)
		}
		base = b
	}
	return parts, ts, base, nil
}

// signedSum is the transform T (m×N) with Z = T·(stack) = Σ_i Ω_i·S_i:
// each part's m rows times its random signs (none for one part).
func (s *Sketch) signedSum(ms *sparse.SketchMerge, parts []*Sketch) ([]float64, error) {
	m, n := s.m, ms.N
	T := make([]float64, m*n)
	for i, p := range parts {
		off, q := ms.Rows[i], ms.Rows[i+1]-ms.Rows[i]
		if q == 0 {
			continue
		}
		if q != m {
			return nil, fmt.Errorf("rp: part %d has %d rows, want %d", i+1, q, m)
		}
		var rng *rand.Rand
		if len(parts) > 1 {
			rng = rand.New(rand.NewPCG(p.fingerprint(), 0x6d65726765)) // "merge"
		}
		for a := 0; a < m; a++ {
			sign := 1.0
			if rng != nil && rng.Uint64()&1 == 1 {
				sign = -1
			}
			T[a*n+off+a] = sign
		}
	}
	return T, nil
}

// setMerged sets N = αI + SSᵀ (SSᵀ = gram, r×r with r = 0 or m) and
// H = N⁻¹.
func (s *Sketch) setMerged(gram []float64, r int) error {
	m := s.m
	s.p = r
	s.alpha = s.cfg.Alpha
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := 0.0
			if r > 0 {
				v = gram[i*m+j]
			}
			if i == j {
				v += s.alpha
			}
			s.N[i*m+j] = v
		}
	}
	s.lok, s.l2ok = false, false
	if !cholInverse(s.H, s.N, s.w2, m) {
		return errors.New("rp: merge: αI + SSᵀ of the merged sketch is not positive definite")
	}
	return nil
}

// mergeCounters adds up the parts' counters and captured energy, each
// part's rescaled as the core rescaled its rows: by the ratio of its rows'
// energy in the stack to tr(S_iS_iᵀ).
func (s *Sketch) mergeCounters(ms *sparse.SketchMerge, parts []*Sketch) {
	m, n := s.m, ms.N
	for i, p := range parts {
		s.chols += p.chols
		s.skips += p.skips
		s.fallbk += p.fallbk
		off := ms.Rows[i]
		var in, own float64
		for a := 0; a < ms.Rows[i+1]-off; a++ {
			in += ms.Gram[(off+a)*n+off+a]
			own += p.N[a*m+a] - p.alpha
		}
		ratio := 1.0
		if own > 0 {
			ratio = in / own
		}
		s.capt += ratio * p.capt
	}
}

// mergeSource sets the generator: one part's state, or one mixed from
// every part's, so that the next r_t are new draws for every part.
func (s *Sketch) mergeSource(parts []*Sketch) error {
	if len(parts) == 1 {
		st, err := parts[0].src.MarshalBinary()
		if err == nil {
			err = s.src.UnmarshalBinary(st)
		}
		if err != nil {
			return fmt.Errorf("rp: merge: generator state: %w", err)
		}
		return nil
	}
	var hi, lo uint64
	for _, p := range parts {
		f := p.fingerprint()
		hi ^= f
		lo ^= f*0x9e3779b97f4a7c15 + 1
	}
	s.src.Seed(hi^math.Float64bits(s.t), lo^uint64(len(parts)))
	return nil
}

func baseT(b *Sketch) float64 {
	if b == nil {
		return 0
	}
	return b.t
}

// fingerprint hashes the sketch's state (generator, rounds, N): two parts
// with the same fingerprint are the same sketch.
func (s *Sketch) fingerprint() uint64 {
	h := fnv.New64a()
	st, _ := s.src.MarshalBinary()
	h.Write(st)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(s.t))
	h.Write(b[:])
	for _, v := range s.N {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}
