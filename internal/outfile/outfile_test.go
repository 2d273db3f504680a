//go:build linux

package outfile

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// kinds by name, for the tables.
var kinds = map[string]Kind{"stream": Stream, "model": Model, "cache": Cache}

// setup makes dir/name into one kind of file and returns what a reader
// of the target should see afterwards besides the new content.
type setup func(t *testing.T, dir, name string)

func regular(t *testing.T, dir, name string) {
	write(t, filepath.Join(dir, name), "old content\n")
}

func symlinkTo(target string) setup {
	return func(t *testing.T, dir, name string) {
		if target == "real" {
			write(t, filepath.Join(dir, "real"), "old content\n")
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(t *testing.T, dir, name string) {
	if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
		t.Fatal(err)
	}
}

// nullNode is a character device node of /dev/null's numbers (1, 3), made
// in the test's directory (never the real /dev/null); it needs root.
func nullNode(t *testing.T, dir, name string) {
	if err := syscall.Mknod(filepath.Join(dir, name), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
}

func directory(t *testing.T, dir, name string) {
	if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
}

func socket(t *testing.T, dir, name string) {
	l, err := net.Listen("unix", filepath.Join(dir, name))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenByFileType is the rule of the package for every kind of output
// and every kind of file at the path: what is refused, what is replaced
// (a link's target, the link kept), what is written into (and stays what
// it was).
func TestOpenByFileType(t *testing.T) {
	const content = "new content\n"
	cases := []struct {
		name  string
		setup setup
		kind  string
		// refused: Open's error mentions this; "" means it succeeds.
		refused string
		// after Commit: the file the content is at, and the type the
		// path must still have.
		at   string
		mode os.FileMode
	}{
		{"new/stream", nil, "stream", "", "out", 0},
		{"new/model", nil, "model", "", "out", 0},
		{"new/cache", nil, "cache", "", "out", 0},
		{"regular/stream", regular, "stream", "", "out", 0},
		{"regular/model", regular, "model", "", "out", 0},
		{"regular/cache", regular, "cache", "", "out", 0},
		{"link/stream", symlinkTo("real"), "stream", "", "real", os.ModeSymlink},
		{"link/model", symlinkTo("real"), "model", "", "real", os.ModeSymlink},
		{"link/cache", symlinkTo("real"), "cache", "", "real", os.ModeSymlink},
		{"dangling link/model", symlinkTo("real"), "model", "", "real", os.ModeSymlink},
		{"link to link/model", func(t *testing.T, dir, name string) {
			symlinkTo("real")(t, dir, "l2")
			symlinkTo("l2")(t, dir, name)
		}, "model", "", "real", os.ModeSymlink},
		{"directory/stream", directory, "stream", "is a directory", "", 0},
		{"directory/model", directory, "model", "is a directory", "", 0},
		{"directory/cache", directory, "cache", "is a directory", "", 0},
		{"socket/model", socket, "model", "is a socket", "", 0},
		{"socket/stream", socket, "stream", "is a socket", "", 0},
		{"fifo/cache", fifo, "cache", "named pipe", "", 0},
		{"fifo/model", fifo, "model", "", "", os.ModeNamedPipe},
		{"fifo/stream", fifo, "stream", "", "", os.ModeNamedPipe},
		{"char device/cache", nullNode, "cache", "character device", "", 0},
		{"char device/model", nullNode, "model", "", "", os.ModeDevice | os.ModeCharDevice},
		{"char device/stream", nullNode, "stream", "", "", os.ModeDevice | os.ModeCharDevice},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			if c.setup != nil {
				c.setup(t, dir, "out")
			}
			if c.name == "dangling link/model" {
				os.Remove(filepath.Join(dir, "real"))
			}
			got := make(chan string, 1)
			if c.mode&os.ModeNamedPipe != 0 {
				go func() {
					b, _ := os.ReadFile(path) // opens once the writer does
					got <- string(b)
				}()
			}
			if _, err := Check(path, kinds[c.kind]); (err != nil) != (c.refused != "") {
				t.Fatalf("Check: %v", err)
			}
			f, err := Open(path, kinds[c.kind])
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("Open: err %v, want %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(f, content); err != nil {
				t.Fatal(err)
			}
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			st, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Type() != c.mode {
				t.Fatalf("%s is now %v, want %v", path, st.Mode().Type(), c.mode)
			}
			switch {
			case c.mode&os.ModeNamedPipe != 0:
				select {
				case s := <-got:
					if s != content {
						t.Fatalf("the FIFO's reader got %q", s)
					}
				case <-time.After(time.Minute):
					t.Fatal("the FIFO's reader got nothing")
				}
			case c.at != "":
				if s := read(t, filepath.Join(dir, c.at)); s != content {
					t.Fatalf("%s holds %q", c.at, s)
				}
			}
			if left := temps(t, dir); len(left) > 0 {
				t.Fatalf("left %v", left)
			}
		})
	}
}

// temps lists the temporary files in dir.
func temps(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestAbortKeepsTarget: an aborted atomic output leaves the old file and no
// temporary file.
func TestAbortKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	write(t, path, "old")
	f, err := Open(path, Model)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "half a model")
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if read(t, path) != "old" || len(temps(t, dir)) > 0 {
		t.Fatalf("target %q, temporary files %v", read(t, path), temps(t, dir))
	}
}

// TestRemoveStale: a save removes the temporary files of its path that no
// live writer holds (a killed save's), keeps those a live writer holds
// (a concurrent save), and never touches a name outside the pattern.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	stale := []string{".m.tmp1", ".m.tmpabc123", ".m.tmp3w5e11"}
	foreign := []string{".m.tmp", ".m.tmpX1", ".m.tmp1.bak", "m.tmp1", ".mm.tmp1", ".n.tmp1", ".m.tmp12345678901234"}
	for _, n := range append(slices.Clone(stale), foreign...) {
		write(t, filepath.Join(dir, n), "x")
	}
	// A live writer of the same path: its temporary file is locked.
	live, err := Open(path, Model)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(live, "the live writer's model")
	liveTemp := filepath.Base(live.tmp)

	f, err := Open(path, Model)
	if err != nil {
		t.Fatal(err)
	}
	left := temps(t, dir)
	for _, n := range stale {
		if slices.Contains(left, n) {
			t.Errorf("stale %s was not removed", n)
		}
	}
	for _, n := range append(foreign, liveTemp) {
		if !slices.Contains(left, n) {
			t.Errorf("%s was removed", n)
		}
	}
	// Both saves complete; the later rename wins, and either way the file
	// is one whole model.
	io.WriteString(f, "the second writer's model")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := live.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := read(t, path); s != "the live writer's model" {
		t.Fatalf("the model is %q", s)
	}
	if slices.Contains(temps(t, dir), liveTemp) || len(temps(t, dir)) != len(foreign) {
		t.Fatalf("left %v", temps(t, dir))
	}
	// Nothing stale is left to report.
	if got := RemoveStale(path); len(got) != 0 {
		t.Fatalf("removed %v", got)
	}
}

// TestRemoveStaleThroughLink: the temporary files are the link target's,
// in its directory.
func TestRemoveStaleThroughLink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	write(t, filepath.Join(other, ".real.tmp9"), "x")
	if err := os.Symlink(filepath.Join(other, "real"), filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	f, err := Open(filepath.Join(dir, "l"), Model)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if left := temps(t, other); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	if st, err := os.Lstat(filepath.Join(dir, "l")); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Fatalf("the link is gone: %v", err)
	}
}

// TestSame compares files by device and inode, and paths not created yet
// by name.
func TestSame(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	write(t, a, "x")
	write(t, filepath.Join(dir, "b"), "x")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Link(a, filepath.Join(dir, "hard"))
	os.Symlink("a", filepath.Join(dir, "soft"))
	os.Symlink("new", filepath.Join(dir, "dangling"))
	for _, c := range []struct {
		x, y string
		same bool
	}{
		{"a", "a", true},
		{"a", "b", false},
		{"a", "hard", true},
		{"a", "soft", true},
		{"a", "sub/../a", true},
		{"new", "new", true},
		{"new", "./new", true},
		{"new", "dangling", true},
		{"new", "a", false},
		{"new", "other", false},
	} {
		if got := Same(filepath.Join(dir, c.x), dir+"/"+c.y); got != c.same {
			t.Errorf("Same(%s, %s) = %v", c.x, c.y, got)
		}
	}
}

// TestResolve follows relative and absolute links, and loops end.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub/t", filepath.Join(dir, "rel"))
	os.Symlink(filepath.Join(dir, "rel"), filepath.Join(dir, "abs"))
	os.Symlink("loop", filepath.Join(dir, "loop"))
	for _, c := range []struct{ in, want string }{
		{"rel", dir + "/sub/t"},
		{"abs", dir + "/sub/t"},
		{"plain", dir + "/plain"},
	} {
		got, err := Resolve(filepath.Join(dir, c.in))
		if err != nil || filepath.Clean(got) != c.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "loop")); err == nil {
		t.Error("a link loop resolved")
	}
	if _, err := Open(filepath.Join(dir, "loop"), Model); err == nil {
		t.Error("a link loop opened")
	}
}

// TestCheckLeavesNothing: Check writes nothing that stays, and names why
// a path cannot be written.
func TestCheckLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []Kind{Stream, Model, Cache} {
		if _, err := Check(filepath.Join(dir, "m"), k); err != nil {
			t.Fatal(err)
		}
		if _, err := Check(filepath.Join(dir, "no", "m"), k); err == nil || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("missing directory: %v", err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Check left %v", ents)
	}
}

// TestCheckBesideCleaners: Check's probe file and other runs' RemoveStale
// of the same path at the same time (the benchmark suites start several
// runs on one cache file) — the probe is removed while its lock is still
// held, so a cleaner never takes it from under Check, and Check never
// fails with "no such file".
func TestCheckBesideCleaners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.cache")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					RemoveStale(path)
				}
			}
		}()
	}
	var failed error
	for i := 0; i < 3000 && failed == nil; i++ {
		if _, err := Check(path, Cache); err != nil {
			failed = err
		}
	}
	close(stop)
	wg.Wait()
	if failed != nil {
		t.Fatalf("Check beside cleaners: %v", failed)
	}
}
