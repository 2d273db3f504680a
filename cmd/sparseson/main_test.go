package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// sparseson runs the command in-process and returns stdout, stderr, status.
func sparseson(t *testing.T, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := run(args, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

func mustRun(t *testing.T, stdin io.Reader, args ...string) string {
	t.Helper()
	_, stderr, code := sparseson(t, stdin, args...)
	if code != 0 {
		t.Fatalf("sparseson %v: exit %d\n%s", args, code, stderr)
	}
	return stderr
}

// plain returns the decompressed text of a bundled gzip file.
func plain(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func zstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// TestInputsAgree: plain, gzip, zstd and stdin (plain and compressed)
// inputs of the same data give identical prediction files.
func TestInputsAgree(t *testing.T) {
	dir := t.TempDir()
	text := plain(t, "splice.train.vw.gz")
	files := map[string]string{
		"plain": write(t, filepath.Join(dir, "d.vw"), text),
		"gzip":  write(t, filepath.Join(dir, "d.vw.gz"), gzipBytes(text)),
		"zstd":  write(t, filepath.Join(dir, "d.vw.zst"), zstdBytes(t, text)),
	}
	var want string
	for _, kind := range []string{"plain", "gzip", "zstd", "stdin", "stdin-zstd", "stdin-gzip"} {
		pred := filepath.Join(dir, kind+".pred")
		args := []string{"--quiet", "--loss_function", "logistic", "-p", pred}
		var stdin io.Reader
		switch kind {
		case "stdin":
			stdin = bytes.NewReader(text)
		case "stdin-zstd":
			stdin = bytes.NewReader(zstdBytes(t, text))
		case "stdin-gzip":
			stdin = bytes.NewReader(gzipBytes(text))
		default:
			args = append(args, files[kind])
		}
		mustRun(t, stdin, args...)
		got := read(t, pred)
		if want == "" {
			want = got
			if n := strings.Count(got, "\n"); n != 2549 {
				t.Fatalf("%d predictions, want 2549", n)
			}
			continue
		}
		if got != want {
			t.Errorf("%s input: predictions differ from plain input", kind)
		}
	}
}

// TestResumeEqualsUninterrupted: training on the first half, saving, and
// resuming on the second half predicts exactly what one run over both
// halves predicts — for every learner family.
func TestResumeEqualsUninterrupted(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(string(plain(t, "splice.train.vw.gz")), "\n")
	first := write(t, filepath.Join(dir, "a.vw"), []byte(strings.Join(lines[:1200], "")))
	second := write(t, filepath.Join(dir, "b.vw"), []byte(strings.Join(lines[1200:], "")))
	for _, learner := range learnerFlagSets {
		t.Run(strings.Join(learner, "_"), func(t *testing.T) {
			base := append([]string{"--quiet", "--loss_function", "squared"}, learner...)
			m := filepath.Join(dir, "m")
			all := filepath.Join(dir, "all.pred")
			mustRun(t, nil, append(base, "-p", all, first, second)...)
			mustRun(t, nil, append(base, "-f", m, first)...)
			p2 := filepath.Join(dir, "p2.pred")
			mustRun(t, nil, "--quiet", "-i", m, "-p", p2, second)
			wantLines := strings.SplitAfter(read(t, all), "\n")
			if got, want := read(t, p2), strings.Join(wantLines[1200:], ""); got != want {
				t.Fatal("resumed predictions differ from uninterrupted training")
			}
			// -t with the saved model predicts what training would predict next.
			p3 := filepath.Join(dir, "p3.pred")
			mustRun(t, nil, "--quiet", "-t", "-i", m, "-p", p3, second)
			firstPred := strings.SplitN(read(t, p3), "\n", 2)[0] + "\n"
			if firstPred != wantLines[1200] {
				t.Fatalf("-t prediction %q, training predicted %q", firstPred, wantLines[1200])
			}
		})
	}
}

// learnerFlagSets lists one command line per learner family.
var learnerFlagSets = [][]string{
	{},
	{"--sgd"},
	{"--adaptive"},
	{"--oja", "-m", "5"},
	{"--oja", "-m", "5", "--diag=false", "--projection", "1"},
	{"-m", "0"},
	{"--rp", "-m", "4", "--random_seed", "7"},
	{"--full", "-b", "10"},
	{"--fd", "-m", "4"},
	{"--rfd", "-m", "4"},
	{"--fd_fast", "-m", "4", "--alpha", "0.5"},
	{"--rfd_fast", "-m", "4"},
	{"--oja", "-m", "5", "--diag_sketch", "paper"},
	{"--rfd", "-m", "4", "--diag_sketch", "paper"},
	{"--fd", "-m", "4", "--projection", "1", "--alpha", "0.5", "-l", "2"},
	{"--adaptive", "--delta", "0.1"},
	{"--adaptive", "--dual_averaging", "--delta", "1e-8"},
	{"--ada_fd", "-m", "5"},
	{"--ada_fd", "-m", "5", "--dual_averaging"},
	{"--ada_ffd", "-m", "4"},
	{"--ada_ffd", "-m", "4", "--dual_averaging", "-l", "0.3"},
	{"--ftsl", "-m", "5"},
	{"--ftfsl", "-m", "4", "--epsilon", "1e-3"},
	{"--sada", "-m", "5"},
	{"--sada_fast", "-m", "4"},
	{"--ada_full", "-b", "9"},
	{"--ada_full", "-b", "9", "--dual_averaging", "--delta", "0"},
}

func TestMalformedLines(t *testing.T) {
	dir := t.TempDir()
	data := "1 |f a b\n" +
		"oops |f a\n" +
		"-1 |f c:xyz\n" +
		"1 |f a c\n" +
		"\n" +
		"-1 |f b c:2\n"
	in := write(t, filepath.Join(dir, "d.vw"), []byte(data))
	stderr := mustRun(t, nil, "--loss_function", "logistic", in)
	for _, want := range []string{in + ":2:", in + ":3:", "malformed lines skipped = 2", "number of examples = 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, code := sparseson(t, nil, "--strict", in)
	if code == 0 || !strings.Contains(stderr, in+":2:") || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestNoValidExamples(t *testing.T) {
	for _, in := range []string{"", "garbage\nmore garbage\n"} {
		_, stderr, code := sparseson(t, strings.NewReader(in))
		if code == 0 || !strings.Contains(stderr, "no valid examples") {
			t.Errorf("input %q: exit %d, stderr:\n%s", in, code, stderr)
		}
	}
}

func TestRandomBytes(t *testing.T) {
	junk := make([]byte, 1<<20)
	var x uint64 = 88172645463325252
	for i := range junk {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		junk[i] = byte(x)
	}
	_, stderr, code := sparseson(t, bytes.NewReader(junk))
	// Random bytes may happen to contain a valid unlabeled example; either
	// way the run ends with a clear message and counts what it skipped.
	if !strings.Contains(stderr, "malformed lines skipped") && !strings.Contains(stderr, "no valid examples") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "panic") {
		t.Fatal(stderr)
	}
}

func TestBadModelFiles(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	m := filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-f", m, data)
	good := []byte(read(t, m))
	cases := map[string][]byte{
		"foreign":   []byte("1 |f a b c\n"),
		"truncated": good[:len(good)/2],
		"flipped":   append(append([]byte(nil), good[:len(good)/2]...), append([]byte{good[len(good)/2] ^ 1}, good[len(good)/2+1:]...)...),
	}
	for name, content := range cases {
		p := write(t, filepath.Join(dir, name), content)
		_, stderr, code := sparseson(t, nil, "-t", "-i", p, data)
		if code == 0 || !strings.Contains(stderr, "load model") {
			t.Errorf("%s model: exit %d, stderr:\n%s", name, code, stderr)
		}
	}
	_, stderr, code := sparseson(t, nil, "-t", "-i", m, "-b", "20", data)
	if code == 0 || !strings.Contains(stderr, "bits") {
		t.Errorf("conflicting -b: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestProgressTable(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	stderr := mustRun(t, nil, "--loss_function", "logistic", data)
	want := "average  since         example        example        current        current  current\n" +
		"loss     last          counter         weight          label        predict features\n"
	if !strings.Contains(stderr, want) {
		t.Fatalf("header missing:\n%s", stderr)
	}
	// Rows at 1, 2, 4, …, 128 of 216 examples.
	rows := 0
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) == 7 && (f[2] == "1" || f[2] == "2" || f[2] == "4" || f[2] == "8" || f[2] == "16" || f[2] == "32" || f[2] == "64" || f[2] == "128") {
			rows++
		}
	}
	if rows != 8 {
		t.Errorf("%d progress rows, want 8:\n%s", rows, stderr)
	}
	for _, want := range []string{"finished run", "number of examples = 216", "weighted example sum = 216.000000", "best constant = ", "total feature number = "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestPassesWithCacheAndHoldout(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	_, stderr, code := sparseson(t, nil, "--passes", "3", data)
	if code == 0 || !strings.Contains(stderr, "cache") {
		t.Fatalf("--passes without a cache: exit %d\n%s", code, stderr)
	}
	stderr = mustRun(t, nil, "--passes", "3", "-c", "--loss_function", "logistic", data)
	for _, want := range []string{"passes used = ", " h\n", "number of examples per pass = "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(data + ".cache"); err != nil {
		t.Fatal("no cache file written")
	}
	// The cache is reused when valid and gives the same run.
	again := mustRun(t, nil, "--passes", "3", "-c", "--loss_function", "logistic", data)
	if summary(again) != summary(stderr) {
		t.Errorf("second run from the cache differs:\n%s\nvs\n%s", summary(again), summary(stderr))
	}
}

func summary(s string) string {
	if i := strings.Index(s, "finished run"); i >= 0 {
		return s[i:]
	}
	return s
}

func TestReadableModel(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), []byte("1 | a b c\n-1 | a\n"))
	rm := filepath.Join(dir, "r.txt")
	mustRun(t, nil, "--quiet", "--readable_model", rm, data)
	got := read(t, rm)
	for _, slot := range []string{"\n92594:", "\n163331:", "\n185951:", "\n116060:"} {
		if !strings.Contains(got, slot) {
			t.Errorf("readable model lacks slot %q:\n%s", slot, got)
		}
	}
}

func TestOutputOptions(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "d.vw"), plain(t, "heart_scale.train.vw.gz"))
	check := func(flags []string, ok func(v float64) bool, what string) {
		t.Helper()
		pred := filepath.Join(dir, "p")
		mustRun(t, nil, append(append([]string{"--quiet", "--loss_function", "logistic", "-p", pred}, flags...), data)...)
		lines := strings.Fields(read(t, pred))
		if len(lines) != 216 {
			t.Fatalf("%v: %d predictions", flags, len(lines))
		}
		for _, s := range lines {
			var v float64
			if _, err := fmt.Sscan(s, &v); err != nil || !ok(v) {
				t.Fatalf("%v: prediction %q is not %s", flags, s, what)
			}
		}
	}
	check([]string{"--link", "logistic"}, func(v float64) bool { return v > 0 && v < 1 }, "a probability")
	check([]string{"--binary"}, func(v float64) bool { return v == 1 || v == -1 }, "±1")
	// -P 50 prints a row every 50 examples: at 50, 100, 150, 200.
	stderr := mustRun(t, nil, "-P", "50", "--loss_function", "logistic", data)
	for _, n := range []string{" 50 ", " 100 ", " 150 ", " 200 "} {
		if !strings.Contains(stderr, n) {
			t.Errorf("-P 50: no row at %s:\n%s", n, stderr)
		}
	}
}
