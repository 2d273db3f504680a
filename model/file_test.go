package model

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func save(t *testing.T, path string) {
	t.Helper()
	err := Save(path, Options{"bits": "18", "loss": "logistic"}, func(w *Writer) error {
		w.Uint32(7)
		w.Float64(math.Pi)
		w.Float64s([]float64{1, -2, math.SmallestNonzeroFloat64, math.MaxFloat64})
		w.Uint32s([]uint32{3, 1, 4})
		w.String("tail")
		w.Bool(true)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.bin")
	save(t, path)
	opts, r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if opts["bits"] != "18" || opts["loss"] != "logistic" || len(opts) != 2 {
		t.Fatalf("options %v", opts)
	}
	if r.Uint32() != 7 || r.Float64() != math.Pi {
		t.Fatal("scalar mismatch")
	}
	f := r.Float64s(nil)
	if len(f) != 4 || f[2] != math.SmallestNonzeroFloat64 || f[3] != math.MaxFloat64 {
		t.Fatalf("floats %v", f)
	}
	u := r.Uint32s(nil)
	if len(u) != 3 || u[2] != 4 || r.String() != "tail" || !r.Bool() {
		t.Fatal("tail mismatch")
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries", len(ents))
	}
}

func TestRefusesDamage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.bin")
	save(t, path)
	good, _ := os.ReadFile(path)
	cases := []struct {
		name    string
		data    []byte
		want    string
		corrupt bool // wraps ErrCorrupt
	}{
		{"empty", nil, "bad magic", false},
		{"foreign", []byte("this is a text file, not a model at all"), "bad magic", false},
		{"truncated", good[:len(good)-9], "truncated", true},
		{"header only", good[:12], "truncated", true},
		{"flipped bit", flip(good, len(good)/2), "checksum", true},
		// A damaged version word is damage, found by the checksum, not
		// "version 65540 is not supported".
		{"flipped version bit", flipBit(good, 10, 0), "its version field reads 65540", true},
		{"damaged version", withVersion(good, 99), "checksum mismatch", true},
		{"truncated, other version", withVersion(good, 99)[:20], "its version field reads 99", true},
		// An intact file of another version is what the message is for.
		{"newer version", resum(withVersion(good, 99)), "model format version 99 is not supported", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			os.WriteFile(p, c.data, 0o644)
			_, _, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
			if errors.Is(err, ErrCorrupt) != c.corrupt {
				t.Fatalf("err = %v: corrupt %v, want %v", err, errors.Is(err, ErrCorrupt), c.corrupt)
			}
		})
	}
}

// resum rewrites the checksum of a model file, as a writer of the data
// would have.
func resum(b []byte) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], castag))
	return c
}

func flipBit(b []byte, i, bit int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 1 << bit
	return c
}

func TestReaderBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.bin")
	// A length field far beyond the file must not allocate or panic.
	if err := Save(path, nil, func(w *Writer) error { w.Uint64(1 << 60); return nil }); err != nil {
		t.Fatal(err)
	}
	_, r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Float64s(nil); len(v) != 0 || !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("got %d values, err %v", len(v), r.Err())
	}
}

func TestSaveFailureKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.bin")
	save(t, path)
	before, _ := os.ReadFile(path)
	err := Save(path, nil, func(w *Writer) error { return errors.New("boom") })
	if err == nil {
		t.Fatal("want error")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("failed save changed the existing model")
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x10
	return c
}

func withVersion(b []byte, v byte) []byte {
	c := append([]byte(nil), b...)
	c[8] = v
	return c
}

// TestSections: parts written by Section read back through their own
// Readers, each Done only when its part is consumed exactly, and a part
// whose length is damaged fails the sub-reader and the outer reader.
func TestSections(t *testing.T) {
	var buf strings.Builder
	err := Encode(&buf, Options{"k": "2"}, func(w *Writer) error {
		for i := 0; i < 2; i++ {
			if err := w.Section(func(s *Writer) error {
				s.Uint32(uint32(10 + i))
				s.Float64s([]float64{float64(i), math.E})
				return nil
			}); err != nil {
				return err
			}
		}
		w.Uint32(99)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := Parse([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		s := r.Section()
		if s.Uint32() != uint32(10+i) {
			t.Fatalf("section %d: wrong head", i)
		}
		if i == 0 {
			if err := s.Done(); err == nil {
				t.Fatal("Done accepted a part with unread bytes")
			}
		}
		if f := s.Float64s(nil); len(f) != 2 || f[1] != math.E {
			t.Fatalf("section %d: %v", i, f)
		}
		if err := s.Done(); err != nil {
			t.Fatalf("section %d: %v", i, err)
		}
	}
	if r.Uint32() != 99 || r.Done() != nil {
		t.Fatal("outer reader out of step after the sections")
	}
	// Misaligned by one field, the next length read is 10 + 2·2³²: more
	// bytes than the body holds.
	_, r, _ = Parse([]byte(buf.String()))
	r.Uint64()
	s := r.Section()
	if s.Err() == nil && r.Err() == nil {
		t.Fatal("a misaligned section length was not refused")
	}
	if !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("want ErrCorrupt, got %v", r.Err())
	}
}

// Models are created with mode 0644 less the umask (os.CreateTemp's 0600
// would hide them from the group).
func TestSaveMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := Save(path, Options{"a": "1"}, func(*Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 (0644 less umask 027)", st.Mode().Perm())
	}
}
