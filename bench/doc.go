// Package bench holds sparseson's reproducible benchmarks and paper
// reproductions. Each subdirectory is a program run with `go run`:
//
//	bench/speed      ns/example and peak RSS of each learner on news20, and the -b sweep
//	bench/synthetic  seed 004 §5.1: progressive error vs condition number κ
//	bench/accuracy   test accuracy of every learner on every shared binary set
//	bench/sontune    the sweep behind SON's default α, C and to-sketch scale
//	bench/nasa       seed 001 (NASA): §6.1, §6.2, §6.3.1, Table 1, --nasa_c's sweep and acceptance
//	bench/multiclass 20-class news20: test error, cost and RSS of the OAA learners and softmax, -l sweep, OAA vs K × binary cost
//	bench/news20mc   writes 20-class news20 VW files (and the bundled testdata slice)
//	bench/ada        the FD-adaptive learners (seeds 000, 003): accuracy and default η, seed 000 §5.2, seed 003's comparison
//
// They run the sparseson binary (built once per run from ./cmd/sparseson),
// so they measure exactly what a user gets. The real datasets are read
// from ../shared/data (override with -data); they are developer data and
// are not part of the repository.
package bench
