package sparse

// Example is one parsed, hashed example, ready for a learner.
//
// Idx holds feature slots already masked to the hash space (-b bits). The
// parser merges repeated slots (a word written twice, or two names that
// collide) by adding their values, so that learners may treat (Idx, Val)
// as the sparse vector x itself, e.g. ‖x‖² = Σ Val². A library caller
// should do the same: a learner given a repeated slot takes each entry as
// it comes (the NASA steps, whose state is ‖G‖², merge them first; the
// pre-scaling adds each value to its feature's sums).
// Val holds finite, nonzero values.
type Example struct {
	Label    float64 // meaningful only when HasLabel
	HasLabel bool    // false for unlabeled (predict-only) examples
	Weight   float64 // importance weight, ≥ 0 (default 1)
	Initial  float64 // base prediction added to the model's score (default 0)
	Tag      []byte  // optional tag, echoed in the predictions file
	Idx      []uint32
	Val      []float64
}

// Reset empties e for reuse while keeping its buffers.
func (e *Example) Reset() {
	e.Label, e.HasLabel, e.Weight, e.Initial = 0, false, 1, 0
	e.Tag = e.Tag[:0]
	e.Idx = e.Idx[:0]
	e.Val = e.Val[:0]
}

// NormSq returns ‖x‖².
func (e *Example) NormSq() float64 {
	var s float64
	for _, v := range e.Val {
		s += v * v
	}
	return s
}

// CopyFrom makes e a deep copy of src, reusing e's buffers.
func (e *Example) CopyFrom(src *Example) {
	e.Label, e.HasLabel, e.Weight, e.Initial = src.Label, src.HasLabel, src.Weight, src.Initial
	e.Tag = append(e.Tag[:0], src.Tag...)
	e.Idx = append(e.Idx[:0], src.Idx...)
	e.Val = append(e.Val[:0], src.Val...)
}
