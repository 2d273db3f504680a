// Package sparse holds what every stage of sparseson shares: the sparse
// example type (Example), the Learner interface every learner implements
// and its optional interfaces (Reporter, Multiclass, Merger, Rekeyer), the
// compact feature table that keeps per-feature state only for the features
// that have been seen (Table, with its slot index), the helpers every
// learner's merge uses (Union, MergedSum, Weigh, EvidenceAverage), and the
// interfaces between a second-order learner and its sketch (Sketch, Host,
// Step, SketchMerger and the optional GramSketch, AlphaSaver, BasisSketch).
//
// The sketch interfaces live here, not with the Sketched Online Newton
// learner (package son) that drives them, so that the sketch packages (oja,
// fd, rp) depend only on this package: package son, and package ada, whose
// FD-adaptive learners drive an fd sketch through son's split table, sit
// above them.
//
// The sketch interfaces follow Haipeng Luo, Alekh Agarwal, Nicolò
// Cesa-Bianchi, John Langford, "Efficient Second Order Online Learning by
// Sketching", NIPS 2016, Alg. 1 and 4: a sketch S of the to-sketch
// vectors kept in factored form S = E^{1/2}·F·Z (docs/algorithms.md §2).
package sparse
