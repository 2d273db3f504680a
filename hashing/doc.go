// Package hashing turns named features into slots of a fixed-size weight
// vector the way Vowpal Wabbit does, so that data, models and tools written
// for VW's hashing keep meaning the same thing here.
//
// A feature named n in a namespace named s lands in slot
// hash(n, hash(s, 0)) & (2^Bits − 1), where hash is MurmurHash3 (x86, 32
// bit) except that purely decimal names hash to their value plus the seed.
// Interactions between namespaces (VW's -q and --interactions) combine the
// unmasked hashes of their members with an FNV-style multiply-xor.
//
// VW's n-grams and skip-grams (--ngram, --skips; ngram.go) are generated
// per namespace before the constant and the interactions, and a Builder
// can record every feature's name as VW's --audit and --invert_hash print
// it (SetAudit; audit.go), off the hot path.
//
// A Builder collects the features of one example and finishes them into a
// sparse.Example whose slots are unique, merging collisions by adding
// their values. Builders reuse all of their memory, so a parser that owns
// one Builder per goroutine hashes examples without allocating. The VW
// parser hands each namespace's text to ScanVW (vwscan.go), which
// tokenises, hashes and merges the features of the usual forms in one
// loop, and adds the others one by one with Feature.
package hashing
