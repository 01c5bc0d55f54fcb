#!/usr/bin/env bash
# `check-crds` over Gateway API v1.6.1's standard and experimental CRDs (the committed
# cel/tests/data/gateway-api-v1.6.1): wall time and peak resident memory of the whole process
# (start, read and parse the YAML, every check, print), per run, and their median.
#
#   scripts/bench-check-crds.sh [release|debug] [runs] [-- extra check-crds arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
profile=${1:-release}
runs=${2:-11}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
flag=$([ "$profile" = release ] && echo --release || true)
cargo build -q -p codegen $flag
bin=target/$profile/codegen
input=cel/tests/data/gateway-api-v1.6.1

"$bin" check-crds "$input" "$@" >/dev/null # warm the page cache
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for _ in $(seq "$runs"); do
  /usr/bin/time -f '%e %M' -a -o "$results" "$bin" check-crds "$input" "$@" >/dev/null
done
sort -n "$results" | awk -v p="$profile" '
  { wall[NR] = $1; rss[NR] = $2 }
  END {
    m = int((NR + 1) / 2)
    printf "check-crds %s, %d runs: wall median %.3f s (min %.3f, max %.3f), peak RSS median %.1f MB\n",
      p, NR, wall[m], wall[1], wall[NR], rss[m] / 1024
  }'
