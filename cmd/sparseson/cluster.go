package main

import (
	"fmt"

	"github.com/sparseson/sparseson/engine"
	"github.com/spf13/pflag"
)

// clusterFlags are VW's cluster options that mean something to sharded
// training with `sparseson merge` (docs/scaling.md). sparseson has no cluster code: --total tells a learner that
// the data it sees is one of K equal shards of the stream, and --node is
// accepted, checked and otherwise ignored.
type clusterFlags struct {
	total    int
	node     int
	shards   int   // --shards: in-process shard learners
	shardMix int64 // --shard_mix
	warmup   int64 // --shard_warmup
}

func addClusterFlags(fs *pflag.FlagSet, c *clusterFlags) {
	fs.IntVar(&c.total, "total", 1, "the data is one of K equal shards of the stream, trained apart and merged with sparseson merge (VW's name): SON's data-derived ridge counts the evidence the whole stream would have at this point (K times this run's examples); recorded in the model, and merge refuses parts with different K. 1: the whole stream [1..1048576]")
	fs.IntVar(&c.shards, "shards", 1, "train K learners in this process, one per core, each on a round-robin share of the one stream (example i to learner i mod K) with --total K's semantics, and mix them into one model by sparseson merge's rules at the end of every pass (and every --shard_mix examples): iterative parameter mixing. The model is the same whatever the cores and scheduling; -f writes one model (--total K recorded) that loads and predicts like any other. VW has no such option: its --total/--node split the data over machines. Not with -i, --audit, --probabilities, -r under --oaa, --decay_learning_rate or --daemon; -t ignores it (it only predicts). 1: one learner [1..1024]")
	fs.Int64Var(&c.shardMix, "shard_mix", 0, "with --shards K > 1, also mix the K learners every N examples of the stream; 0: only at the end of each pass (mixing often recovers a little accuracy at a large cost in time: every 2,000 examples took 5–10× as long on news20) [0..]")
	fs.Int64Var(&c.warmup, "shard_warmup", engine.DefaultShardWarmup, "with --shards K > 1, one learner of the whole stream learns the first N examples alone, then the K learners start from its state: a data set of at most N examples trains exactly as without --shards (on small sets K learners from the first example cost up to 3 points of accuracy and save well under a second); 0: the K learners start at once [0..]")
	fs.IntVar(&c.node, "node", 0, "this shard's number, 0..K−1 (VW's name): accepted for compatibility and checked against --total; it changes nothing [0..K−1]")
}

// clusterGroup is the --help group of the flags above.
var clusterGroup = struct {
	title string
	names []string
}{"Training on more than one machine (sparseson merge)", []string{"total", "node"}}

// coresGroup is the --help group of the in-process shards.
var coresGroup = struct {
	title string
	names []string
}{"Training on more than one core", []string{"shards", "shard_mix", "shard_warmup"}}

func init() {
	flagGroups = append(flagGroups, clusterGroup, coresGroup)
}

// maxShards bounds --shards: far more learners than cores only costs
// memory (each is a whole model).
const maxShards = 1024

// maxTotal bounds --total (a million shards).
const maxTotal = 1 << 20

func (c *config) validateCluster() error {
	switch k := c.cluster; {
	case k.total < 1 || k.total > maxTotal:
		return fmt.Errorf("--total %d: must be in 1..%d", k.total, maxTotal)
	case k.node < 0 || k.node >= k.total && (c.changed("total") || c.initial == ""):
		return fmt.Errorf("--node %d: must be in 0..%d (--total %d)", k.node, k.total-1, k.total)
	case k.shards < 1 || k.shards > maxShards:
		return fmt.Errorf("--shards %d: must be in 1..%d", k.shards, maxShards)
	case k.shardMix < 0:
		return fmt.Errorf("--shard_mix %d: must be ≥ 0 (0: mix at the end of each pass only)", k.shardMix)
	case k.warmup < 0:
		return fmt.Errorf("--shard_warmup %d: must be ≥ 0 (0: no warm-up)", k.warmup)
	case k.shards > 1 && k.total > 1:
		return fmt.Errorf("--shards %d splits the stream into shards itself; it cannot be combined with --total %d", k.shards, k.total)
	}
	return nil
}
