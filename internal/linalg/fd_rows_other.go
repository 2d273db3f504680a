//go:build !amd64 || purego

package linalg

// fill4 is fill4Go where there is no assembly kernel.
func fill4(tt, u []float64, ldu, r int, cols []int, sc []float64) bool {
	return fill4Go(tt, u, ldu, r, cols, sc)
}
