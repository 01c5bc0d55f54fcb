#!/usr/bin/env bash
# Measures what #[rbac] costs at compile time: a crate with N functions each carrying one
# attribute, against the same crate without the attributes. Dependencies are built first, so
# only the crate itself is timed (best of 3 clean rebuilds of that crate, debug profile).
# Usage: scripts/bench-compile-time.sh [N]   (default 1000)
set -euo pipefail

n="${1:-1000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/target/bench-compile-time"
rm -rf "$work"
mkdir -p "$work"

make_crate() { # name with_attributes
  local dir="$work/$1"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kube-markers = { path = "$root/runtime", default-features = false }
k8s-openapi = { version = "0.29", default-features = false, features = ["std", "latest"] }

[workspace]
TOML
  {
    echo "#![allow(dead_code)]"
    if [ "$2" = yes ]; then echo "use kube_markers::rbac;"; fi
    for i in $(seq 1 "$n"); do
      if [ "$2" = yes ]; then
        echo "#[rbac(groups = \"group$((i % 40)).example.com\", resources = \"resource$i;resource$i/status\", verbs = \"get;list;watch;update;patch\")]"
      fi
      echo "pub async fn reconcile_$i(x: u32) -> u32 { x + $i }"
    done
  } > "$dir/src/lib.rs"
}

time_crate() { # name -> prints best seconds
  local dir="$work/$1" best=""
  (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo build -q) >&2 # dependencies, untimed
  for _ in 1 2 3; do
    (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo clean -q -p "$1") >&2
    local start end t
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo build -q) >&2
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

make_crate with_attrs yes
make_crate without_attrs no
with=$(time_crate with_attrs)
without=$(time_crate without_attrs)
echo "crate with $n #[rbac] functions:    ${with}s"
echo "same crate without the attributes: ${without}s"
echo "cost per attribute:                $(echo "scale=3; ($with - $without) * 1000 / $n" | bc) ms"
