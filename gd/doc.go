// Package gd holds sparseson's first-order learners, the baselines every
// sketched learner is measured against: online gradient descent (--sgd),
// diagonal AdaGrad (Duchi, Hazan and Singer 2011; McMahan and Streeter
// 2010), and VW's scale-invariant normalized updates (Ross, Mineiro and
// Langford, "Normalized Online Learning", UAI 2013), with VW's learning-rate
// schedule (-l, --power_t, --initial_t) and its --l2 contraction.
package gd
