// Package model is the on-disk container for sparseson models: a magic
// string, a format version, the options that shape the model (hash bits,
// interactions, loss, learner and its parameters) as key=value pairs, the
// learner's own state, and a CRC-32C over everything. Files are written to a
// temporary file in the target directory, synced and renamed, so a crash
// never leaves a half-written model under the final name; a truncated,
// corrupt or foreign file is refused before any of it is trusted.
package model
