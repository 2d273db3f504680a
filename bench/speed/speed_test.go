package speed

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          []time.Duration
		med, lo, hi time.Duration
	}{
		{"none", nil, 0, 0, 0},
		{"one", []time.Duration{5}, 5, 5, 5},
		{"odd", []time.Duration{9, 1, 5}, 5, 1, 9},
		{"even", []time.Duration{4, 1, 2, 8}, 3, 1, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			med, lo, hi := spread(tc.in)
			if med != tc.med || lo != tc.lo || hi != tc.hi {
				t.Errorf("spread(%v) = %v, %v, %v; want %v, %v, %v", tc.in, med, lo, hi, tc.med, tc.lo, tc.hi)
			}
		})
	}
}

// TestRepeatFile: the text sets are their source, plain or gzip'd,
// repeated byte for byte.
func TestRepeatFile(t *testing.T) {
	dir := t.TempDir()
	text := []byte("1 | a b\n-1 | c\n")
	plain := filepath.Join(dir, "in.vw")
	if err := os.WriteFile(plain, text, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	zipped := filepath.Join(dir, "in.vw.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src string
		copies    int
	}{
		{"plain once", plain, 1}, {"plain thrice", plain, 3}, {"gzip twice", zipped, 2}, {"none", plain, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(dir, "out")
			mb, err := repeatFile(tc.src, dst, tc.copies)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Repeat(text, tc.copies)
			if !bytes.Equal(got, want) || mb != float64(len(want))/1e6 {
				t.Errorf("got %q (%g MB), want %q (%g MB)", got, mb, want, float64(len(want))/1e6)
			}
		})
	}
}
