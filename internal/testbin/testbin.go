// Package testbin builds the sparseson command once per test binary, for
// the tests that run it as a user does (the recipes, the scikit-learn
// estimators, the documentation's commands, signals and exit statuses).
// The build is by import path, so a test in any directory gets the same
// command, and it is removed when the test binary ends (Main).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Command is the import path of the command the tests run.
const Command = "github.com/sparseson/sparseson/cmd/sparseson"

var (
	once sync.Once
	path string
	err  error
)

// Build builds the command (once; CGO_ENABLED=0, the static build the
// README gives) and returns the path of the binary, or the build's error
// with its output.
func Build() (string, error) {
	once.Do(func() {
		goTool, lerr := exec.LookPath("go")
		if lerr != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		dir, derr := os.MkdirTemp("", "sparseson-test-")
		if derr != nil {
			err = derr
			return
		}
		path = filepath.Join(dir, "sparseson")
		cmd := exec.Command(goTool, "build", "-o", path, Command)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build %s: %v\n%s", Command, berr, out)
		}
	})
	return path, err
}

// Main runs the tests and removes the binary Build made; a test package
// that uses Build calls it from its TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
	os.Exit(code)
}

// Python returns the first interpreter that can import what the imports
// statement names — $SPARSESON_PYTHON, python3, or Debian's
// /usr/bin/python3, which a pyenv or venv python3 earlier in PATH would
// hide — or, when none can, why each could not (for a test's Skip).
func Python(imports string) (py, why string) {
	var tried []string
	for _, py := range []string{os.Getenv("SPARSESON_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		out, err := exec.Command(py, "-c", imports).CombinedOutput()
		if err == nil {
			return py, ""
		}
		tried = append(tried, fmt.Sprintf("%s: %s", py, LastLine(string(out), err)))
	}
	return "", strings.Join(tried, "; ")
}

// LastLine is the last line of a command's output, or its error when it
// printed nothing.
func LastLine(out string, err error) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return err.Error()
	}
	return out[strings.LastIndex(out, "\n")+1:]
}
