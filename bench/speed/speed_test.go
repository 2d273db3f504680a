package speed

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
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

// fakeVW writes a script that answers as VW (or sparseson) does at the end
// of a run — its summary on stderr — and logs its arguments, one run a
// line, to log.
func fakeVW(t *testing.T, dir, name, examples string) (prog, log string) {
	t.Helper()
	prog, log = filepath.Join(dir, name), filepath.Join(dir, name+".log")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\n" +
		"echo 'finished run' >&2\necho 'number of examples = " + examples + "' >&2\necho 'average loss = 0.5' >&2\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return prog, log
}

func TestCompareVW(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the fake VW")
	}
	cases := []struct {
		name      string
		vwCount   string // examples the fake VW reports
		noVW      bool
		wantErr   string
		wantLines []string // in the printed table
		wantVW    []string // argument lines VW was run with (every round)
	}{
		{name: "no VW", noVW: true, wantLines: []string{"VW column skipped: set VW="}},
		{
			name: "flags mapped", vwCount: "3",
			wantLines: []string{"default learner", "default, gzip", "Oja-SON m=10", "predict only -t", "gzip / plain wall: sparseson"},
			wantVW: []string{
				"--loss_function logistic -d PLAIN",
				"--loss_function logistic --compressed -d GZ",
				"--loss_function logistic --OjaNewton --sketch_size 10 -d PLAIN",
				"--loss_function logistic -t -d PLAIN",
			},
		},
		{name: "flags that do not map", vwCount: "2", wantErr: "the flags do not ask the same of both"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ours, oursLog := fakeVW(t, dir, "sparseson", "3")
			vw, vwLog := "", ""
			if !c.noVW {
				vw, vwLog = fakeVW(t, dir, "vw", c.vwCount)
			}
			plain, gz := filepath.Join(dir, "PLAIN"), filepath.Join(dir, "GZ")
			var out bytes.Buffer
			const rounds = 2
			csv, err := compareVW(&out, ours, vw, plain, gz, rounds)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range c.wantLines {
				if !strings.Contains(out.String(), l) {
					t.Errorf("output lacks %q:\n%s", l, out.String())
				}
			}
			if c.noVW {
				if csv != "" {
					t.Errorf("a skipped comparison wrote CSV %q", csv)
				}
				if _, err := os.Stat(oursLog); err == nil {
					t.Error("sparseson was run with no VW to compare")
				}
				return
			}
			if got := strings.Count(csv, "\n"); got != 1+len(vwRows) {
				t.Errorf("CSV has %d lines, want %d:\n%s", got, 1+len(vwRows), csv)
			}
			logged, err := os.ReadFile(vwLog)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(strings.ReplaceAll(string(logged), plain, "PLAIN"), gz, "GZ")
			want := strings.Repeat(strings.Join(c.wantVW, "\n")+"\n", rounds)
			if got != want {
				t.Errorf("VW ran with\n%s\nwant\n%s", got, want)
			}
			if b, _ := os.ReadFile(oursLog); strings.Count(string(b), "\n") != rounds*len(vwRows) || !strings.Contains(string(b), "--oja -m 10 -d ") {
				t.Errorf("sparseson ran with\n%s", b)
			}
		})
	}
}
