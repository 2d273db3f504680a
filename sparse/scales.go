package sparse

import (
	"fmt"
	"math"

	"github.com/sparseson/sparseson/model"
)

// CheckScaleSum refuses a saved pre-scaling sum pair (Σx_j², n_j; the
// root-mean-square pre-scaling of package ada's Prescaled and of the
// learners that fold it into their rows) that no run writes: Σx² > 0 and
// n ≥ 1, both finite.
func CheckScaleSum(sq, n float64) error {
	if !(sq > 0) || math.IsInf(sq, 0) || !(n >= 1) || math.IsInf(n, 0) {
		return fmt.Errorf("%w: feature scale sums %v, %v", model.ErrCorrupt, sq, n)
	}
	return nil
}

// ScaleSums returns the keys of tab's rows in order (the order their
// features got their first value) and the sum pairs in the two columns
// from col(r) of each: what SetScaleSums installs again.
func ScaleSums(tab *Table, order []uint32, col func(r int) int) (keys []uint32, sums []float64) {
	keys = make([]uint32, len(order))
	sums = make([]float64, 0, 2*len(order))
	for i, r := range order {
		keys[i] = tab.Keys[r]
		o := col(int(r))
		sums = append(sums, tab.Rows[o], tab.Rows[o+1])
	}
	return keys, sums
}

// SetScaleSums installs saved sum pairs (keys[i] with sums[2i], sums[2i+1])
// into the two columns from col(r) of tab's rows, which must still be
// zero: every key must have a row, and appear once. It returns the rows in
// the keys' order (the order the sums are saved in).
func SetScaleSums(tab *Table, keys []uint32, sums []float64, col func(r int) int) ([]uint32, error) {
	if len(sums) != 2*len(keys) {
		return nil, fmt.Errorf("%w: %d feature scale sums for %d features", model.ErrCorrupt, len(sums), len(keys))
	}
	order := make([]uint32, 0, len(keys))
	for i, k := range keys {
		sq, n := sums[2*i], sums[2*i+1]
		if err := CheckScaleSum(sq, n); err != nil {
			return nil, err
		}
		// Find masks k: a key beyond the hash space would stand for
		// another slot's row.
		r := tab.Find(k)
		if r < 0 || tab.Keys[r] != k {
			return nil, fmt.Errorf("%w: a feature scale for slot %d, which has no state", model.ErrCorrupt, k)
		}
		row := tab.Rows[col(r):]
		if row[1] != 0 {
			return nil, fmt.Errorf("%w: slot %d has two feature scales", model.ErrCorrupt, k)
		}
		row[0], row[1] = sq, n
		order = append(order, uint32(r))
	}
	return order, nil
}
