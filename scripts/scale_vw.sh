#!/usr/bin/env bash
# Multiplies every feature value of a VW text file by K (a bare feature,
# value 1, becomes name:K); labels, tags and namespaces are kept. It makes
# the unit-change data of the README's "Units of the features" checks,
# e.g. raw pixel intensities from [0, 1] features:
#
#   scripts/scale_vw.sh 255 < in.vw > out.vw
#   zcat in.vw.gz | scripts/scale_vw.sh 1/255 | gzip > out.vw.gz
#
# K may be a number or a fraction a/b. A namespace's own scale (|ns:2)
# is left as it is: only the features' values change.
set -euo pipefail
if [ $# -ne 1 ]; then
	echo "usage: $0 K < in.vw > out.vw" >&2
	exit 2
fi
exec awk -v k="$1" '
BEGIN {
	n = split(k, kk, "/")
	if (n == 2) k = kk[1] / kk[2]; else k = k + 0
	if (k == 0) { print "scale_vw: K must be a nonzero number" > "/dev/stderr"; exit 2 }
}
{
	bar = index($0, "|")
	if (bar == 0) { print; next }
	out = substr($0, 1, bar - 1)
	rest = substr($0, bar)
	nt = split(rest, tok, /[ \t]+/)
	for (i = 1; i <= nt; i++) {
		t = tok[i]
		if (t == "") continue
		if (substr(t, 1, 1) != "|") {
			c = match(t, /:[^:]*$/)
			if (c > 0 && substr(t, c + 1) ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
				t = substr(t, 1, c - 1) ":" sprintf("%.10g", substr(t, c + 1) * k)
			else
				t = t ":" sprintf("%.10g", k)
		}
		out = out (i == 1 ? "" : " ") t
	}
	print out
}'
