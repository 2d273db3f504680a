// Package linalg holds the small dense kernels that the learners share:
// dot products and axpy updates on short row-major slices, finiteness
// checks, LAPACK's symmetric eigensolver called without allocation
// (EigSym), and the O(n²) eigensolver for the arrowhead matrices of a
// rank-one update (Arrowhead; Golub, "Some modified matrix eigenvalue
// problems", SIAM Review 15, 1973; Gu and Eisenstat, "A divide-and-conquer
// algorithm for the symmetric tridiagonal eigenproblem", SIAM J. Matrix
// Anal. Appl. 16, 1995).
//
// Each kernel keeps the exact order of operations of the copies it
// replaces, so that models stay bit-identical: Dot and Axpy are the plain
// loops (small enough to be inlined into the learners' per-feature loops),
// Axpy2 and Axpy4 two and four Axpy in one pass over y (FD's F_a and K′:
// fewer loads and stores of y, the same sums), DotVec and AxpyVec gonum's
// vectorised kernels. GatherCols and ScatterCols are the SON learners'
// products with the short columns of Z kept in the feature rows (z = Z·x̃
// and Z += δĝᵀ over an example's columns), in SSE2 assembly on amd64 with
// each value's sum in the order of the Go loops (lanes are values, so the
// order per value is unchanged), and PrefetchCols asks for an example's
// rows before they are read. ScaleGather, RescaleGather and
// AbsorbScatter fuse the SON learners' per-feature passes over an
// example's rows (x̃ and its sums, the diagonal pre-scaling's update, the
// weight step) with the product or update of Z's columns that followed
// each, in one SSE2 pass on amd64 with the bits of the separate loops.
// MulRows is the product T·B of a small matrix
// with long rows (the deferred steps' ring, FD's rotations), register-
// blocked in SSE2 on amd64 with the bits of the axpy sequence it replaced.
// RefreshCol is one refresh of that ring — a feature row's column mapped
// to the current generation and written back — in one SSE2 call with the
// bits of the gonum Dgemv it replaced.
// Hot loops read the solver's fields through local
// slices: Go reloads a field and checks its bounds again after every
// store through another slice. Nothing here allocates.
package linalg
