// Package reduce holds sparseson's reductions, the layer VW calls its
// reduction stack: wrappers around a learner that change what a label and
// a prediction mean, composed like HTTP middleware. The learners below know
// nothing of them.
//
// A stack is built bottom up by the CLI from the model options:
//
//	base learner (gd, SON, full ONS; one per class under OAA)
//	  → OAA(K)                 one-against-all, labels 1…K (oaa.go)
//	  → an output stage        what Predict/Learn report and the loss the
//	                           progress table counts: Scalar, then Binary
//	                           or Link (binary.go, link.go); Classes for a
//	                           multiclass learner (classes.go)
//
// Link also has VW's glf1 and poisson links. audit.go looks up the weight a
// learner applies at one slot for --audit (an optional ability, else the
// score of the unit example).
//
// A K-class model written directly (gd.Softmax) enters the stack where OAA
// would, as a sparse.Multiclass. OAA follows VW's oaa reduction (VW wiki,
// "One Against All (oaa) multi class example"; --probabilities as in its
// "Predicting probabilities").
package reduce
