package sparse

import (
	"io"

	"github.com/sparseson/sparseson/model"
)

// Learner is an online linear learner over hashed sparse examples. The CLI
// drives it one example at a time; every method is called once per example
// (never per feature), so implementations keep their per-feature loops free
// of interface calls.
type Learner interface {
	// Predict returns the raw score for ex (ex.Initial included) exactly as
	// Learn would have predicted it, without changing the model.
	Predict(ex *Example) float64
	// Learn returns the progressive prediction for ex — the raw score made
	// before its label is used — then updates the model with the label and
	// the importance weight. ex must be labeled.
	Learn(ex *Example) float64
	// Save writes the learner's whole state, so that loading it predicts
	// exactly what this learner would predict next, and training can resume.
	Save(w *model.Writer) error
	// Weights calls fn, in first-seen order, for every feature slot the
	// learner holds state for, with the weight it applies to that slot.
	Weights(fn func(slot uint32, w float64))
}

// Reporter is implemented by learners with something to say at the end of
// a run (the sketch report).
type Reporter interface {
	Report(w io.Writer)
}

// Multiclass is implemented by learners that predict one of K classes
// (a reduction such as one-against-all, or a K-class model such as the
// softmax). Their examples' Label is the class, an integer in 1..K, and
// Predict and Learn return the predicted class (the first of the highest
// scores) as a float64. The CLI finds the ability by type assertion; the
// binary learners know nothing of it.
type Multiclass interface {
	Learner
	// Classes is K.
	Classes() int
	// Probabilities writes into p (len K) the class probabilities of the
	// last Predict or Learn: they are non-negative and sum to 1.
	Probabilities(p []float64)
	// ClassWeights calls fn, in first-seen order, for every feature slot
	// class k (1..K) holds state for, with the weight it applies there.
	ClassWeights(k int, fn func(slot uint32, w float64))
}
