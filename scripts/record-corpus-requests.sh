#!/usr/bin/env bash
# Records what one operator of tests/fixtures/calls-corpus really requests of kube-apiserver
# 1.37.2, into tests/fixtures/calls-corpus/<operator>/recorded.txt (which
# generator/src/check/calls/corpus_tests.rs holds the call analysis to, offline).
#
#   scripts/record-corpus-requests.sh OPERATOR CHECKOUT
#
# OPERATOR is one of the corpus' directories; CHECKOUT a git checkout of its repository at the
# commit pinned below (the script refuses any other commit or a modified tree), outside any
# Cargo workspace (cargo would take it for a member of one: /tmp/..., not this repository's
# target/). The operator is built unmodified, with its own Cargo.lock (`cargo build --locked`,
# from the crates registry; kube-rs/kube commits none: the one kept beside its recording) into target/corpus/target-<operator>/ (its logs in logs/ there), then run by
# envtest/tests/record_requests.rs (kube-apiserver + etcd from scripts/envtest-assets.sh, an
# audit log, the operator's ServiceAccount allowed everything) through the scenario
# scripts/record-corpus-requests/<operator>.sh, which starts it, creates, updates and deletes
# the objects it reconciles, and stops it.
#
# Never run by CI: CI reaches no repository host and cannot afford to build four operators.
# Run once per operator when its commit or the scenario changes; commit recorded.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
operator="${1:?usage: $0 OPERATOR CHECKOUT}"
checkout="$(cd "${2:?usage: $0 OPERATOR CHECKOUT}" && pwd)"

# The pinned commits (tests/fixtures/calls-corpus/README.md) and what each build makes.
package_dir=.
case "$operator" in
  controller-rs)
    repo=https://github.com/kube-rs/controller-rs
    commit=7430c870fe304d9ac22d90186809081654771a84
    build=(--bin controller) ;;
  version-rs)
    repo=https://github.com/kube-rs/version-rs
    commit=2216252fd90735b1411274352736b97f70a719fe
    build=(--bin version) ;;
  kube-examples)
    repo=https://github.com/kube-rs/kube
    commit=ac95b1999a549bb41aa9e467410f6d97c09341c2
    # The corpus' 22 examples (dynamic_api built too, though the scenario leaves it out).
    build=(-p kube-examples)
    for f in "$root"/tests/fixtures/calls-corpus/kube-examples/examples/*.rs; do
      build+=(--example "$(basename "$f" .rs)")
    done ;;
  sart)
    repo=https://github.com/terassyi/sart
    commit=82d8bbeb0224e43cc80a03e6198a98226d2ede47
    # Its package is sartd/; it cannot be built from the crates registry alone (git
    # dependencies on github.com), so it has no scenario yet: see the corpus README.
    package_dir=sartd
    build=(--bin sartd) ;;
  *) echo "$0: unknown operator $operator (controller-rs, version-rs, kube-examples, sart)" >&2; exit 2 ;;
esac

head="$(git -C "$checkout" rev-parse HEAD)"
if [ "$head" != "$commit" ]; then
  echo "$0: $checkout is at $head, not $operator's pinned $commit" >&2
  exit 1
fi
if [ -n "$(git -C "$checkout" status --porcelain --untracked-files=no)" ]; then
  echo "$0: $checkout has local changes; the operator is recorded unmodified" >&2
  exit 1
fi

# The operator's own toolchain file wins if it has one; else this repository's pin.
export RUSTUP_TOOLCHAIN="${RUSTUP_TOOLCHAIN:-$(sed -n 's/^channel = "\(.*\)"/\1/p' "$root/rust-toolchain.toml")}"
# A library (kube-rs/kube) commits no Cargo.lock: the one its first recording resolved is kept
# beside the recording, and used again, so that every recording builds the same versions.
kept_lock="$root/tests/fixtures/calls-corpus/$operator/Cargo.lock"
if ! git -C "$checkout/$package_dir" ls-files --error-unmatch Cargo.lock >/dev/null 2>&1; then
  if [ -f "$kept_lock" ]; then
    cp "$kept_lock" "$checkout/$package_dir/Cargo.lock"
  else
    (cd "$checkout/$package_dir" && cargo generate-lockfile)
    cp "$checkout/$package_dir/Cargo.lock" "$kept_lock"
  fi
fi
target="$root/target/corpus/target-$operator"
echo "building $repo at $commit with $(rustc --version) into $target ..." >&2
(cd "$checkout/$package_dir" && CARGO_TARGET_DIR="$target" nice -n 10 cargo build --locked "${build[@]}")
scenario="$root/scripts/record-corpus-requests/$operator.sh"
[ -f "$scenario" ] || { echo "$0: no scenario $scenario" >&2; exit 2; }

export OPERATOR_SRC="$checkout" OPERATOR_TARGET="$target/debug" RECORD_LOGS="$target/logs"
mkdir -p "$RECORD_LOGS"
export RECORD_SCENARIO="$scenario"
export RECORD_OUT="$root/tests/fixtures/calls-corpus/$operator/recorded.txt"
export RECORD_HEADER="What $repo requests, at commit $commit,
built unmodified with $( [ -f "$kept_lock" ] && echo "the Cargo.lock kept beside this file" || echo "its Cargo.lock") ($(rustc --version)), recorded by
  scripts/record-corpus-requests.sh $operator CHECKOUT
Scenario: scripts/record-corpus-requests/$operator.sh: $(sed -n 's/^# Scenario: //p' "$scenario")."
cd "$root"
unset RUSTUP_TOOLCHAIN
nice -n 10 cargo test -p kube-markers-envtest --test record_requests -- --ignored --nocapture
