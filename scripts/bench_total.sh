#!/usr/bin/env bash
# The --total table of README, "Training on more than one machine": on each
# shared binary set, one stream against 4 round-robin shards trained one
# pass each and merged once — without --total (merge's default, by
# evidence), and with --total 4 (merge's default for SON: the average of
# the parts' models; and by evidence, for comparison) — for AdaGrad,
# Oja-SON and FD-SON (m = 10), logistic loss, test accuracy with --binary;
# then 3 rounds of parameter mixing on each set (scripts/mix.sh), with
# --total 4 (what mix.sh passes) and with --total 1.
#
#   scripts/bench_total.sh SPARSESON DATA_DIR WORK_DIR [SET...]
#
# DATA_DIR holds NAME.{train,test}.vw.gz (../shared/data); the sets default
# to news20 w8a spam letter_am satellite_grey splice. Needs GNU parallel.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SPARSESON DATA_DIR WORK_DIR [SET...]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1") data=$(realpath "$2")
mkdir -p "$3" && cd "$3"
shift 3
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(news20 w8a spam letter_am satellite_grey splice)
acc() { "$bin" -t -i "$1" --binary "$data/$2.test.vw.gz" 2>&1 | awk '/^average loss/{printf "%.2f", 100*(1-$4)}'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf "%-15s %-8s %7s %12s %12s %12s\n" set learner one "no --total" "--total 4" "(evidence)"
for s in "${sets[@]}"; do
  "$repo/scripts/shard.sh" 4 "$data/$s.train.vw.gz" "$s"
  for name in adagrad oja fd; do
    case $name in adagrad) fl=() ;; oja) fl=(--oja -m 10) ;; fd) fl=(--fd -m 10) ;; esac
    fl+=(--loss_function logistic)
    "$bin" --quiet "${fl[@]}" -f "one.$s.$name.model" "$data/$s.train.vw.gz"
    for k in 1 4; do
      parallel --halt now,fail=1 "$bin" --quiet "${fl[@]}" --total $k -f "k$k.$s.$name.{#}.model" {} ::: "$s".0?.gz
      "$bin" merge --quiet -o "k$k.$s.$name.model" "k$k.$s.$name".?.model
    done
    "$bin" merge --quiet --weighting evidence -o "ev.$s.$name.model" "k4.$s.$name".?.model
    printf "%-15s %-8s %7s %12s %12s %12s\n" "$s" $name "$(acc one.$s.$name.model $s)" \
      "$(acc k1.$s.$name.model $s)" "$(acc k4.$s.$name.model $s)" "$(acc ev.$s.$name.model $s)"
  done
done
for s in "${sets[@]}"; do
  for name in adagrad oja fd; do
    case $name in adagrad) fl=() ;; oja) fl=(--oja -m 10) ;; fd) fl=(--fd -m 10) ;; esac
    fl+=(--loss_function logistic)
    # mix.sh passes --total 4; a --total among the training flags, which
    # come after it, overrides it.
    for k in 4 1; do
      "$repo/scripts/mix.sh" -o "mix.$s.$name.k$k.model" -r 3 -j 2 -b "$bin" -w "w.$s.$name.k$k" "$s".0?.gz -- "${fl[@]}" --total $k 2>/dev/null
      echo "$s $name, 3 rounds of mixing, --total $k: $(acc w.$s.$name.k$k/r1.model $s), $(acc w.$s.$name.k$k/r2.model $s), $(acc mix.$s.$name.k$k.model $s)"
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
