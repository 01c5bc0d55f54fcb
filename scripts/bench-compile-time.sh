#!/usr/bin/env bash
# Measures what the attributes cost at compile time, each against the same crate without them:
# - #[rbac]: a crate with N functions each carrying one attribute;
# - #[webhook]: a crate with N unit structs each carrying one (ten keys, as in the examples);
# - #[k8s]: a crate of 20 CRDs of 50 fields, #[kube_markers::crd] on each spec and one #[k8s]
#   marker on every field, against the same CRDs (kube's derive, schemars) without them.
# Dependencies are built first, so only the crate itself is timed (best of 3 clean rebuilds of
# that crate, debug profile, in a workspace of its own: no profile settings of this one).
# Usage: scripts/bench-compile-time.sh [N]   (default 1000)
# KUBE_MARKERS=<checkout> measures another checkout's attributes (an earlier commit exported with
# `git archive`, say) with the same crates and the same built dependencies.
set -euo pipefail

n="${1:-1000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
km="${KUBE_MARKERS:-$root}"
work="$root/target/bench-compile-time"
# The crates are written afresh; the dependencies built by an earlier run are kept.
mkdir -p "$work"
find "$work" -mindepth 1 -maxdepth 1 ! -name target -exec rm -rf {} +

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
kube-markers = { path = "$km/runtime", default-features = false }
k8s-openapi = { version = "0.29", default-features = false, features = ["std", "latest", "schemars"] }
kube = { version = "5.0.0", default-features = false, features = ["derive"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"

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
  (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo build -q) >&2 || return 1 # dependencies, untimed
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

# 20 CRDs of 50 fields; with markers: #[kube_markers::crd] and a #[k8s] on every field.
crds=20
fields=50
make_crd_crate() { # name with_markers
  make_crate "$1" no
  {
    echo "#![allow(dead_code)]"
    echo "use kube::CustomResource;"
    echo "use schemars::JsonSchema;"
    echo "use serde::{Deserialize, Serialize};"
    for c in $(seq 1 "$crds"); do
      if [ "$2" = yes ]; then echo "#[kube_markers::crd]"; fi
      echo "#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]"
      echo "#[kube(group = \"bench.example.com\", version = \"v1\", kind = \"Kind$c\", namespaced)]"
      echo "pub struct Kind${c}Spec {"
      for f in $(seq 1 "$fields"); do
        case $((f % 5)) in
          0) marker='#[k8s(minimum = 0, maximum = 100)]'; ty=i32 ;;
          1) marker='#[k8s(max_length = 63, pattern = "^[a-z0-9-]+$")]'; ty=String ;;
          2) marker='#[k8s(max_items = 10)]'; ty='Vec<String>' ;;
          3) marker='#[k8s(minimum = 0)]'; ty='Option<i64>' ;;
          *) marker='#[k8s(min_length = 1)]'; ty=String ;;
        esac
        if [ "$2" = yes ]; then echo "    $marker"; fi
        echo "    pub field_$f: $ty,"
      done
      echo "}"
    done
  } > "$work/$1/src/lib.rs"
}

# N unit structs, with or without a #[webhook] of ten keys on each.
make_webhook_crate() { # name with_attributes
  make_crate "$1" no
  {
    echo "#![allow(dead_code)]"
    for i in $(seq 1 "$n"); do
      if [ "$2" = yes ]; then
        echo "#[kube_markers::webhook(name = \"v$i.bench.example.com\", mutating = false, path = \"/validate-$i\", failure_policy = \"Fail\", side_effects = \"None\", groups = \"bench.example.com\", resources = \"kind${i}s\", verbs = \"create;update\", versions = \"v1\", admission_review_versions = \"v1\")]"
      fi
      echo "pub struct Webhook$i;"
    done
  } > "$work/$1/src/lib.rs"
}

make_crate with_attrs yes
make_crate without_attrs no
make_webhook_crate webhooks_with yes
make_webhook_crate webhooks_without no
make_crd_crate crds_with_markers yes
make_crd_crate crds_without_markers no
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
with=$(time_crate with_attrs) || exit 1
without=$(time_crate without_attrs) || exit 1
webhook_with=$(time_crate webhooks_with) || exit 1
webhook_without=$(time_crate webhooks_without) || exit 1
crd_with=$(time_crate crds_with_markers) || exit 1
crd_without=$(time_crate crds_without_markers) || exit 1
markers=$((crds * fields))
echo "crate with $n #[rbac] functions:    ${with}s"
echo "same crate without the attributes: ${without}s"
echo "cost per #[rbac]:                  $(echo "scale=3; ($with - $without) * 1000 / $n" | bc) ms"
echo "crate with $n #[webhook] structs:   ${webhook_with}s"
echo "same crate without the attributes: ${webhook_without}s"
echo "cost per #[webhook]:               $(echo "scale=3; ($webhook_with - $webhook_without) * 1000 / $n" | bc) ms"
echo "$crds CRDs x $fields fields with #[crd] and a #[k8s] per field: ${crd_with}s"
echo "same CRDs without them:                               ${crd_without}s"
echo "cost per #[k8s] (the 20 #[crd]s included):            $(echo "scale=3; ($crd_with - $crd_without) * 1000 / $markers" | bc) ms"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
