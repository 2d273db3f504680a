// Package news20 writes 20 Newsgroups as a 20-class problem in VW text:
// the shared news20.{train,test}.vw.gz hold the binary task (comp.* and
// sci.* against the rest), and news20.{train,test}.groups.gz give each
// line's newsgroup, aligned line by line (../shared/data/MANIFEST.md).
// Each VW line keeps its features and gets the class of its newsgroup as
// its label.
package news20

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Groups are the 20 newsgroups in the order of their classes: class k is
// Groups[k−1]. The order is alphabetical, fixed here rather than taken
// from the data so that every file and model agrees.
var Groups = [20]string{
	"alt.atheism",
	"comp.graphics",
	"comp.os.ms-windows.misc",
	"comp.sys.ibm.pc.hardware",
	"comp.sys.mac.hardware",
	"comp.windows.x",
	"misc.forsale",
	"rec.autos",
	"rec.motorcycles",
	"rec.sport.baseball",
	"rec.sport.hockey",
	"sci.crypt",
	"sci.electronics",
	"sci.med",
	"sci.space",
	"soc.religion.christian",
	"talk.politics.guns",
	"talk.politics.mideast",
	"talk.politics.misc",
	"talk.religion.misc",
}

// Class returns the class (1…20) of a newsgroup, 0 if it is none of them.
func Class(group string) int {
	for k, g := range Groups {
		if g == group {
			return k + 1
		}
	}
	return 0
}

// Filter chooses what of a line is written: keep reports whether the
// line (0-based) is written, and word whether a feature is kept. A nil
// Filter keeps everything.
type Filter struct {
	Lines int                 // write at most this many lines (0: all)
	Word  func(w string) bool // keep this feature (nil: all)
}

// Write converts split ("train" or "test") of dataDir into out (gzip'd
// VW text) and returns the number of lines written per class.
func Write(dataDir, split, out string, f *Filter) ([20]int, error) {
	var counts [20]int
	vw, err := openGzip(filepath.Join(dataDir, "news20."+split+".vw.gz"))
	if err != nil {
		return counts, err
	}
	defer vw.Close()
	groups, err := openGzip(filepath.Join(dataDir, "news20."+split+".groups.gz"))
	if err != nil {
		return counts, err
	}
	defer groups.Close()
	of, err := os.Create(out)
	if err != nil {
		return counts, err
	}
	zw, _ := gzip.NewWriterLevel(of, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	lines, gl := bufio.NewScanner(vw), bufio.NewScanner(groups)
	lines.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for lines.Scan() {
		if !gl.Scan() {
			return counts, fmt.Errorf("news20.%s: the groups file ends at line %d, before the VW file", split, n+1)
		}
		if f != nil && f.Lines > 0 && n >= f.Lines {
			break
		}
		n++
		group, _, _ := strings.Cut(gl.Text(), "\t")
		k := Class(group)
		if k == 0 {
			return counts, fmt.Errorf("news20.%s.groups line %d: unknown newsgroup %q", split, n, group)
		}
		_, feats, ok := bytes.Cut(lines.Bytes(), []byte(" |"))
		if !ok {
			return counts, fmt.Errorf("news20.%s.vw line %d: no ' |'", split, n)
		}
		counts[k-1]++
		w.WriteString(strconv.Itoa(k))
		if f == nil || f.Word == nil {
			w.WriteString(" |")
			w.Write(feats)
			w.WriteByte('\n')
			continue
		}
		// feats is "f word[:count] …": the namespace, then the features.
		toks := strings.Fields(string(feats))
		w.WriteString(" |" + toks[0])
		for _, t := range toks[1:] {
			word, _, _ := strings.Cut(t, ":")
			if f.Word(word) {
				w.WriteString(" " + t)
			}
		}
		w.WriteByte('\n')
	}
	if err := lines.Err(); err != nil {
		return counts, err
	}
	if (f == nil || f.Lines == 0) && gl.Scan() {
		return counts, fmt.Errorf("news20.%s: the groups file has more lines than the VW file (%d)", split, n)
	}
	if err := w.Flush(); err != nil {
		return counts, err
	}
	if err := zw.Close(); err != nil {
		return counts, err
	}
	return counts, of.Close()
}

// Vocabulary returns news20.vocab.gz as word → rank by training document
// frequency (1 = most frequent).
func Vocabulary(dataDir string) (map[string]int, error) {
	r, err := openGzip(filepath.Join(dataDir, "news20.vocab.gz"))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	v := map[string]int{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 2 {
			continue
		}
		rank, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("news20.vocab: %q: %v", sc.Text(), err)
		}
		v[f[1]] = rank
	}
	return v, sc.Err()
}

type gzFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzFile) Close() error { g.Reader.Close(); return g.f.Close() }

func openGzip(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzFile{zr, f}, nil
}
