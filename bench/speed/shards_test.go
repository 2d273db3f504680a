package speed

import (
	"strings"
	"testing"
)

// TestShardBase: each learner's K = 1 wall is its own base; other K are
// given against it, and nothing against a learner without one.
func TestShardBase(t *testing.T) {
	b := shardBase{}
	for _, tc := range []struct {
		name string
		wall float64
		want string
	}{
		{"AdaGrad K=1", 100, ""},
		{"AdaGrad K=2", 60, "0.60× the wall of K=1"},
		{"oja m=10 K=2", 60, ""},
		{"oja m=10 K=1", 300, ""},
		{"oja m=10 K=4", 150, "0.50× the wall of K=1"},
		{"AdaGrad K=4", 125, "1.25× the wall of K=1"},
		{"fd m=10", 1, ""},
	} {
		if got := b.ratio(tc.name, tc.wall); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var n int
	shardLearners(func(name, bits string, flags ...string) *setting {
		if !strings.Contains(name, " K=") || flags[len(flags)-2] != "--shards" {
			t.Errorf("%s %v: not a --shards setting", name, flags)
		}
		n++
		return &setting{}
	}, &input{})
	if n != 3*len(shardCounts) {
		t.Errorf("%d settings, want %d", n, 3*len(shardCounts))
	}
}
