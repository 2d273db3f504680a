// Package parser reads training data for sparseson: Vowpal Wabbit and
// LIBSVM text, plain or compressed with gzip or zstd, from files or
// standard input, and turns each line into a hashed sparse.Example.
//
// Open starts a pipeline in which one goroutine reads and decompresses
// large chunks of whole lines while several others parse them, so that
// parsing overlaps with whatever consumes the examples; batches still come
// out in input order. Buffers and examples are recycled, so a steady
// stream allocates nothing per example. Malformed lines do not stop the
// stream: they are reported in each Batch and the caller decides.
//
// CreateCache and OpenCache store parsed examples in a compact binary
// file so that later passes over the same data skip text parsing.
package parser
