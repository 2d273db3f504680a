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
