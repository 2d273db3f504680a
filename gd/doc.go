// Package gd holds sparseson's first-order learners, the baselines every
// sketched learner is measured against: online gradient descent (--sgd),
// diagonal AdaGrad (Duchi, Hazan and Singer 2011; McMahan and Streeter
// 2010), and VW's scale-invariant normalized updates (Ross, Mineiro and
// Langford, "Normalized Online Learning", UAI 2013), with VW's learning-rate
// schedule (-l, --power_t, --initial_t) and its --l2 contraction; and the
// NASA step sizes of Hua Ouyang and Alexander Gray, "NASA: Achieving
// Lower Regrets and Faster Rates via Adaptive Stepsizes", KDD 2012 (Eq.
// 10, 27, Alg. 1 with Eq. 38, and the paper's scalar AdaGrad and SAdaGrad baselines,
// Eq. 25 and 34), per feature in AdaGrad's place or as scalar steps of
// plain gradient descent (nasa.go); and multinomial logistic regression,
// one K×d model on the softmax loss trained with the same per-weight steps
// (softmax.go, --softmax K); and --l1 as VW's lazy truncated gradient
// (Langford, Li and Zhang, JMLR 2009; l1.go).
package gd
