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
