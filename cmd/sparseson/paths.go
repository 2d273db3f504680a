package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sparseson/sparseson/internal/outfile"
)

// An output is a file the run writes, and how (internal/outfile: a model
// or cache replaces a regular file atomically; a stream output is written
// in place; a FIFO or character device is written into).
type output struct {
	flag, path string
	kind       outfile.Kind
}

// outputs lists the files the run will write (stdout, "-", excluded).
func outputs(c *config, cachePath string) []output {
	all := []output{
		{"-f", c.final, outfile.Model},
		{"--readable_model", c.readable, outfile.Stream},
		{"--invert_hash", c.vw.invertHash, outfile.Stream},
		{"-p", c.predictions, outfile.Stream},
		{"-r", c.vw.raw, outfile.Stream},
		{"--cache_file", cachePath, outfile.Cache},
		// Written whole and at once, so that a watcher never reads half a
		// number.
		{"--pid_file", c.vw.pidFile, outfile.Model},
		{"--port_file", c.vw.portFile, outfile.Model},
	}
	if c.profile != "" {
		all = append(all, output{"--profile", filepath.Join(c.profilePath, profileFiles[c.profile]), outfile.Stream})
	}
	var outs []output
	for _, o := range all {
		if o.path != "" && o.path != "-" {
			outs = append(outs, o)
		}
	}
	return outs
}

// checkOutputs makes sure, before the first example, that every file the
// run will write can be written — a model saved after hours of training
// must not be lost to a directory in the way or a missing parent — and
// that none of them is one of the files the run reads while it writes
// them: a data file, or the cache (which is read back). Files are
// compared by device and inode, so another name or a link of an input is
// refused too. The model of -i may be an output: it is read whole before
// anything is written (-i m -f m continues training and saves over it, as
// in VW).
func checkOutputs(c *config, cachePath string) error {
	return checkOutputsReading(c, cachePath, nil)
}

// checkOutputsReading is checkOutputs when the run reads stdin (nil: it
// does not): an output that is the file stdin was redirected from is
// refused as well.
func checkOutputsReading(c *config, cachePath string, stdin io.Reader) error {
	outs := outputs(c, cachePath)
	for _, o := range outs {
		if _, err := outfile.Check(o.path, o.kind); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
	}
	for _, in := range c.data {
		if in == "-" {
			continue
		}
		for _, o := range outs {
			if outfile.Same(o.path, in) {
				return usagef("%s %s: is also a data file; writing it would destroy the input (give another file)", o.flag, o.path)
			}
		}
	}
	if st := stdinStat(stdin); st != nil {
		for _, o := range outs {
			if ost, err := os.Stat(o.path); err == nil && os.SameFile(st, ost) {
				return usagef("%s %s: is also the input on stdin; writing it would destroy the input (give another file)", o.flag, o.path)
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			if outfile.Same(a.path, b.path) && !writtenInto(a.path) {
				return usagef("%s %s and %s %s: are the same file; give each output its own", a.flag, a.path, b.flag, b.path)
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
func removeStale(c *config, cachePath string, stderr io.Writer) {
	for _, o := range outputs(c, cachePath) {
		if o.kind == outfile.Stream {
			continue
		}
		path, err := outfile.Resolve(o.path)
		if err != nil {
			continue
		}
		for _, name := range outfile.RemoveStale(path) {
			fmt.Fprintf(stderr, "sparseson: removed %s, the temporary file of an interrupted save of %s\n", name, path)
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
