package parser

import (
	"fmt"
	"testing"
)

// TestStreamClasses: with Options.Classes, labels must be classes 1..K;
// others are malformed lines with their position, for VW and LIBSVM alike,
// and unlabeled lines pass.
func TestStreamClasses(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.vw", []byte("3 |f a\n0 |f b\n4 |f c\n2.5 |f d\n| e\n2 0.5 'x|f g\n1 1 0.3 |f h\n-1 |f i\n"))
	b := writeFile(t, dir, "b.svm", []byte("1 1:1\n7 2:1\n"))
	got := openAll(t, []string{a, b}, Options{Classes: 3})
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := []ParseError{
		{a, 2, "class label 0 is not in 1..3"},
		{a, 3, "class label 4 is not in 1..3"},
		{a, 4, "class label 2.5 is not in 1..3"},
		{a, 7, "a class label takes no initial prediction (got 0.3)"},
		{a, 8, "class label -1 is not in 1..3"},
		{b, 2, "class label 7 is not in 1..3"},
	}
	if fmt.Sprint(got.errors) != fmt.Sprint(want) {
		t.Fatalf("errors:\n got %v\nwant %v", got.errors, want)
	}
	var labels []string
	for _, ex := range got.examples {
		labels = append(labels, fmt.Sprintf("%v/%v/%v", ex.HasLabel, ex.Label, ex.Weight))
	}
	if fmt.Sprint(labels) != "[true/3/1 false/0/1 true/2/0.5 true/1/1]" {
		t.Fatalf("examples %v", labels)
	}
	// Without Classes the same lines are ordinary labels.
	if got := openAll(t, []string{a}, Options{}); len(got.errors) != 0 {
		t.Fatalf("errors without Classes: %v", got.errors)
	}
}
