#!/usr/bin/env bash
# Sharded training with GNU parallel, and iterative parameter mixing over
# several rounds (README, "Training on more than one machine"):
#
#   round 1:   train every shard from scratch, one pass each, in parallel,
#              with --total K (K = the number of shards); merge the models
#              (sparseson merge)
#   round r:   train every shard one pass from the last merged model (-i);
#              merge with it as the base        (sparseson merge --base)
#
# One round is the one-shot merge; R rounds are R passes over the data
# (McDonald, Hall and Mann, "Distributed training strategies for the
# structured perceptron", NAACL 2010). The scheduling is GNU parallel's,
# on this machine or on others over ssh; this script only orders the
# rounds.
#
#   scripts/mix.sh -o OUT [-r ROUNDS] [-j JOBS] [-S SSHLOGINS] [-w DIR]
#                  [-b SPARSESON] [-k] SHARD... -- TRAINING FLAGS...
#
#   -o OUT        the merged model (required)
#   -r ROUNDS     rounds of parameter mixing (default 1)
#   -j JOBS       jobs at once per machine (GNU parallel's -j; default: one
#                 per CPU core)
#   -S LOGINS     run the shards on these machines (GNU parallel's
#                 --sshlogin, e.g. 8/node1,8/node2 or : for this one); every
#                 machine must see this directory, the shards and the
#                 binary at the same paths (a shared file system), and the
#                 merge runs here
#   -w DIR        keep the per-round models in DIR (default: a temporary
#                 directory, removed at the end)
#   -b SPARSESON  the binary (default: sparseson in PATH)
#   -k            keep the per-round models even in the temporary directory
#
# Example: 4 shards of news20, 3 rounds of FD-SON on one machine:
#
#   scripts/shard.sh 4 news20.train.vw.gz /tmp/n20
#   scripts/mix.sh -o n20.model -r 3 -j 4 /tmp/n20.*.gz -- --fd -m 10 --loss_function logistic
set -euo pipefail

usage() {
  sed -n '/^#   scripts\/mix.sh/,/^#   -k/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
out= rounds=1 jobs= logins= work= bin= keep=
while getopts "o:r:j:S:w:b:kh" opt; do
  case $opt in
    o) out=$OPTARG ;;
    r) rounds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    S) logins=$OPTARG ;;
    w) work=$OPTARG ;;
    b) bin=$OPTARG ;;
    k) keep=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
shards=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do shards+=("$1"); shift; done
[ $# -gt 0 ] && shift # the --
flags=("$@")
[ -n "$out" ] && [ ${#shards[@]} -gt 0 ] || usage
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$0: -r wants a positive number of rounds, got '$rounds'" >&2; exit 2; }
command -v parallel >/dev/null || { echo "$0: GNU parallel is not installed (Debian: apt-get install parallel)" >&2; exit 1; }
bin=${bin:-$(command -v sparseson || true)}
[ -n "$bin" ] && [ -x "$bin" ] || { echo "$0: no sparseson binary (build it with go build ./cmd/sparseson and pass -b)" >&2; exit 1; }
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }
bin=$(abs "$bin")
for i in "${!shards[@]}"; do
  [ -r "${shards[$i]}" ] || { echo "$0: cannot read shard ${shards[$i]}" >&2; exit 1; }
  shards[$i]=$(abs "${shards[$i]}")
done
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/sparseson-mix.XXXXXX")
  [ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(abs "$work")

par=(parallel --quote --halt now,fail=1)
[ -n "$jobs" ] && par+=(-j "$jobs")
[ -n "$logins" ] && par+=(--sshlogin "$logins" --workdir .)

prev=
for ((r = 1; r <= rounds; r++)); do
  start=$(date +%s.%N)
  init=()
  [ -n "$prev" ] && init=(-i "$prev")
  # {#} is the job's number: shard k's model of round r is r<r>.<k>.model.
  # --total: each shard is one of ${#shards[@]} (before the user's flags,
  # which may override it); in round 2+ it says that what a shard adds to
  # the merged model it starts from is one K-th of the stream's pass.
  "${par[@]}" "$bin" --total "${#shards[@]}" "${flags[@]}" --quiet "${init[@]}" -f "$work/r$r.{#}.model" {} ::: "${shards[@]}"
  models=()
  for ((k = 1; k <= ${#shards[@]}; k++)); do models+=("$work/r$r.$k.model"); done
  dest=$work/r$r.model
  [ "$r" -eq "$rounds" ] && dest=$out
  base=()
  [ -n "$prev" ] && base=(--base "$prev")
  "$bin" merge --quiet "${base[@]}" -o "$dest" "${models[@]}"
  awk -v r="$r" -v k="${#shards[@]}" -v a="$start" -v b="$(date +%s.%N)" \
    'BEGIN { printf "round %d: %d shards trained and merged in %.2f s\n", r, k, b - a }' >&2
  prev=$dest
done
