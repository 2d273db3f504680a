package main

import "testing"

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
