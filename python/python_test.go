// Package python holds the scikit-learn estimators of python/sparseson;
// its Go test builds the sparseson binary and runs their pytest suite, so
// that the README's `go test ./...` covers them.
package python

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparseson/sparseson/internal/testbin"
)

// pythonWithSklearn returns an interpreter that has everything the suite
// imports, or why none does.
func pythonWithSklearn() (string, string) {
	return testbin.Python("import numpy, scipy, sklearn, pytest")
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
	bin := sparsesonBinary(t)
	watchSources(t)
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

// TestPipInstall installs the package as the README says, offline: into a
// virtual environment that sees Debian's NumPy, SciPy and scikit-learn,
// with setuptools from the system (--no-build-isolation) and no index;
// then fits a model with the installed copy. The package is copied first,
// since setuptools builds in the source tree.
func TestPipInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installing takes a few seconds")
	}
	py, why := pythonWithSklearn()
	if py == "" {
		t.Skipf("NumPy, SciPy, scikit-learn or pytest missing (%s)", why)
	}
	if out, err := exec.Command(py, "-c", "import venv, pip, setuptools").CombinedOutput(); err != nil {
		t.Skipf("%s has no venv, pip or setuptools (%s): apt-get install python3-venv python3-pip python3-setuptools", py, testbin.LastLine(string(out), err))
	}
	bin := sparsesonBinary(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for _, f := range []string{"pyproject.toml", "README.md", "sparseson/__init__.py", "sparseson/_binary.py", "sparseson/_format.py", "sparseson/estimator.py"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	venv := filepath.Join(dir, "venv")
	vpy := filepath.Join(venv, "bin", "python")
	steps := [][]string{
		{py, "-m", "venv", "--without-pip", "--system-site-packages", venv}, // Debian's pip is seen through the system site
		{vpy, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", src},
		{vpy, "-c", `import os, sparseson, numpy as np
assert sparseson.__file__.startswith(os.environ["VENV"]), sparseson.__file__
X = np.array([[1.0, 0.0], [0.0, 1.0]] * 20)
y = np.array(["a", "b"] * 20)
clf = sparseson.SparsesonClassifier(passes=2).fit(X, y)
assert list(clf.predict(X[:2])) == ["a", "b"], clf.predict(X[:2])`},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SPARSESON_BIN="+bin, "VENV="+venv, "PIP_NO_INPUT=1", "PYTHONDONTWRITEBYTECODE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
}

// watchSources reads every Python file the suite runs and the module's Go
// files the binary is built from, so that go test's cache, which knows
// only the files a test opens itself, reruns the suite when one changes.
func watchSources(t *testing.T) {
	t.Helper()
	for _, dir := range []string{"sparseson", "tests"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.py"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Python files in %s: %v", dir, err)
		}
		for _, f := range files {
			if _, err := os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) { testbin.Main(m) }

// sparsesonBinary builds the command once per test run.
func sparsesonBinary(t *testing.T) string {
	t.Helper()
	binPath, binErr := testbin.Build()
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
