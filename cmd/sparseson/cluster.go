package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// clusterFlags are VW's cluster options that mean something to sharded
// training with `sparseson merge` (docs/scaling.md). sparseson has no cluster code: --total tells a learner that
// the data it sees is one of K equal shards of the stream, and --node is
// accepted, checked and otherwise ignored.
type clusterFlags struct {
	total int
	node  int
}

func addClusterFlags(fs *pflag.FlagSet, c *clusterFlags) {
	fs.IntVar(&c.total, "total", 1, "the data is one of K equal shards of the stream, trained apart and merged with sparseson merge (VW's name): SON's data-derived ridge counts the evidence the whole stream would have at this point (K times this run's examples); recorded in the model, and merge refuses parts with different K. 1: the whole stream [1..1048576]")
	fs.IntVar(&c.node, "node", 0, "this shard's number, 0..K−1 (VW's name): accepted for compatibility and checked against --total; it changes nothing [0..K−1]")
}

// clusterGroup is the --help group of the flags above.
var clusterGroup = struct {
	title string
	names []string
}{"Training on more than one machine (sparseson merge)", []string{"total", "node"}}

func init() {
	flagGroups = append(flagGroups, clusterGroup)
}

// maxTotal bounds --total (a million shards).
const maxTotal = 1 << 20

func (c *config) validateCluster() error {
	switch k := c.cluster; {
	case k.total < 1 || k.total > maxTotal:
		return fmt.Errorf("--total %d: must be in 1..%d", k.total, maxTotal)
	case k.node < 0 || k.node >= k.total && (c.changed("total") || c.initial == ""):
		return fmt.Errorf("--node %d: must be in 0..%d (--total %d)", k.node, k.total-1, k.total)
	}
	return nil
}
