package doccheck

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sparseson/sparseson"

// goPackage is what `go list -json` says of one package.
type goPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages returns the module's packages (test-only packages included).
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

var (
	layerItem = regexp.MustCompile(`(?m)^(\d+)\. ((?:.|\n   )*)`)
	backtick  = regexp.MustCompile("`([a-z][a-z0-9/]*)`")
)

// docLayers reads the numbered list of docs/architecture.md's "The layers":
// every back-quoted name in item N that is a package of the module (or a
// folder of packages, such as bench) is in layer N.
func docLayers(t *testing.T, known map[string]bool) map[string]int {
	t.Helper()
	doc := readDoc(t, "docs/architecture.md")
	start := strings.Index(doc, "## The layers")
	if start < 0 {
		t.Fatal(`docs/architecture.md has no "## The layers" section`)
	}
	sec := doc[start+len("## The layers"):]
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	layers := map[string]int{}
	for _, m := range layerItem.FindAllStringSubmatch(sec, -1) {
		n, _ := strconv.Atoi(m[1])
		for _, b := range backtick.FindAllStringSubmatch(m[2], -1) {
			name := b[1]
			if known[name] || hasPrefixPackage(known, name) {
				if old, ok := layers[name]; ok && old != n {
					t.Errorf("docs/architecture.md puts %s in layers %d and %d", name, old, n)
				}
				layers[name] = n
			}
		}
	}
	if len(layers) == 0 {
		t.Fatal("docs/architecture.md's layer list names no package")
	}
	return layers
}

func hasPrefixPackage(known map[string]bool, dir string) bool {
	for k := range known {
		if strings.HasPrefix(k, dir+"/") {
			return true
		}
	}
	return false
}

// layerOf finds a package's layer: its own entry, or that of the nearest
// folder above it that the document names.
func layerOf(layers map[string]int, rel string) (int, bool) {
	for p := rel; p != "."; {
		if n, ok := layers[p]; ok {
			return n, true
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0, false
}

// TestImportLayers holds the import graph to the layer order written in
// docs/architecture.md: every package of the module is placed in a layer,
// no import runs to a higher layer, the sketches do not import one another,
// and only tests import the dense references.
func TestImportLayers(t *testing.T) {
	pkgs := listPackages(t)
	known := map[string]bool{}
	for _, p := range pkgs {
		known[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = true
	}
	layers := docLayers(t, known)
	sketches := map[string]bool{"oja": true, "rp": true, "fd": true}
	// The imports within one layer that docs/architecture.md names.
	sameLayer := map[[2]string]bool{{"ada", "fd"}: true, {"ada", "son"}: true, {"internal/dense", "son"}: true, {"model", "internal/outfile"}: true}
	var bad []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		lp, ok := layerOf(layers, rel)
		if !ok {
			bad = append(bad, rel+": in no layer of docs/architecture.md")
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			q := strings.TrimPrefix(imp, module+"/")
			if q == "internal/dense" {
				bad = append(bad, rel+" imports internal/dense outside its tests")
				continue
			}
			lq, ok := layerOf(layers, q)
			if !ok {
				continue // reported as its own package above
			}
			if lq > lp {
				bad = append(bad, rel+" (layer "+strconv.Itoa(lp)+") imports "+q+" (layer "+strconv.Itoa(lq)+")")
			}
			if lq == lp && !sameLayer[[2]string{rel, q}] && top(rel) != top(q) {
				bad = append(bad, rel+" imports "+q+", in its own layer, and docs/architecture.md does not name that import")
			}
			if sketches[rel] && sketches[q] {
				bad = append(bad, "sketch "+rel+" imports sketch "+q)
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// top is a package's first folder: the packages of one program (bench's
// suites and their plumbing) may import one another.
func top(rel string) string {
	if i := strings.Index(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return rel
}

// TestLayerOf pins the lookup the layer test relies on, so that the test
// above cannot pass by finding no layer at all.
func TestLayerOf(t *testing.T) {
	layers := map[string]int{"sparse": 2, "bench": 8}
	for _, c := range []struct {
		rel  string
		want int
		ok   bool
	}{{"sparse", 2, true}, {"bench/internal/run", 8, true}, {"sparsex", 0, false}, {"engine", 0, false}} {
		got, ok := layerOf(layers, c.rel)
		if got != c.want || ok != c.ok {
			t.Errorf("layerOf(%q) = %d, %v; want %d, %v", c.rel, got, ok, c.want, c.ok)
		}
	}
}
