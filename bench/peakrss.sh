#!/usr/bin/env bash
# Peak RSS and CPU time of every learner of the CLI's registry, on every
# input path: a text file, stdin through a pipe, gzip and zstd files, and a
# second run from the example cache. Needs Debian's time (/usr/bin/time)
# and zstd. Usage, from the repository root:
#
#   for i in $(seq 10); do zcat ../shared/data/news20.train.vw.gz; done > /tmp/news20x10.vw
#   bash bench/peakrss.sh /tmp/news20x10.vw > rss.tsv
#
# Multiclass learners (--softmax) read the data with the labels −1 and 1
# mapped to the classes 1 and 2; full ONS (dense d×d, -b 10) reads only the
# first tenth of the lines.
set -euo pipefail
data=${1:?usage: peakrss.sh DATA.vw}
bin=$(mktemp -d)/sparseson
go build -o "$bin" ./cmd/sparseson
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$(dirname "$bin")"' EXIT
prep() { # name file: plain, gzip and zstd copies
	cp "$2" "$tmp/$1.vw"
	gzip -1 -c "$2" > "$tmp/$1.vw.gz"
	zstd -q -f "$2" -o "$tmp/$1.vw.zst"
}
prep bin "$data"
sed -e 's/^-1 /1 /; t; s/^1 /2 /' "$data" > "$tmp/mc.txt"
prep mc "$tmp/mc.txt"
head -n $(( $(wc -l < "$data") / 10 )) "$data" > "$tmp/small.txt"
prep small "$tmp/small.txt"
T=$'%M\t%U\t%e\t%x'
echo -e "learner\tpath\tmaxrss_kB\tuser_s\twall_s\tstatus"
go test -count=1 -run '^TestLearnerRegistry$' -v ./cmd/sparseson | sed -n 's/.*learner \([^|]*\)|\(.*\)$/\1|\2/p' |
while IFS='|' read -r name flags; do
	set=bin
	case " $flags " in
	*" --softmax "*) set=mc ;;
	*" --full "*) set=small ;;
	esac
	d="$tmp/$set.vw"
	for path in file pipe gz zst cache; do
		case $path in
		file) cmd=("$bin" --quiet $flags "$d") ;;
		pipe) cmd=(sh -c "cat $d | $bin --quiet $flags") ;;
		gz) cmd=("$bin" --quiet $flags "$d.gz") ;;
		zst) cmd=("$bin" --quiet $flags "$d.zst") ;;
		cache)
			rm -f "$tmp/c"
			"$bin" --quiet $flags --cache_file "$tmp/c" "$d" > /dev/null 2>&1
			cmd=("$bin" --quiet $flags --cache_file "$tmp/c" "$d") ;;
		esac
		r=$(/usr/bin/time -f "$T" "${cmd[@]}" 2>&1 > /dev/null | tail -1)
		echo -e "$name\t$path\t$r"
	done
done
