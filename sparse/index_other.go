//go:build !linux

package sparse

// newIndex allocates the zeroed slot index.
func newIndex(t *Table, bits uint) []int32 { return make([]int32, 1<<bits) }
