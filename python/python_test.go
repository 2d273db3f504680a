// Package python holds the scikit-learn estimators of python/sparseson;
// its Go test builds the sparseson binary and runs their pytest suite, so
// that the README's `go test ./...` covers them.
package python

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pythonWithSklearn returns an interpreter that has everything the suite
// imports ($SPARSESON_PYTHON, python3, or Debian's /usr/bin/python3, which
// a pyenv or venv python3 earlier in PATH would hide), or why none does.
func pythonWithSklearn() (string, string) {
	var tried []string
	for _, py := range []string{os.Getenv("SPARSESON_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		out, err := exec.Command(py, "-c", "import numpy, scipy, sklearn, pytest").CombinedOutput()
		if err == nil {
			return py, ""
		}
		tried = append(tried, fmt.Sprintf("%s: %s", py, lastLine(string(out), err)))
	}
	return "", strings.Join(tried, "; ")
}

func lastLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestPythonPackage runs python/tests (scikit-learn's estimator checks,
// parity with the command line, pipelines, pickling) against a binary
// built from this tree.
func TestPythonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python suite takes about a minute")
	}
	py, why := pythonWithSklearn()
	if py == "" {
		t.Skipf("NumPy, SciPy, scikit-learn or pytest missing (%s): apt-get install python3-numpy python3-scipy python3-sklearn python3-pytest (.ci/run installs them)", why)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "sparseson")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../cmd/sparseson").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A hang (a pipe nobody reads) must fail the test, not the whole run.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests")
	cmd.Env = append(os.Environ(), "SPARSESON_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
	t.Logf("pytest:\n%s", lastLines(string(out), 15))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
