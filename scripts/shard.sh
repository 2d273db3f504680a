#!/usr/bin/env bash
# Split one data file into N shards for sharded training (README, "Training
# on more than one machine"): line i goes to shard i mod N (round-robin, so
# every shard sees the data's order and mix), each shard gzip'd. Train each
# shard with --total N (scripts/mix.sh and examples/dask_train.py pass it).
#
#   scripts/shard.sh N INPUT PREFIX     →  PREFIX.00.gz … PREFIX.<N-1>.gz
#
# INPUT may be plain, gzip or zstd text (VW or LIBSVM), or - for stdin.
# Uses GNU split's round-robin filter; nothing is held in memory.
set -euo pipefail
if [ $# -ne 3 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  echo "usage: $0 N INPUT PREFIX   (N ≥ 1 shards named PREFIX.00.gz …)" >&2
  exit 2
fi
n=$1 in=$2 prefix=$3
decompress() {
  if [ "$in" = - ]; then gzip -dcf; return; fi
  [ -r "$in" ] || { echo "$0: cannot read $in" >&2; exit 1; }
  if [ "$(head -c4 "$in" | od -An -tx1 | tr -d ' \n')" = 28b52ffd ]; then
    zstd -dc -- "$in"
  else
    gzip -dcf -- "$in"
  fi
}
width=$(( ${#n} > 2 ? ${#n} : 2 ))
decompress | split -n "r/$n" -d -a "$width" --filter='gzip -1 > "$FILE.gz"' - "$prefix."
