//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package outfile

import (
	"errors"
	"os"
	"syscall"
)

// errBusy: another open file holds the lock.
var errBusy = errors.New("locked")

// lock takes f's exclusive lock without waiting: nil, errBusy, or why the
// file system cannot lock (then nothing is removed as stale either).
func lock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
	}); err != nil {
		return err
	}
	if errors.Is(lerr, syscall.EWOULDBLOCK) {
		return errBusy
	}
	return lerr
}
