#!/usr/bin/env bash
# Usage: scripts/scaling_cores.sh SPARSESON_BINARY [DATA_DIR]
#
# Measures training on one machine's cores (docs/scaling.md, "Training on
# more than one core"): --shards K = 1, 2, 4, 8, 16 against one stream for
# the default learner, Oja-SON and FD-SON on news20 repeated N times as text
# (N=32 by default: 362,048 examples), one pass, with the test accuracy of
# each model; then --oaa 20 over GOMAXPROCS = 1 … 16 on 20-class news20
# repeated M times (M=8), printing each model's md5 (the same at every
# GOMAXPROCS). R=N runs every case N times and keeps the least wall time
# (default 1), and each learner also gets a row at K = 16 without the
# warm-up (--shard_warmup 0). DATA_DIR (default ../shared/data) must hold
# news20.{train,test}.vw.gz and news20.train.groups.gz (the 20-class labels:
# the groups numbered 1..20 in alphabetical order, as bench/news20mc does).
set -u
S=$(realpath "$1"); D=$(realpath "${2:-../shared/data}"); T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nproc; uptime
for i in $(seq ${N:-32}); do zcat $D/news20.train.vw.gz; done > $T/n32.vw
zcat $D/news20.train.groups.gz | cut -f1 > $T/g.txt
sort -u $T/g.txt | awk '{ print $0 "\t" NR }' > $T/gid.txt
awk -F'\t' 'NR == FNR { id[$1] = $2; next } { print id[$1] }' $T/gid.txt $T/g.txt > $T/lab.txt
zcat $D/news20.train.vw.gz | cut -d' ' -f2- | paste -d' ' $T/lab.txt - > $T/mc1.vw
 for i in $(seq ${M:-8}); do cat $T/mc1.vw; done > $T/mc8.vw
wc -l $T/n32.vw $T/mc8.vw
acc() { $S --quiet -t -i $1 -p $T/p.txt $D/news20.test.vw.gz 2>/dev/null; zcat $D/news20.test.vw.gz | cut -d' ' -f1 | paste - $T/p.txt | awk '{ if (($1>0) == ($2>0)) c++ } END { printf "%.2f", 100*c/NR }'; }
TIMEFORMAT="%R %U %S"
run() { # name flags...: the least wall time of R runs
  local n=$1 best= bu bs; shift
  for i in $(seq ${R:-1}); do
    { time $S --quiet "$@" -f $T/m.model $T/n32.vw 2>$T/err; } 2>$T/tm || { echo "$n FAILED: $(tail -2 $T/err)"; return; }
    read r u s < $T/tm
    if [ -z "$best" ] || awk "BEGIN{exit !($r < $best)}"; then best=$r bu=$u bs=$s; fi
  done
  printf "%-28s wall %6.2f s  cpu %6.2f s  acc %s\n" "$n" $best $(awk "BEGIN{print $bu+$bs}") "$(acc $T/m.model)"
}
for L in "default:" "oja:--oja" "fd:--fd"; do
  name=${L%%:*}; fl=${L#*:}
  for K in 1 2 4 8 16; do run "$name K=$K" $fl --shards $K; done
  run "$name K=16 w0" $fl --shards 16 --shard_warmup 0
  run "$name one stream" $fl
done
for L in "oaa adagrad:" "oaa oja:--oja"; do
  name=${L%%:*}; fl=${L#*:}
  for P in 1 2 4 8 16; do
    { time GOMAXPROCS=$P $S --quiet --oaa 20 $fl -f $T/o.model $T/mc8.vw 2>$T/err; } 2>$T/tm || echo "FAILED $(tail -1 $T/err)"
    read r u s < $T/tm
    printf "%-20s GOMAXPROCS=%2d wall %6.2f s  cpu %6.2f s  md5 %s\n" "$name" $P $r $(awk "BEGIN{print $u+$s}") $(md5sum < $T/o.model | cut -c1-8)
  done
done
