package speed

import (
	"fmt"
	"strings"
)

// shardCounts are the --shards K the shards set times. The machine's
// cores bound what K can gain: the parser shares them with the K
// learners, so K above the cores only adds merging.
var shardCounts = []string{"1", "2", "4"}

// shardLearners adds the default learner, Oja-SON and FD-SON at m = 10,
// each with --shards K for every K of shardCounts, reading in as text.
func shardLearners(add func(name, bits string, flags ...string) *setting, in *input) {
	learners := []struct {
		name  string
		flags []string
	}{{"AdaGrad", nil}, {"oja m=10", []string{"--oja", "-m", "10"}}, {"fd m=10", []string{"--fd", "-m", "10"}}}
	for _, l := range learners {
		for _, k := range shardCounts {
			flags := append(append([]string(nil), l.flags...), "--shards", k)
			add(l.name+" K="+k, "18", flags...).in = in
		}
	}
}

// shardBase remembers each learner's wall ns/example with one stream
// (K = 1) to give the others' ratio.
type shardBase map[string]float64

// ratio records name's wall time if it is a K = 1 setting and returns,
// for the others, its wall time against its learner's K = 1.
func (b shardBase) ratio(name string, wall float64) string {
	learner, k, ok := strings.Cut(name, " K=")
	if !ok {
		return ""
	}
	if k == "1" {
		b[learner] = wall
		return ""
	}
	if w := b[learner]; w > 0 {
		return fmt.Sprintf("%.2f× the wall of K=1", wall/w)
	}
	return ""
}
