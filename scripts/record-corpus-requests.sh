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
# from the crates registry; kube-rs/kube commits none: the one kept beside its recording; a
# `cargo update --precise` named below where an old lock does not compile with this toolchain,
# named in the recording's header and undone after) into $RECORD_TARGET, by default
# target/corpus/target-<operator>/ (its logs in logs/ there), then run by
# envtest/tests/record_requests.rs (kube-apiserver + etcd from scripts/envtest-assets.sh, an
# audit log, the operator's ServiceAccount allowed everything) through the scenario
# scripts/record-corpus-requests/<operator>.sh, which starts it, creates, updates and deletes
# the objects it reconciles, and stops it.
#
# A lock's git dependencies come from local copies of their repositories, in $RECORD_GIT_MIRRORS
# (below); sart's build also needs protoc (Debian: protobuf-compiler).
#
# Never run by CI: CI reaches no repository host and cannot afford to build four operators.
# Run once per operator when its commit or the scenario changes; commit recorded.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
operator="${1:?usage: $0 OPERATOR CHECKOUT}"
checkout="$(cd "${2:?usage: $0 OPERATOR CHECKOUT}" && pwd)"

# The pinned commits (tests/fixtures/calls-corpus/README.md) and what each build makes.
package_dir=.
needs_protoc=0
lock_updates=()
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
    # Its package is sartd/ (the [target] linker table of its Cargo.toml, clang + mold, is no
    # cargo config: cargo warns "unused manifest key" and links with cc). Two git dependencies
    # (RECORD_GIT_MIRRORS, below); its gRPC crate's build script runs protoc.
    package_dir=sartd
    build=(--bin sartd --bin crdgen)
    needs_protoc=1
    # time 0.3.30 does not compile on rustc >= 1.80 (E0282 in its format_description parser,
    # fixed in 0.3.35); the lock's only change, undone after the build.
    lock_updates=("time --precise 0.3.36") ;;
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

# Git dependencies of the lock (`source = "git+https://github.com/OWNER/NAME?...#COMMIT"`): this
# machine reaches package registries only, so each is fetched from a local copy of its repository,
# $RECORD_GIT_MIRRORS/OWNER+NAME/repo or $RECORD_GIT_MIRRORS/OWNER+NAME (a bare or plain git
# directory holding the commit the lock pins), through git's url.<local>.insteadOf; the lock is
# unchanged and `--locked` holds.
git_deps="$(sed -n 's|^source = "git+https://github.com/\([^/?#]*\)/\([^/?#]*\)[?#].*#\([0-9a-f]\{40\}\)"$|\1 \2 \3|p' "$checkout/$package_dir/Cargo.lock" | sort -u)"
if [ -n "$git_deps" ]; then
  if [ -z "${RECORD_GIT_MIRRORS:-}" ]; then
    echo "$0: $operator's Cargo.lock has git dependencies ($(echo "$git_deps" | awk '{printf "%s/%s ", $1, $2}')): set RECORD_GIT_MIRRORS to a directory of their repositories, OWNER+NAME/repo or OWNER+NAME" >&2
    exit 1
  fi
  n=0
  while read -r owner name rev; do
    mirror=""
    for m in "$RECORD_GIT_MIRRORS/$owner+$name/repo" "$RECORD_GIT_MIRRORS/$owner+$name"; do
      if git -C "$m" rev-parse --git-dir >/dev/null 2>&1; then mirror="$(cd "$m" && pwd)"; break; fi
    done
    [ -n "$mirror" ] || { echo "$0: no repository for the git dependency github.com/$owner/$name in $RECORD_GIT_MIRRORS (OWNER+NAME/repo or OWNER+NAME)" >&2; exit 1; }
    git -C "$mirror" cat-file -e "$rev^{commit}" 2>/dev/null \
      || { echo "$0: $mirror lacks commit $rev, which $operator's Cargo.lock pins for github.com/$owner/$name" >&2; exit 1; }
    export "GIT_CONFIG_KEY_$n=url.file://$mirror.insteadOf" "GIT_CONFIG_VALUE_$n=https://github.com/$owner/$name"
    n=$((n + 1))
  done <<<"$git_deps"
  export GIT_CONFIG_COUNT=$n CARGO_NET_GIT_FETCH_WITH_CLI=true
fi
if [ "$needs_protoc" = 1 ] && ! command -v "${PROTOC:-protoc}" >/dev/null; then
  echo "$0: $operator's build runs protoc: put it on PATH or set PROTOC (Debian: apt-get install protobuf-compiler)" >&2
  exit 1
fi
# The lock changes an operator needs to compile with this toolchain, undone when the script ends.
lock_note=""
if [ "${#lock_updates[@]}" -gt 0 ]; then
  trap 'git -C "$checkout/$package_dir" checkout -- Cargo.lock' EXIT
  for update in "${lock_updates[@]}"; do
    # shellcheck disable=SC2086 # "PACKAGE --precise VERSION", split on purpose
    (cd "$checkout/$package_dir" && cargo update -p $update)
    lock_note+="${lock_note:+, }\`cargo update -p $update\`"
  done
fi
target="${RECORD_TARGET:-$root/target/corpus/target-$operator}"
echo "building $repo at $commit with $(rustc --version) into $target ..." >&2
(cd "$checkout/$package_dir" && CARGO_TARGET_DIR="$target" nice -n 10 cargo build --locked "${build[@]}")
scenario="$root/scripts/record-corpus-requests/$operator.sh"
[ -f "$scenario" ] || { echo "$0: no scenario $scenario" >&2; exit 2; }

export OPERATOR_SRC="$checkout" OPERATOR_TARGET="$target/debug" RECORD_LOGS="$target/logs"
mkdir -p "$RECORD_LOGS"
export RECORD_SCENARIO="$scenario"
export RECORD_OUT="$root/tests/fixtures/calls-corpus/$operator/recorded.txt"
export RECORD_HEADER="What $repo requests, at commit $commit,
built unmodified with $( [ -f "$kept_lock" ] && echo "the Cargo.lock kept beside this file" || echo "its Cargo.lock")${lock_note:+ after $lock_note} ($(rustc --version)), recorded by
  scripts/record-corpus-requests.sh $operator CHECKOUT
Scenario: scripts/record-corpus-requests/$operator.sh: $(sed -n 's/^# Scenario: //p' "$scenario")."
cd "$root"
unset RUSTUP_TOOLCHAIN
nice -n 10 cargo test -p kube-markers-envtest --test record_requests -- --ignored --nocapture
