package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEGoProgram builds every Go program README.md shows (a go block
// with a main package) as a user would — in a module of its own outside
// the repository, which requires sparseson through a replace directive —
// and runs it in a directory that looks like the repository root, so that
// the embedding the README teaches is the one that works.
func TestREADMEGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a program against the library")
	}
	blocks, _ := fenced(readDoc(t, "README.md"))
	ran := 0
	for _, b := range blocks {
		if b.lang != "go" || !strings.Contains(b.text, "package main") {
			continue
		}
		mod := t.TempDir()
		abs, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		gomod := "module example.com/readme\n\ngo 1.26\n\nrequire github.com/sparseson/sparseson v0.0.0\n\nreplace github.com/sparseson/sparseson => " + strconv.Quote(abs) + "\n"
		sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(b.text)} {
			if err := os.WriteFile(filepath.Join(mod, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bin := filepath.Join(mod, "prog")
		build := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
		build.Dir = mod
		build.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("README.md:%d: the Go program does not build outside the repository: %v\n%s", b.line, err, tail(out))
		}
		run := exec.Command(bin)
		run.Dir = workDir(t)
		out, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("README.md:%d: the Go program fails: %v\n%s", b.line, err, tail(out))
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(lastLine(string(out))), 64); err != nil || v != v {
			t.Errorf("README.md:%d: the Go program's last line is not a prediction: %q", b.line, lastLine(string(out)))
		}
		checkIgnored(t, run.Dir)
		ran++
	}
	if ran == 0 {
		t.Error("README.md shows no Go program (a go block with package main)")
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}
