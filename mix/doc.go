// Package mix trains K learners of one kind on K cores of one machine and
// mixes them into one model: iterative parameter mixing (McDonald, Hall
// and Mann, "Distributed Training Strategies for the Structured
// Perceptron", NAACL 2010, Alg. 3 "iterative parameter mixing") inside one
// process.
//
// The stream is split round-robin by the example counter — example i of
// the whole run goes to shard i mod K — never by scheduling, so the split,
// and with it every shard's sequence of examples, is a function of K and
// the data alone. LearnBatch (and Submit, which does not wait for it)
// runs each shard's examples of a batch on a goroutine of the shard's own,
// after its examples of the batches before; at each mixing point (every Config.Every examples of the
// stream, and whenever Mix is called: the end of a pass) the K states are
// merged by the learners' own merge rules (sparse.Merger; the rules are in
// package sparse), with the previous merged state as the base, so that
// what every shard inherited from it is counted once; then every shard
// continues from the merged state. The merge and the copy run between
// batches — the merge on every core by fixed blocks of feature slots whose
// sums are added in block order (sparse.ForBlocks) — so the saved model is
// byte-identical whatever GOMAXPROCS is and however the caller cuts the
// stream into batches. With K = 1 the Mixer is the plain learner: no
// merge, no copy, the same predictions and model bytes.
//
// A warm-up (Config.Warmup) lets one learner of the whole stream take the
// first examples alone; the shards then start from its state, which is
// the base of the first mix. A stream no longer than the warm-up is that
// learner's, exactly: K shards from the first example average models that
// have each seen too little (docs/scaling.md, "The warm-up").
//
// Each shard is a full learner built as one of K shards (son.Config.Total
// = K, the command's --total K): SON's data-derived ridge then counts the
// evidence of the whole stream. A learner that cannot be merged (full ONS,
// whose A_t is a dense d×d matrix; gd's NASA steps, whose per-feature
// state is a running mean) is refused by New with K > 1.
//
// What a mix costs: the merge visits every feature of every shard (its
// union, then per feature the K parts; on every core since the blocks
// above, the figures below are from the serial merge), and the copy saves
// the merge once and loads it into the K shards in parallel. On news20 ×10
// (113,140 examples, ~100k features seen) with K = 2, one mix took 35–50
// ms (default learner), 100–290 ms (Oja-SON m = 10) and 140–240 ms (FD-SON
// m = 10) to merge, and 7–17, 21–70 and 28–250 ms to copy (2.5, 9.5 and 17
// MB saved), on a shared 2-core machine: about the time the learner takes
// for 10,000–20,000 examples. Mixing only at the end of each pass
// (Every = 0) kept the test accuracy within 0.2 points of one stream
// there; mixing every 2,000 examples recovered the last 0.1–0.2 points at
// 5–10 times the training time. For SON shards with a data-derived ridge
// (Total = K), merging the first round ByExamples (the average of the
// shards' models, as the command's merge does for --total K parts) gave
// 94.49% (Oja) and 94.48% (FD) against 94.03% and 93.81% for one stream.
//
// Memory: K shards, plus the merged state kept as the next round's base,
// plus, during a mix, the merge target and its saved bytes — about K + 2
// models at the peak, K + 1 between mixes.
package mix
