package loss

import "math"

// LabelStats accumulates what VW's end summary needs to report the best
// constant predictor: weighted label sums and the first two distinct labels.
type LabelStats struct {
	WeightedExamples float64 // Σ importance over labeled training examples
	WeightedLabels   float64 // Σ importance·label
	first, second    float64
	nDistinct        int // 0, 1, 2, or 3 meaning "more than two"
}

// Add records one training label with its importance weight.
func (s *LabelStats) Add(y, weight float64) {
	s.WeightedExamples += weight
	s.WeightedLabels += weight * y
	switch {
	case s.nDistinct == 0:
		s.first, s.nDistinct = y, 1
	case s.nDistinct == 1 && y != s.first:
		s.second, s.nDistinct = y, 2
	case s.nDistinct == 2 && y != s.first && y != s.second:
		s.nDistinct = 3
	}
}

// BestConstant returns the constant prediction with the least average loss
// on the labels seen and that loss, following VW's get_best_constant: it
// treats the labels as two classes (the first two distinct labels seen, or
// the one label and 0) and has a closed form per loss. ok is false where VW
// prints nothing (no labels, or more than two labels for a loss without a
// closed form). A loss of NaN means "not computable" (VW omits the line).
func BestConstant(l Loss, s *LabelStats) (c, cLoss float64, ok bool) {
	if s.nDistinct == 0 || s.WeightedExamples <= 0 {
		return 0, 0, false
	}
	l1, l2 := s.first, s.second
	if s.nDistinct == 1 {
		l2 = 0
	}
	if l1 > l2 {
		l1, l2 = l2, l1
	}
	if l1 == l2 {
		return 0, 0, false
	}
	n1 := (s.WeightedLabels - l2*s.WeightedExamples) / (l1 - l2)
	n2 := s.WeightedExamples - n1
	if n1+n2 <= 0 {
		return 0, 0, false
	}
	many := s.nDistinct > 2
	switch l.Name() {
	case "squared", "classic":
		c = s.WeightedLabels / s.WeightedExamples
	case "hinge":
		if many {
			return 0, 0, false
		}
		c = 1
		if n2 <= n1 {
			c = -1
		}
	case "logistic":
		if many {
			return 0, 0, false
		}
		l1, l2 = -1, 1
		switch {
		case n1 <= 0:
			c = 1
		case n2 <= 0:
			c = -1
		default:
			c = math.Log(n2 / n1)
		}
	case "quantile":
		if many {
			return 0, 0, false
		}
		c = l1
		if l.Param()*(n1+n2) < n2 {
			c = l2
		}
	default:
		return 0, 0, false
	}
	if many {
		return c, math.NaN(), true
	}
	if n1 > 0 {
		cLoss += l.Value(c, l1) * n1
	}
	if n2 > 0 {
		cLoss += l.Value(c, l2) * n2
	}
	return c, cLoss / (n1 + n2), true
}
