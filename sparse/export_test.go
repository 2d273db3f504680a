package sparse

// Test hooks for the slot index (table.go).

// HashIndexed reports whether the table's slot index is the hash table.
func HashIndexed(t *Table) bool { return t.index == nil }

// SetDenseIndexBits sets the largest -b with a dense slot index and
// returns the previous value.
func SetDenseIndexBits(b uint) uint {
	old := denseIndexBits
	denseIndexBits = b
	return old
}
