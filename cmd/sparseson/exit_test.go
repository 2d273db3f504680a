package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sparseson/sparseson/model"
)

// exitFiles are the files of TestExitStatus: a data file, a model of
// it, a damaged copy, a FIFO, a directory.
type exitFiles struct {
	dir, data, model, flipped, fifo, sub, plainFile string
	dataBytes                                       []byte
}

func newExitFiles(t *testing.T) *exitFiles {
	dir := t.TempDir()
	f := &exitFiles{dir: dir, dataBytes: plain(t, "heart_scale.train.vw.gz")}
	f.data = write(t, filepath.Join(dir, "d.vw"), f.dataBytes)
	f.model = filepath.Join(dir, "m")
	mustRun(t, nil, "--quiet", "-f", f.model, f.data)
	good := []byte(read(t, f.model))
	// Model format version 4 with a bit of its second byte flipped:
	// 65540, which only the checksum shows to be damage.
	bad := append([]byte(nil), good...)
	bad[10] ^= 1
	f.flipped = write(t, filepath.Join(dir, "flipped.model"), bad)
	f.fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(f.fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f.sub = filepath.Join(dir, "sub")
	os.Mkdir(f.sub, 0o755)
	f.plainFile = write(t, filepath.Join(dir, "plain"), []byte("x"))
	return f
}

// TestExitStatus: one convention for the whole command — 0 success, 1 a
// failed run (files, data under --strict, models), 2 a refused command
// line (with the pointer to --help) — for every kind of error. (128 + n
// on a signal: TestProcess.) The data file survives every case.
func TestExitStatus(t *testing.T) {
	f := newExitFiles(t)
	d, m := f.data, f.model
	in := func(name string) string { return filepath.Join(f.dir, name) }
	cases := []struct {
		name string
		args []string
		want int
		msg  string // the error line mentions this
	}{
		{"success", []string{d}, 0, ""},
		{"-i m -f m continues training over the model", []string{"-i", m, "-f", m, d}, 0, ""},
		{"-p into /dev/null", []string{"-p", os.DevNull, d}, 0, ""},

		{"unknown flag", []string{"--bogus", d}, 2, "unknown flag: --bogus"},
		{"bad value", []string{"-b", "x", d}, 2, "invalid argument"},
		{"value out of range", []string{"-b", "40", d}, 2, "-b 40"},
		{"--oaa 0", []string{"--oaa", "0", d}, 2, "--oaa 0"},
		{"--softmax 0", []string{"--softmax", "0", d}, 2, "--softmax 0"},
		{"--oaa and --softmax", []string{"--oaa", "3", "--softmax", "3", d}, 2, "not both"},
		{"two sketches", []string{"--fd", "--rp", d}, 2, "choose one sketch"},
		{"--sgd --oja", []string{"--sgd", "--oja", d}, 2, "--sgd is an option of the first-order learner"},
		{"--adaptive --oja", []string{"--adaptive", "--oja", d}, 2, "--adaptive is an option of the first-order learner"},
		{"--normalized --full", []string{"--normalized", "--full", "-b", "8", d}, 2, "--normalized is an option"},
		{"--power_t -m", []string{"--power_t", "0.3", "-m", "4", d}, 2, "--power_t is an option"},
		{"--nasa --oja", []string{"--nasa", "--oja", d}, 2, "does not apply to SON"},
		{"--sgd --ada_fd", []string{"--sgd", "--ada_fd", d}, 2, "--sgd"},
		{"--passes without a cache", []string{"--passes", "2", d}, 2, "needs an example cache"},
		{"--probabilities without classes", []string{"--probabilities", d}, 2, "--probabilities"},
		{"flags against the model", []string{"-i", m, "-b", "20", d}, 2, "bits"},
		{"learner against the model", []string{"-i", m, "--oja", d}, 2, "the command line asks for"},
		{"-p is the data", []string{"-p", d, d}, 2, "is also a data file"},
		{"--cache_file is the data", []string{"--cache_file", d, d}, 2, "is also a data file"},
		{"-f is the data", []string{"-f", d, d}, 2, "is also a data file"},
		{"-r is the data through a link", []string{"-r", in("link.vw"), d}, 2, "is also a data file"},
		{"--pid_file and --port_file, one file", []string{"--daemon", "--port", "0", "--pid_file", in("pp"), "--port_file", in("pp")}, 2, "are the same file"},
		{"two outputs, one file", []string{"-p", in("out"), "--readable_model", in("out"), d}, 2, "are the same file"},

		{"missing data", []string{in("nothere.vw")}, 1, "nothere.vw"},
		{"bad line under --strict", []string{"--strict", in("bad.vw")}, 1, "--strict"},
		{"no valid examples", []string{in("bad.vw")}, 1, "no valid examples"},
		{"flipped version byte", []string{"-t", "-i", f.flipped, d}, 1, "corrupt model file: checksum mismatch"},
		{"not a model", []string{"-t", "-i", d, d}, 1, "not a sparseson model"},
		{"-f is a directory", []string{"-f", f.sub, d}, 1, "is a directory"},
		{"--cache_file is a FIFO", []string{"--cache_file", f.fifo, d}, 1, "named pipe"},
		{"missing directory", []string{"-f", in("no/such/m"), d}, 1, "no/such"},
		{"unusable --profile_path", []string{"--profile", "cpu", "--profile_path", f.plainFile, d}, 1, "--profile_path"},
		{"unusable --profile_path below a file", []string{"--profile", "cpu", "--profile_path", in("plain/sub"), d}, 1, "--profile_path"},
	}
	// --help states the convention.
	help, _, _ := sparseson(t, nil, "--help")
	for _, s := range []string{"Exit status:", "  0 ", "  1 ", "  2 ", "  128 + n "} {
		if !strings.Contains(help, s) {
			t.Errorf("--help does not state %q", s)
		}
	}
	write(t, in("bad.vw"), []byte("not a label |f a\n"))
	os.Symlink(d, in("link.vw"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := sparseson(t, nil, append([]string{"--quiet"}, c.args...)...)
			if code != c.want {
				t.Fatalf("exit %d, want %d:\n%s", code, c.want, stderr)
			}
			if c.msg != "" && !strings.Contains(stderr, c.msg) {
				t.Fatalf("the error does not mention %q:\n%s", c.msg, stderr)
			}
			if c.want != 0 && !strings.HasPrefix(stderr, "sparseson: ") {
				t.Fatalf("not the command's error format:\n%s", stderr)
			}
			if hint := strings.Contains(stderr, "Try 'sparseson --help'"); hint != (c.want == 2) {
				t.Fatalf("the --help pointer is there: %v, exit %d:\n%s", hint, code, stderr)
			}
			if got, err := os.ReadFile(d); err != nil || !bytes.Equal(got, f.dataBytes) {
				t.Fatalf("the data file changed (%d bytes, %v)", len(got), err)
			}
		})
	}
}

// TestOutputsThroughLinksAndDevices: the reproductions of the output
// rule through the command — -f through a link updates its target and
// keeps the link; -f and -p into a character device write into it and
// leave it a device; the stdin file is not an output.
func TestOutputsThroughLinksAndDevices(t *testing.T) {
	f := newExitFiles(t)
	dir := f.dir
	real := filepath.Join(dir, "real.bin")
	write(t, real, []byte("old model"))
	link := filepath.Join(dir, "l.bin")
	os.Symlink("real.bin", link)
	mustRun(t, nil, "--quiet", "-f", link, f.data)
	if st, err := os.Lstat(link); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Fatalf("-f replaced the link: %v", err)
	}
	if read(t, real) != read(t, f.model) {
		t.Fatal("the link's target does not hold the new model")
	}

	node := filepath.Join(dir, "n")
	if err := syscall.Mknod(node, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("mknod (needs root): %v; the character device cases are skipped", err)
	} else {
		mustRun(t, nil, "--quiet", "-f", node, "-p", node, f.data)
		if st, err := os.Lstat(node); err != nil || st.Mode().Type() != os.ModeDevice|os.ModeCharDevice {
			t.Fatalf("-f replaced the character device (%v)", err)
		}
	}

	stdin, err := os.Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	_, stderr, code := sparseson(t, stdin, "--quiet", "-p", f.data)
	if code != 2 || !strings.Contains(stderr, "is also the input on stdin") {
		t.Fatalf("-p onto the stdin file: exit %d\n%s", code, stderr)
	}
	if !bytes.Equal([]byte(read(t, f.data)), f.dataBytes) {
		t.Fatal("the stdin file changed")
	}
}

// TestStaleTempReported: the next run saving to a path removes the
// temporary file a killed save of it left (unlocked), and says so.
func TestStaleTempReported(t *testing.T) {
	f := newExitFiles(t)
	stale := filepath.Join(f.dir, ".m.tmp1k2j3")
	write(t, stale, []byte("half a model"))
	stderr := mustRun(t, nil, "--quiet", "-f", f.model, f.data)
	if _, err := os.Stat(stale); err == nil {
		t.Fatal("the stale temporary file is still there")
	}
	if !strings.Contains(stderr, "removed "+stale) {
		t.Fatalf("not reported:\n%s", stderr)
	}
	if _, _, err := model.Load(f.model); err != nil {
		t.Fatal(err)
	}
}
