#!/usr/bin/env bash
# The news20 figures of README, "Training on more than one machine": one
# stream against 4 shards merged once and after 3 rounds of parameter
# mixing (GNU parallel and Dask, which pass --total 4 to the shards), for
# AdaGrad, Oja-SON and FD-SON, with
# test accuracies, wall and CPU times and the load average.
#
#   scripts/bench_merge.sh SPARSESON DATA_DIR WORK_DIR
#
# DATA_DIR holds news20.{train,test}.vw.gz (../shared/data); everything is
# written under WORK_DIR. Needs GNU parallel and Python with Dask's
# distributed scheduler (/usr/bin/python3, or $PYTHON).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 SPARSESON DATA_DIR WORK_DIR" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1") data=$(realpath "$2")
mkdir -p "$3" && cd "$3"
py=${PYTHON:-/usr/bin/python3}
acc() { "$bin" -t -i "$1" --binary "$data/news20.test.vw.gz" 2>&1 | awk '/^average loss/{printf "%.2f%%", 100*(1-$4)}'; }
t() { /usr/bin/time -f "$1: %e s wall, %U s user, %S s sys, %M KB max RSS" "${@:2}"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$repo/scripts/shard.sh" 4 "$data/news20.train.vw.gz" n20
zcat "$data/news20.train.vw.gz" > train.vw
for name in adagrad oja fd; do
  case $name in adagrad) fl=() ;; oja) fl=(--oja -m 10) ;; fd) fl=(--fd -m 10) ;; esac
  fl+=(--loss_function logistic)
  echo "=== $name: ${fl[*]}"
  t "one stream" "$bin" --quiet "${fl[@]}" -f one.$name.model "$data/news20.train.vw.gz"
  echo "one stream, one pass: $(acc one.$name.model)"
  for p in 2 3; do
    "$bin" --quiet "${fl[@]}" --passes $p -c -k --holdout_off -f pass$p.$name.model train.vw
    echo "one stream, $p passes: $(acc pass$p.$name.model)"
  done
  t "mix.sh, 3 rounds" "$repo/scripts/mix.sh" -o mix3.$name.model -r 3 -j 4 -b "$bin" -w w.$name n20.0?.gz -- "${fl[@]}"
  echo "one shard alone: $(acc w.$name/r1.1.model)"
  echo "4 shards merged (merge's default: by examples for SON with --total): $(acc w.$name/r1.model)"
  "$bin" merge --quiet --weighting evidence -o ev.$name.model w.$name/r1.?.model
  echo "4 shards merged (evidence): $(acc ev.$name.model)"
  "$bin" merge --quiet --weighting examples -o ex.$name.model w.$name/r1.?.model
  echo "4 shards merged (examples): $(acc ex.$name.model)"
  echo "after round 2: $(acc w.$name/r2.model)"
  echo "after round 3: $(acc mix3.$name.model)"
  t "merge of 4 models" "$bin" merge --quiet -o m.$name.model w.$name/r1.?.model
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  for r in 1 3; do
    t "dask, 4 workers, $r round(s)" "$py" "$repo/examples/dask_train.py" --local 4 --rounds $r --sparseson "$bin" -o dask$r.$name.model n20.0?.gz -- "${fl[@]}"
    echo "dask, $r round(s): $(acc dask$r.$name.model)"
  done
done
for name in oja fd; do
  fl=(--$name -m 10 --alpha 15 --loss_function logistic)
  "$bin" --quiet "${fl[@]}" -f a15.$name.model "$data/news20.train.vw.gz"
  "$repo/scripts/mix.sh" -o m15.$name.model -r 1 -j 4 -b "$bin" n20.0?.gz -- "${fl[@]}" 2>/dev/null
  echo "${fl[*]}: one stream $(acc a15.$name.model), 4 shards merged $(acc m15.$name.model)"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
