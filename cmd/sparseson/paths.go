package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparseson/sparseson/model"
)

// checkOutputs makes sure, before the first example, that every file the
// run will write can be written: a model saved after hours of training
// must not be lost to a directory in the way or a missing parent.
func checkOutputs(c *config, cachePath string) error {
	outs := []struct {
		flag, path string
		atomic     bool // written to a temporary file and renamed
	}{
		{"-f", c.final, true},
		{"--readable_model", c.readable, false},
		{"--invert_hash", c.vw.invertHash, false},
		{"-p", c.predictions, false},
		{"-r", c.vw.raw, false},
		{"--cache_file", cachePath, true},
	}
	for _, o := range outs {
		if o.path == "" || o.path == "-" || o.path == "/dev/stdout" {
			continue
		}
		if err := checkWritable(o.path, o.atomic); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
	}
	return nil
}

// checkWritable reports why path could not be written: it is a directory,
// its directory is missing, or files cannot be created there (or, for a
// file rewritten in place, it cannot be opened for writing).
func checkWritable(path string, atomic bool) error {
	st, err := os.Stat(path)
	exists := err == nil
	switch {
	case exists && st.IsDir():
		return fmt.Errorf("is a directory")
	case exists && !atomic:
		if !st.Mode().IsRegular() {
			return nil // a device or a pipe: opened when written
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("cannot write here: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("cannot write here: %s is not a directory", dir)
	}
	f, err := model.CreateTemp(dir, ".sparseson-check-")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
