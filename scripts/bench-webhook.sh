#!/usr/bin/env bash
# The webhook server under load and attack (BENCHMARKS.md, "The webhook server under traffic"):
# builds webhook-bench in release and runs each scenario against a fresh server process (the
# MyDatabase example's handlers, loopback, TLS), printing one line per run. The memory figures
# are the server process's VmHWM/VmRSS. Needs Go for the net/http client runs (skipped
# without it). QUICK=1 skips the 90 s idle runs; ONLY=convert runs only the /convert lines
# (ConversionReviews of webhook-bench's Cache kind, v1 to v2 and back in turn).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo build --release -p webhook-bench >&2
bench="${CARGO_TARGET_DIR:-$root/target}/release/webhook-bench"
# 1,000 slow connections and 256 loaders need more than a container's usual 1,024 files.
ulimit -n "$(ulimit -Hn)"
go_client="$(scripts/webhook-go-client.sh 2>/dev/null || true)"
echo "# $(date -u +%FT%TZ), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in 1 16 64; do "$bench" convert-load "$c" 10; done
# A list of 100 objects a review, as a LIST at a version other than the stored one asks.
"$bench" convert-load 16 10 100
# Admission requests beside reviews of 2,000 objects (2.6 MB), on both CPUs and on one (a Pod
# with one CPU: tokio then runs one worker).
"$bench" convert-beside 10 2000
if command -v taskset >/dev/null; then taskset -c 0 "$bench" convert-beside 10 2000; fi
if [ "${ONLY:-}" = convert ]; then
  echo "# done, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
for c in 1 16 64 256; do "$bench" load "$c" 10; done
for c in 1 16 64 256; do "$bench" load --new-connections "$c" 10; done
"$bench" big 64 8388000
"$bench" dynamic 1000000
"$bench" dynamic 4000000
"$bench" one-byte 1000000
"$bench" one-byte 1000000 7
"$bench" slow-bodies 1000
# Past the cap of 1,024: slow bodies make room for the probes, oldest first. Beside it,
# controller-runtime's server (no cap) under the same probes.
"$bench" cap-probes 1100 48
cr_server="$(scripts/controller-runtime-webhook.sh 2>/dev/null || true)"
if [ -n "$cr_server" ]; then
  echo "# controller-runtime v0.24.1's webhook server:"
  WEBHOOK_BENCH_SERVER="$cr_server" "$bench" cap-probes 1100 48
fi
# Four 8 MiB reviews in a row, then as before the allocator's thresholds were kept (a
# `glibc.malloc` tunable, glibc's default, makes the server leave them alone).
"$bench" sequential 4 8388000
GLIBC_TUNABLES=glibc.malloc.tcache_count=7 "$bench" sequential 4 8388000
idle_runs=("9980 10020")
if [ "${QUICK:-0}" != 1 ]; then idle_runs+=("89000 89500"); fi
for idle in "${idle_runs[@]}"; do
  # shellcheck disable=SC2086 # two numbers
  "$bench" idle-reuse 400 $idle
  if [ -n "$go_client" ]; then "$bench" go-idle-reuse "$go_client" 400 $idle; fi
done
echo "# done, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
