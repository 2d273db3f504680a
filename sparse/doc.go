// Package sparse holds the sparse example type shared by every stage of
// sparseson, the Learner interface that every learner implements, the
// compact feature table that keeps per-feature state only for features that
// have been seen, and the Sketched Online Newton (SON) core of Luo, Agarwal,
// Cesa-Bianchi and Langford, "Efficient Second Order Online Learning by
// Sketching" (NIPS 2016): split weights w = w̄ + Zᵀb, the invariant
// projection onto |w·x| ≤ C (Lemma 1) and the sketch interface (Alg. 1, 4).
package sparse
