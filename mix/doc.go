// Package mix trains K learners of one kind on K cores of one machine and
// mixes them into one model: iterative parameter mixing (McDonald, Hall
// and Mann, "Distributed Training Strategies for the Structured
// Perceptron", NAACL 2010, Alg. 3 "iterative parameter mixing") inside one
// process.
//
// The stream is split round-robin by the example counter — example i of
// the whole run goes to shard i mod K — never by scheduling, so the split,
// and with it every shard's sequence of examples, is a function of K and
// the data alone. LearnBatch runs each shard's examples of a batch on its
// own goroutine; at each mixing point (every Config.Every examples of the
// stream, and whenever Mix is called: the end of a pass) the K states are
// merged by the learners' own merge rules (sparse.Merger; the rules are in
// package sparse), with the previous merged state as the base, so that
// what every shard inherited from it is counted once; then every shard
// continues from the merged state. The merge and the copy run on the
// caller's goroutine, between batches, so the saved model is byte-identical
// whatever GOMAXPROCS is and however the caller cuts the stream into
// batches. With K = 1 the Mixer is the plain learner: no merge, no copy,
// the same predictions and model bytes.
//
// Each shard is a full learner built as one of K shards (son.Config.Total
// = K, the command's --total K): SON's data-derived ridge then counts the
// evidence of the whole stream. A learner that cannot be merged (full ONS,
// whose A_t is a dense d×d matrix; gd's NASA steps, whose per-feature
// state is a running mean) is refused by New with K > 1.
//
// Memory: K shards, plus the merged state kept as the next round's base,
// plus, during a mix, the merge target and its saved bytes — about K + 2
// models at the peak, K + 1 between mixes.
package mix
