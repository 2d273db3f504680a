package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/learners"
)

// TestSettingFlags: every setting the engine names in a message, a warning
// or the run header (a call name("X") or n("X") in package engine) has its
// flag in settingFlags, so that the command's messages name flags.
func TestSettingFlags(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "engine", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("engine sources: %v %v", files, err)
	}
	fset := token.NewFileSet()
	named := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			var fn string
			switch f := call.Fun.(type) {
			case *ast.Ident:
				fn = f.Name
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if (fn == "name" || fn == "n") && ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				named[s] = fset.Position(lit.Pos()).String()
			}
			return true
		})
	}
	// The settings outputs() names through a table of its own.
	for _, s := range []string{"Final", "Readable", "InvertHash", "Predictions", "Raw", "CacheFile", "PidFile", "PortFile", "ProfileFile"} {
		named[s] = "outputs()"
	}
	if len(named) < 30 {
		t.Fatalf("found only %d named settings: %v", len(named), named)
	}
	for s, at := range named {
		if _, ok := settingFlags[s]; !ok {
			t.Errorf("%s: setting %q has no flag in settingFlags", at, s)
		}
	}
}

// TestDefaultOptions: the library's default model is the command's.
func TestDefaultOptions(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runOptions(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := learners.DefaultOptions(18); !maps.Equal(got, want) {
		t.Errorf("the command's default options\n%v\nlearners.DefaultOptions(18)\n%v", got, want)
	}
}

// TestLibraryFields: every config field the learner packages' errors name
// ("Config.Eta") is written as its flag by the command.
func TestLibraryFields(t *testing.T) {
	mapped := map[string]bool{}
	for i := 0; i < len(libraryFields); i += 2 {
		mapped[libraryFields[i]] = true
	}
	field := regexp.MustCompile(`\b(?:[a-z]+\.)?(?:Shampoo)?Config\.[A-Z][A-Za-z0-9]*`)
	found := 0
	for _, pkg := range []string{"gd", "ada", "reduce", "son", "oja", "fd", "rp"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					for _, m := range field.FindAllString(lit.Value, -1) {
						found++
						if !mapped[m] {
							t.Errorf("%s: %s in an error has no flag in libraryFields", f, m)
						}
					}
				}
				return true
			})
		}
	}
	if found < 20 {
		t.Errorf("found only %d config fields in the learner packages' strings", found)
	}
	if got := libraryFlags.Replace("Config.Bits 31 out of range 1..30"); got != "-b 31 out of range 1..30" {
		t.Errorf("mapped to %q", got)
	}
}
