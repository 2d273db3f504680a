package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestExecOwnPeakRSS: a run started by Exec reports its own peak RSS, not
// this process's. The test first holds 256 MiB itself and shows that a
// child started directly reports at least that (so the test can fail),
// then that the same child started by Exec, through launch, does not.
func TestExecOwnPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir, "github.com/sparseson/sparseson/bench/internal/launch")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sparseson")
	if err := os.Symlink(truePath, bin); err != nil {
		t.Fatal(err)
	}
	hold := make([]byte, 256<<20)
	for i := range hold {
		if i%4096 == 0 {
			hold[i] = 1
		}
	}
	direct := exec.Command(bin)
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	r, err := Exec(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS of true(1): started directly %d KiB, by Exec %d KiB", inherited, r.MaxRSS)
	if inherited < 200<<10 {
		t.Skipf("this kernel does not pass the parent's peak RSS on (direct child: %d KiB)", inherited)
	}
	if r.MaxRSS <= 0 || r.MaxRSS > 64<<10 {
		t.Fatalf("Exec reported %d KiB for true(1)", r.MaxRSS)
	}
	hold[1] = hold[4096]
}
