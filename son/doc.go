// Package son is Sketched Online Newton (SON): Haipeng Luo, Alekh Agarwal,
// Nicolò Cesa-Bianchi, John Langford, "Efficient Second Order Online
// Learning by Sketching", NIPS 2016 — Alg. 1 (the sketched ONS step with
// the invariant projection onto |w·x| ≤ C of Lemma 1) in its sparse form
// (Alg. 4–5, Eq. 5–6): the weights split as w = w̄ + Zᵀb, so that an
// example costs O(m·s + m²) for s nonzeros and m sketch rows, whatever the
// dimension.
//
// Learner (New, Load) is the SON learner around any sparse.Sketch: Oja's
// (package oja; Luo et al., NIPS 2016, Alg. 3–5), Frequent Directions and
// Robust Frequent Directions (package fd; Luo Luo, Cheng Chen, Zhihua
// Zhang, Wu-Jun Li, Tong Zhang, "Robust Frequent Directions with
// Application in Online Learning", JMLR 20, 2019, Alg. 2), the Gaussian
// random projection (package rp), or none (NoSketch, m = 0). It adds the
// diagonal pre-scaling of Luo et al. (NIPS 2016), §5.2, the scaled-space
// form (scaled.go), deferred folds and transforms of Z for sketches that
// keep ZZᵀ (lazy.go), merging of models trained on shards (merge.go) and
// numerical diagnostics (Diagnose).
//
// Full is the unsketched full ONS of Luo et al. (NIPS 2016), Eq. 1–2 (a
// dense d×d A_t for small hash spaces), the reference for small data.
//
// Split is the same core with the step left to its caller: the split
// weight vector over a sketch's basis that the FD-adaptive learners of
// package ada drive (Yuanyu Wan, Lijun Zhang, "Efficient Adaptive Online
// Learning via Frequent Directions", IEEE TPAMI, 2022, Alg. 1; Sifan Yang,
// Yuanyu Wan, Peijia Li, Yibo Wang, Xiao Zhang, Zhewei Wei, Lijun Zhang,
// "Dimension-Free Adaptive Subgradient Methods with Frequent Directions",
// ICML 2025, Alg. 2). An RMS split (NewRMSSplit, rms.go) learns on the
// features pre-scaled by their root mean square, the sums in the rows of
// its own table; a split with auxiliary columns (SplitOptions.Aux, aux.go)
// keeps a caller's per-feature state in those rows as well.
package son
