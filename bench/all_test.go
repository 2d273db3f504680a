package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellJoin: BENCHMARKS.md's commands paste into a shell unchanged.
func TestShellJoin(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-set", "text", "-ada_full=false"}, "-set text -ada_full=false"},
		{[]string{"-only", "^(AdaGrad-OAA|Oja-SON-OAA m=10)$"}, "-only '^(AdaGrad-OAA|Oja-SON-OAA m=10)$'"},
		{[]string{"-learners", "AdaGrad,SON m=0"}, "-learners 'AdaGrad,SON m=0'"},
		{[]string{"it's", ""}, `'it'\''s' ''`},
	} {
		if got := shellJoin(tc.args); got != tc.want {
			t.Errorf("shellJoin(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestTwoCommandsLeaveNoFiles: the files the README's first command
// writes into the repository (-o, -f) are ones .gitignore covers, so that
// a user's clone stays clean (issue 24: splice.model was left untracked).
func TestTwoCommandsLeaveNoFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Two commands\n")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	cmd, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no command under \"## Two commands\"")
	}
	var outputs []string
	f := strings.Fields(cmd)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-o" || f[i] == "-f" {
			outputs = append(outputs, f[i+1])
		}
	}
	if len(outputs) < 2 {
		t.Fatalf("found %q in %q; want the binary and the model", outputs, cmd)
	}
	if err := exec.Command("git", "-C", "..", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("not a git work tree (or no git), .gitignore not checked: %v", err)
	}
	for _, o := range outputs {
		if err := exec.Command("git", "-C", "..", "check-ignore", "-q", "--no-index", o).Run(); err != nil {
			t.Errorf("the README's first command writes %s, which .gitignore does not cover", o)
		}
	}
}
