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
// DotVec and AxpyVec gonum's vectorised kernels. Nothing here allocates.
package linalg
