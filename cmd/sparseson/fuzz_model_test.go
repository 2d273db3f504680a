package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// FuzzModelLoad feeds model files to the loader of -i: any file is either
// refused with an error, or loads a model whose weights and predictions
// are finite, and whose predictions stay finite while it learns from a
// few examples.
//
// The seeds are the models of every learner of the registry, alone and
// under --oaa, trained on a short stream at -b 8 — generated when the
// target starts, so that a new learner, or a change of a learner's file
// format, is covered without a corpus to refresh. Each input is tried as
// it is and resealed (its trailer and CRC-32C recomputed), so that
// mutations reach the learners' own loaders rather than stopping at the
// checksum.
func FuzzModelLoad(f *testing.F) {
	for _, s := range modelSeeds(f) {
		f.Add(s)
	}
	// A flipped bit of the version word (65540) is damage, and an intact
	// file of another version is not supported: the order of the checks.
	s := modelSeeds(f)[0]
	flipped := append([]byte(nil), s...)
	flipped[10] ^= 1
	f.Add(flipped)
	newer := append([]byte(nil), s...)
	newer[8] = 5
	f.Add(reseal(newer))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data)
		if sealed := reseal(data); sealed != nil {
			fuzzModel(t, sealed)
		}
	})
}

var (
	modelSeedsOnce sync.Once
	modelSeedList  [][]byte
)

// modelSeeds trains every registry case on a short stream and returns the
// model files.
func modelSeeds(tb testing.TB) [][]byte {
	modelSeedsOnce.Do(func() {
		for _, rc := range registryCases() {
			args := append([]string{"--quiet", "--random_seed", "3"}, rc.flags...)
			if !hasFlag(args, "-b", "--bit_precision") {
				args = append(args, "-b", "8")
			}
			d, err := inproc(args, nil, nil)
			if err != nil {
				panic(fmt.Sprintf("%s: %v", rc.name, err))
			}
			var ex sparse.Example
			for i := 0; i < 24; i++ {
				ex.Reset()
				ex.HasLabel, ex.Label = true, float64(2*(i%2)-1)
				if rc.multiclass {
					ex.Label = float64(1 + i%registryClasses)
				}
				exampleOf(&ex, 8, []uint32{uint32(i % 7), uint32(3 + i%5), 11, uint32(i * 13)}, []float64{1, 0.5 * float64(i%3+1), -1, 2})
				d.Process(&ex)
			}
			data, err := d.encode()
			if err != nil {
				panic(fmt.Sprintf("%s: %v", rc.name, err))
			}
			modelSeedList = append(modelSeedList, data)
		}
	})
	return modelSeedList
}

// reseal returns data with a valid trailer and checksum: its last 8 bytes
// replaced if they look like a trailer, else appended. nil if data does
// not start like a model file.
func reseal(data []byte) []byte {
	if len(data) < 12 || string(data[:8]) != "SPRSNMDL" {
		return nil
	}
	body := data
	if n := len(data); n >= 20 && string(data[n-8:n-4]) == "END." {
		body = data[:n-8]
	}
	out := append(append([]byte(nil), body...), "END."...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

// fuzzMaxBits bounds the hash space of the models tried. Every -b is
// tried now: above -b 22 the slot index is a hash
// table of the features seen, and up to it a dense array of at most 16
// MiB (before, a 4 GiB array at -b 30 bounded the fuzzer to -b 22).
const fuzzMaxBits = 30

func fuzzModel(t *testing.T, data []byte) {
	stored, r, err := model.Parse(data)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error")
		}
		if strings.Contains(err.Error(), "is not supported") && !bytes.Equal(reseal(data), data) {
			t.Fatalf("a damaged file is reported as another version: %v", err)
		}
		return
	}
	if b, err := strconv.Atoi(stored["bits"]); err == nil && b > fuzzMaxBits {
		return
	}
	d, err := inproc([]string{"--quiet", "-i", "fuzz.model"}, stored, r)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error")
		}
		return
	}
	if err := checkWeights(d); err != nil {
		t.Fatalf("a loaded %s model: %v", d.Family().Name, err)
	}
	bits := d.Hashing().Bits
	k := d.Classes()
	var ex sparse.Example
	// Three predictions, then three examples learned.
	for i := 0; i < 6; i++ {
		ex.Reset()
		ex.HasLabel, ex.Label = i >= 3, float64(2*(i%2)-1)
		if k > 0 {
			ex.Label = float64(1 + i%k)
		}
		exampleOf(&ex, bits, []uint32{uint32(i % 7), 11, hashing.ConstantHash, uint32(i * 13)}, []float64{1, -0.5, 1, 2})
		out := d.Process(&ex)
		if math.IsNaN(out) || math.IsInf(out, 0) || (k > 0 && (out < 1 || out > float64(k))) {
			t.Fatalf("a loaded %s model predicts %v (options %v)", d.Family().Name, out, stored)
		}
	}
	// Saving works. (Learning on from a state crafted at the edge of the
	// float64 range can overflow a sketch's internals — the core then
	// refuses its steps, so predictions stay finite — and what is saved
	// then may be refused on loading: README, "Bad input".)
	if _, err := d.encode(); err != nil {
		t.Fatalf("a loaded %s model does not save: %v", d.Family().Name, err)
	}
}
