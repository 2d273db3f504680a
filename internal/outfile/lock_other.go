//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package outfile

import (
	"errors"
	"os"
)

// errBusy: another open file holds the lock.
var errBusy = errors.New("locked")

// lock is unsupported here: no temporary file is ever taken for a dead
// writer's, so none is removed.
func lock(*os.File) error { return errors.ErrUnsupported }
