package main

import (
	"fmt"

	"github.com/sparseson/sparseson/engine"
)

// validateMaxMemory checks --max_memory (between learners.CheckMulticlass
// and learners.CheckShampoo, where the multiclass checks had it).
func (c *config) validateMaxMemory() error {
	if c.maxMemory != "" {
		if _, err := engine.ParseBytes(c.maxMemory); err != nil {
			return fmt.Errorf("--max_memory %q: %v", c.maxMemory, err)
		}
	}
	return nil
}
