package son_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsPointDown holds the layers this package sits in: the shared
// types (package sparse) and the numeric kernels (internal/linalg) import
// nothing of the learners, and son imports no sketch, so that the sketch
// packages (oja, fd, rp), which import sparse, can be tested through son
// without a cycle. Only the packages' own (non-test) files count.
func TestImportsPointDown(t *testing.T) {
	const mod = "github.com/sparseson/sparseson/"
	for _, c := range []struct {
		dir     string
		allowed []string // the module's packages it may import
	}{
		{"../internal/linalg", nil},
		{"../sparse", []string{"model"}},
		{".", []string{"sparse", "model", "loss", "internal/linalg"}},
	} {
		pkg, err := build.ImportDir(c.dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if len(pkg.GoFiles) == 0 {
			t.Fatalf("%s: no Go files read", c.dir)
		}
		for _, imp := range pkg.Imports {
			rel, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			allowed := false
			for _, a := range c.allowed {
				allowed = allowed || rel == a
			}
			if !allowed {
				t.Errorf("package %s imports %s: only %v of the module may be imported there", pkg.Name, imp, c.allowed)
			}
		}
	}
}
