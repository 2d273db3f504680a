package sparse

// NarrowRows returns, for n rows of stride values each, the columns
// [from, from+width) of every row, one after another: the part of a
// learner's rows that its model saves, when the rows also hold columns it
// does not (the pre-scaling's sums, a caller's auxiliary columns). Rows
// that are all saved (width = stride) are returned as they are.
func NarrowRows(rows []float64, n, stride, from, width int) []float64 {
	if width == stride {
		return rows
	}
	out := make([]float64, 0, n*width)
	for r := range n {
		o := r*stride + from
		out = append(out, rows[o:o+width]...)
	}
	return out
}

// WidenRows is NarrowRows undone: the n rows of width values in rows,
// each placed at column from of a row of stride values (zeros elsewhere).
// Rows of another length, or already of stride values, are returned as
// they are (for the loader's own length check).
func WidenRows(rows []float64, n, stride, from, width int) []float64 {
	if width == stride || len(rows) != n*width {
		return rows
	}
	wide := make([]float64, n*stride)
	for r := range n {
		copy(wide[r*stride+from:], rows[r*width:(r+1)*width])
	}
	return wide
}
