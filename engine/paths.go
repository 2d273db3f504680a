package engine

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sparseson/sparseson/internal/outfile"
)

// An output is a file the run writes, and how (internal/outfile: a model
// or cache replaces a regular file atomically; a stream output is written
// in place; a FIFO or character device is written into).
type output struct {
	setting, path string
	kind          outfile.Kind
}

// outputs lists the files the run will write (stdout, "-", excluded).
func (e *Engine) outputs(cachePath string) []output {
	c := e.cfg
	all := []output{
		{"Final", c.Final, outfile.Model},
		{"Readable", c.Readable, outfile.Stream},
		{"InvertHash", c.InvertHash, outfile.Stream},
		{"Predictions", c.Predictions, outfile.Stream},
		{"Raw", c.Raw, outfile.Stream},
		{"CacheFile", cachePath, outfile.Cache},
		// Written whole and at once, so that a watcher never reads half a
		// number.
		{"PidFile", c.PidFile, outfile.Model},
		{"PortFile", c.PortFile, outfile.Model},
		{"ProfileFile", c.ProfileFile, outfile.Stream},
	}
	var outs []output
	for _, o := range all {
		if o.path != "" && o.path != "-" {
			o.setting = c.name(o.setting)
			outs = append(outs, o)
		}
	}
	return outs
}

// checkOutputs makes sure, before the first example, that every file the
// run will write can be written — a model saved after hours of training
// must not be lost to a directory in the way or a missing parent — and
// that none of them is one of the files the run reads while it writes
// them: a data file, the cache (which is read back), or the file stdin
// was redirected from (stdin nil: the run does not read it). Files are
// compared by device and inode, so another name or a link of an input is
// refused too. The Initial model may be an output: it is read whole
// before anything is written (-i m -f m continues training and saves over
// it, as in VW).
func (e *Engine) checkOutputs(cachePath string, stdin io.Reader) error {
	outs := e.outputs(cachePath)
	for _, o := range outs {
		if _, err := outfile.Check(o.path, o.kind); err != nil {
			return fmt.Errorf("%s %s: %w", o.setting, o.path, err)
		}
	}
	for _, in := range e.cfg.Data {
		if in == "-" {
			continue
		}
		for _, o := range outs {
			if outfile.Same(o.path, in) {
				return setting(fmt.Errorf("%s %s: is also a data file; writing it would destroy the input (give another file)", o.setting, o.path))
			}
		}
	}
	if st := stdinStat(stdin); st != nil {
		for _, o := range outs {
			if ost, err := os.Stat(o.path); err == nil && os.SameFile(st, ost) {
				return setting(fmt.Errorf("%s %s: is also the input on stdin; writing it would destroy the input (give another file)", o.setting, o.path))
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			if outfile.Same(a.path, b.path) && !writtenInto(a.path) {
				return setting(fmt.Errorf("%s %s and %s %s: are the same file; give each output its own", a.setting, a.path, b.setting, b.path))
			}
		}
	}
	return nil
}

// stdinStat returns the file stdin was redirected from, if it is one.
func stdinStat(stdin io.Reader) fs.FileInfo {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return st
}

// writtenInto reports whether path is a FIFO or device, which any number
// of outputs may write into (-p /dev/stdout -r /dev/stdout).
func writtenInto(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.Mode().IsRegular()
}

// removeStale removes what saves of the run's atomic outputs that were
// killed left behind (internal/outfile.RemoveStale), and says so.
func (e *Engine) removeStale(cachePath string) {
	for _, o := range e.outputs(cachePath) {
		if o.kind == outfile.Stream {
			continue
		}
		path, err := outfile.Resolve(o.path)
		if err != nil {
			continue
		}
		for _, name := range outfile.RemoveStale(path) {
			fmt.Fprintf(e.cfg.Stderr, "sparseson: removed %s, the temporary file of an interrupted save of %s\n", name, path)
		}
	}
}

// writeSmallOutput writes text to path by the rules of internal/outfile
// (a link written through, a regular file replaced atomically, a FIFO
// written into).
func writeSmallOutput(path, text string) error {
	f, err := outfile.Open(path, outfile.Model)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
