// Package outfile opens every file sparseson writes — models, caches,
// predictions, readable models, profiles — by one set of rules, so that
// no output destroys what it should not:
//
//   - A symbolic link is written through: the file it points to gets the
//     new content and the link stays a link (a dangling link's target is
//     created).
//   - A model or a cache replaces a regular file atomically: it is written
//     to a temporary file in the target's own directory, synced, and
//     renamed over the target while its writer still holds it, so a reader
//     or a crash sees the old file or the new one, never a part.
//   - A FIFO or a character device (/dev/stdout, /dev/null, a pipe) is
//     written into — opened for writing, never truncated, replaced or
//     renamed over — except by a cache, which is read back and so must be
//     a regular file.
//   - A directory, a socket or a block device is refused.
//
// A temporary file is named .NAME.tmpXXXX (XXXX: base-36 random) and is
// locked (flock) by its writer for as long as the writer lives; the lock
// goes with the process, so one that was killed mid-write leaves an
// unlocked temporary file, and the next save to the same path removes it
// (RemoveStale). Two saves to one path at the same time each hold their
// own temporary file and neither removes the other's; the later rename
// wins, and either way the file is one complete model.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Kind says how an output is written.
type Kind int

const (
	// Stream outputs (predictions, readable models, profiles) are written
	// in place: a regular file is truncated, a FIFO or character device
	// is written into.
	Stream Kind = iota
	// Model outputs replace a regular file atomically; a FIFO or
	// character device is written into.
	Model
	// Cache outputs replace a regular file atomically and must be one: a
	// cache is read back in the next pass.
	Cache
)

// Mode is the mode a replaced file is created with, less the umask, as
// os.Create's 0666 would be but without write access for others:
// os.CreateTemp's 0600 would leave a model unreadable to the group that
// shares a data directory.
const Mode = 0o644

// streamMode is a stream output's mode, less the umask, as os.Create's.
const streamMode = 0o666

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// target is what a path names, once its links are followed.
type target struct {
	path    string      // the path to create or rename over (links resolved)
	st      fs.FileInfo // the existing file (nil: none yet)
	inPlace bool        // written into: a FIFO or character device
	atomic  bool        // written to a temporary file and renamed
}

// inspect decides how path is written as an output of kind k, or why it
// cannot be.
func inspect(path string, k Kind) (*target, error) {
	t := &target{path: path}
	st, err := os.Stat(path) // follows every link, /proc's magic ones too
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		t.st = st
		if err := refuseType(st.Mode(), k); err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			// A FIFO or character device: the kernel follows the links
			// when it is opened, magic links such as /dev/stdout included.
			t.inPlace = true
			return t, nil
		}
	}
	t.atomic = k != Stream
	if t.atomic {
		// The temporary file must be in the directory of the file it
		// replaces, so the rename stays in one file system and replaces
		// the link's target, not the link.
		if t.path, err = Resolve(path); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// refuseType reports why a file of this mode cannot be an output of kind k.
func refuseType(m fs.FileMode, k Kind) error {
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, which cannot be written as a file")
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return errors.New("is a block device; outputs are not written onto devices")
	case m&(fs.ModeNamedPipe|fs.ModeCharDevice) == 0:
		return fmt.Errorf("is not a regular file (%v)", m.Type())
	case k == Cache:
		return fmt.Errorf("is a %s, not a regular file: a cache is read back in the next pass", typeName(m))
	}
	return nil
}

func typeName(m fs.FileMode) string {
	if m&fs.ModeNamedPipe != 0 {
		return "named pipe (FIFO)"
	}
	return "character device"
}

// Resolve follows the symbolic links of path's last element to the file
// they name, which may not exist yet (a dangling link). A relative link is
// read relative to the link's directory, as the kernel reads it; the
// directories on the way are left to the kernel.
func Resolve(path string) (string, error) {
	for i := 0; i < maxLinks; i++ {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !strings.HasPrefix(link, "/") {
			// Not filepath.Join: cleaning "dir/../x" textually would
			// differ from the kernel when dir is itself a link.
			dir, _ := split(path)
			link = dir + "/" + link
		}
		path = link
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// split returns path's directory (never empty) and last element, without
// cleaning either.
func split(path string) (dir, base string) {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}

// Check reports, before anything is written, why path could not be
// written as an output of kind k: a refused file type, a missing
// directory, a directory files cannot be created in, or a file that cannot
// be opened for writing. It writes nothing that stays; it returns the path
// the output will be written at (links resolved for the atomic kinds).
func Check(path string, k Kind) (string, error) {
	t, err := inspect(path, k)
	if err != nil {
		return "", err
	}
	switch {
	case t.inPlace:
		// Opening a FIFO for writing would wait for its reader.
		return t.path, nil
	case t.st != nil && !t.atomic:
		f, err := os.OpenFile(t.path, os.O_WRONLY, 0)
		if err != nil {
			return "", err
		}
		return t.path, f.Close()
	}
	dir, _ := split(t.path)
	if st, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("cannot write here: %w", err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("cannot write here: %s is not a directory", dir)
	}
	f, err := createTemp(t.path)
	if err != nil {
		return "", fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	// Removed while its lock is held: once closed, another run's
	// RemoveStale of the same path could take it for a dead writer's.
	err = os.Remove(f.Name())
	f.Close()
	return t.path, err
}

// File is an output being written. Commit finishes it; Abort discards it
// (an atomic output's target is then untouched).
type File struct {
	f    *os.File
	path string // the file written (links resolved for an atomic one)
	tmp  string // the temporary file of an atomic output
	done bool
}

// Open opens path for writing as an output of kind k (see the package
// comment). For an atomic output it first removes the temporary files that
// killed saves of the same path left behind.
func Open(path string, k Kind) (*File, error) {
	t, err := inspect(path, k)
	if err != nil {
		return nil, err
	}
	switch {
	case t.inPlace:
		f, err := os.OpenFile(t.path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: t.path}, nil
	case !t.atomic:
		f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, streamMode)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: t.path}, nil
	}
	RemoveStale(t.path)
	f, err := createTemp(t.path)
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: t.path, tmp: f.Name()}, nil
}

// Write writes to the output.
func (o *File) Write(p []byte) (int, error) { return o.f.Write(p) }

// Commit finishes the output. An atomic one is synced and renamed over
// its target while its writer still holds its lock (a cleaner never
// removes it half-way), and the directory is synced so that the rename
// survives a power failure; a killed process leaves the old file or the
// new one either way.
func (o *File) Commit() error {
	if o.done {
		return errors.New("output already closed")
	}
	o.done = true
	if o.tmp == "" {
		return o.f.Close()
	}
	err := o.f.Sync()
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if cerr := o.f.Close(); err == nil && cerr != nil {
		err = cerr
		// The rename happened: what is at the path may be incomplete.
	}
	if err != nil {
		os.Remove(o.tmp)
		return err
	}
	dir, _ := split(o.path)
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort discards an atomic output (its target is untouched) or closes a
// stream one. It does nothing after Commit.
func (o *File) Abort() error {
	if o.done {
		return nil
	}
	o.done = true
	o.f.Close()
	if o.tmp == "" {
		return nil
	}
	if err := os.Remove(o.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// join is dir/name, or name in the working directory.
func join(dir, name string) string {
	switch dir {
	case ".":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}

// tempPrefix is the name of path's temporary files less their random
// suffix: hidden, and named after the file they become.
func tempPrefix(path string) (dir, prefix string) {
	dir, base := split(path)
	return dir, "." + base + ".tmp"
}

// isTemp reports whether name is one of base's temporary files: the
// prefix, then one to thirteen base-36 digits (a uint64 at most).
func isTemp(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || len(rest) == 0 || len(rest) > 13 {
		return false
	}
	for _, c := range []byte(rest) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// createTemp creates and locks a new temporary file for path, mode Mode
// less the umask.
func createTemp(path string) (*os.File, error) {
	dir, prefix := tempPrefix(path)
	for try := 0; ; try++ {
		name := join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, Mode)
		if err != nil {
			if errors.Is(err, fs.ErrExist) && try < 100 {
				continue
			}
			return nil, err
		}
		// Between the creation and the lock a cleaner may have taken the
		// file for a dead writer's and removed it: then start again.
		if lockErr := lock(f); lockErr == errBusy || !stillNamed(f, name) {
			f.Close()
			if try < 100 {
				continue
			}
			return nil, errors.New("could not create a temporary file: it was removed at once, 100 times")
		}
		return f, nil
	}
}

// stillNamed reports whether name is still f's file.
func stillNamed(f *os.File, name string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(name)
	return err == nil && os.SameFile(a, b)
}

// RemoveStale removes the temporary files of path (links resolved) that no
// live writer holds — those of saves that were killed — and returns their
// names. A file that cannot be locked, or whose lock the platform does not
// support, is left alone: it may be a live writer's.
func RemoveStale(path string) []string {
	dir, prefix := tempPrefix(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !isTemp(e.Name(), prefix) {
			continue
		}
		name := join(dir, e.Name())
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if lock(f) == nil && stillNamed(f, name) && os.Remove(name) == nil {
			removed = append(removed, name)
		}
		f.Close()
	}
	return removed
}

// Same reports whether a and b are the same file: by device and inode when
// both exist, else (an output not created yet) by their links resolved.
func Same(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	if errA == nil || errB == nil {
		return false
	}
	ra, errA := Resolve(a)
	rb, errB := Resolve(b)
	return errA == nil && errB == nil && cleanAbs(ra) == cleanAbs(rb)
}

func cleanAbs(p string) string {
	if !strings.HasPrefix(p, "/") {
		if wd, err := os.Getwd(); err == nil {
			p = wd + "/" + p
		}
	}
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/")
}
