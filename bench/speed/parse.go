package speed

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/sparseson/sparseson/bench/internal/run"
)

// parseCopies is how many times news20.train is repeated in the parse
// input: one copy (~20 MB of text) reads in a few hundredths of a second,
// too short to time against the process's start-up.
const parseCopies = 5

// parse times the binary reading the same VW text plain, gzip'd and
// zstd'd with -t (test only: no learning, a prediction with zero
// weights), so that the figure is the input path: decompression, the
// parallel parser and hashing. MB/s is of the uncompressed text, by wall
// time (the pipeline parses on every core) and by CPU time.
func parse(env *run.Env, bin, train, dir string, repeat int) error {
	copies := parseCopies
	if env.Quick {
		copies = 1
	}
	files := []struct{ name, path string }{
		{"plain", filepath.Join(dir, "parse.vw")},
		{"gzip", filepath.Join(dir, "parse.vw.gz")},
		{"zstd", filepath.Join(dir, "parse.vw.zst")},
	}
	// Streamed, not built in memory: this process's peak RSS would become
	// every later child's reported peak RSS (repeatFile).
	mb, err := repeatFile(train, files[0].path, copies)
	if err != nil {
		return err
	}
	if err := compress(files[0].path, files[1].path, func(w io.Writer) (io.WriteCloser, error) {
		return gzip.NewWriterLevel(w, gzip.DefaultCompression)
	}); err != nil {
		return err
	}
	if err := compress(files[0].path, files[2].path, func(w io.Writer) (io.WriteCloser, error) {
		return zstd.NewWriter(w)
	}); err != nil {
		return err
	}
	walls := make([][]time.Duration, len(files))
	cpus := make([][]time.Duration, len(files))
	for r := 0; r < repeat; r++ {
		for i, f := range files {
			res, err := run.Exec(bin, "--quiet", "-t", "-b", "18", f.path)
			if err != nil {
				return err
			}
			walls[i] = append(walls[i], res.Wall)
			cpus[i] = append(cpus[i], res.CPU)
		}
	}
	fmt.Printf("Parse throughput: news20.train ×%d (%.1f MB of VW text), sparseson --quiet -t -b 18 FILE, %d rounds in turn; MB/s of uncompressed text, median (min–max) of the rounds\n", copies, mb, repeat)
	fmt.Printf("%-6s %22s %22s\n", "input", "wall MB/s", "CPU MB/s")
	var csv strings.Builder
	fmt.Fprintln(&csv, "input,mb,wall_mbps_median,wall_mbps_min,wall_mbps_max,cpu_mbps_median")
	rate := func(d time.Duration) float64 { return mb / d.Seconds() }
	for i, f := range files {
		wm, wlo, whi := spread(walls[i])
		cm, _, _ := spread(cpus[i])
		fmt.Printf("%-6s %22s %22.0f\n", f.name, fmt.Sprintf("%.0f (%.0f–%.0f)", rate(wm), rate(whi), rate(wlo)), rate(cm))
		fmt.Fprintf(&csv, "%s,%.1f,%.1f,%.1f,%.1f,%.1f\n", f.name, mb, rate(wm), rate(whi), rate(wlo), rate(cm))
		if err := env.Finite("parse "+f.name, rate(wm), rate(cm)); err != nil {
			return err
		}
	}
	fmt.Println()
	return env.Write("speed_parse.csv", []byte(csv.String()))
}

// compress writes src through the compressor made by newW to dst.
func compress(src, dst string, newW func(io.Writer) (io.WriteCloser, error)) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw, err := newW(out)
	if err != nil {
		out.Close()
		return err
	}
	if _, err := io.Copy(zw, in); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", dst, err)
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", dst, err)
	}
	return out.Close()
}
