#!/usr/bin/env bash
# Edit one attribute -> regenerated manifests, against controller-gen on the same operator in
# Go: scripts/bench-edit/go-operator is a kubebuilder-layout project (api/<group>/<version>
# types, internal/controller reconcilers with their RBAC markers, cmd/main.go) importing
# controller-runtime and k8s.io/api as real projects do, with the example workspace's RBAC
# rules and CRDs. Each run changes the verbs of one RBAC marker (alternately adding and
# removing `get`) and regenerates RBAC and CRDs: `cargo run -p codegen` here, kubebuilder's
# `controller-gen rbac:roleName=manager-role crd paths=./...` there. Both are timed,
# interleaved, and the medians and their ratio printed.
#
# A third column is the edit loop without a rebuild: an edit of another marker (the verbs of
# memcacheds/status, adding or removing `get`, so that every full run and every fast run is a
# real edit against the last build), then the generator binary the previous full run built,
# with `--rbac-from-source` (roles and deploy bundle from the sources; CRDs left as they are).
# After the loop, a full `--check` on the last fast run's output proves it wrote what the full
# run writes.
#
# A fourth column is `kube-markers generate` after the same kind of edit: it proves that only
# #[rbac] attributes changed since the generator's last build and regenerates from the sources
# (its record of that build is refreshed, untimed, by a `generate --build` before each edit).
# Then a CRD-type edit on both sides (the memcached spec's maximum, raised by one): controller-gen
# against `kube-markers generate`, which must build.
#
# The example's source file is edited in place and restored on exit; our outputs go to
# target/, so rbac-out/ is untouched.
# Usage: scripts/bench-edit-to-manifests.sh   (RUNS=N timed runs of each, default 9)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/target/bench-edit-to-manifests"
runs="${RUNS:-9}"
controller_gen="$(bash "$root/scripts/controller-gen.sh")"

rm -rf "$work"
mkdir -p "$work"
cp -r "$root/scripts/bench-edit/go-operator" "$work/go"
rust_file="$root/examples/memcached-operator/src/lib.rs"
go_file="$work/go/internal/controller/memcached_controller.go"
cp "$rust_file" "$work/lib.rs.orig"
trap 'cp "$work/lib.rs.orig" "$rust_file"' EXIT

# The marker both sides edit: `verbs = "list;watch;patch"` on memcacheds.
grep -q 'verbs = "list;watch;patch"$' "$rust_file"
grep -q 'resources=memcacheds,verbs=list;watch;patch$' "$go_file"
toggle_rust() {
  if grep -q 'verbs = "list;watch;patch;get"$' "$rust_file"; then
    sed -i 's/verbs = "list;watch;patch;get"$/verbs = "list;watch;patch"/' "$rust_file"
  else
    sed -i '0,/verbs = "list;watch;patch"$/s//verbs = "list;watch;patch;get"/' "$rust_file"
  fi
}
# The fast column's marker: `verbs = "patch"` on memcacheds/status.
grep -q 'resources = "memcacheds/status",$' "$rust_file"
toggle_status() {
  if grep -q 'verbs = "patch;get"$' "$rust_file"; then
    sed -i 's/verbs = "patch;get"$/verbs = "patch"/' "$rust_file"
  else
    sed -i '/resources = "memcacheds\/status",$/{n;s/verbs = "patch"$/verbs = "patch;get"/}' "$rust_file"
  fi
}
toggle_go() {
  if grep -q 'resources=memcacheds,verbs=list;watch;patch;get$' "$go_file"; then
    sed -i 's/resources=memcacheds,verbs=list;watch;patch;get$/resources=memcacheds,verbs=list;watch;patch/' "$go_file"
  else
    sed -i 's/resources=memcacheds,verbs=list;watch;patch$/resources=memcacheds,verbs=list;watch;patch;get/' "$go_file"
  fi
}
rust_run() { (cd "$root" && cargo run -q -p codegen -- --out "$work/rust-out"); }
(cd "$root" && cargo build -q -p kube-markers-cli)
kube_markers="${CARGO_TARGET_DIR:-$root/target}/debug/kube-markers"
km_run() { (cd "$root" && "$kube_markers" generate --package codegen -- --out "$work/rust-out"); }
km_build() { (cd "$root" && "$kube_markers" generate --build --package codegen -- --out "$work/rust-out"); }
types_go="$work/go/api/cache/v1alpha1/memcached_types.go"
grep -q 'kubebuilder:validation:Maximum=3$' "$types_go"
grep -q 'maximum = 3)\]$' "$rust_file"
# The maximum goes up by one each time (lowering it is a breaking change the generator refuses).
raise_crd_go() {
  local n
  n=$(sed -n 's/.*kubebuilder:validation:Maximum=\([0-9]*\)$/\1/p' "$types_go" | head -1)
  sed -i "s/kubebuilder:validation:Maximum=$n\$/kubebuilder:validation:Maximum=$((n + 1))/" "$types_go"
}
raise_crd_rust() {
  local n
  n=$(sed -n 's/.*(minimum = 1, maximum = \([0-9]*\))\]$/\1/p' "$rust_file" | head -1)
  sed -i "s/(minimum = 1, maximum = $n)\]\$/(minimum = 1, maximum = $((n + 1)))]/" "$rust_file"
}
generator="${CARGO_TARGET_DIR:-$root/target}/debug/codegen"
fast_run() { (cd "$root" && "$generator" --rbac-from-source --out "$work/rust-out"); }
go_run() {
  (cd "$work/go" && "$controller_gen" rbac:roleName=manager-role crd paths=./... \
    output:crd:artifacts:config="$work/go-out/crd" output:rbac:dir="$work/go-out")
}

elapsed_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; "$@" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Warm up both (builds, Go's module and build caches), then check that both wrote the same rules.
rust_run >/dev/null 2>&1 || rust_run
go_run >/dev/null 2>&1 || go_run
if ! diff <(sed -n '/^---/,$p' "$work/rust-out/role.yaml") "$work/go-out/role.yaml"; then
  echo "the role files differ" >&2
  exit 1
fi

go_times=()
rust_times=()
fast_times=()
km_times=()
go_crd_times=()
km_crd_times=()
for _ in $(seq 1 "$runs"); do
  toggle_go
  go_times+=("$(elapsed_ms go_run)")
  toggle_rust
  rust_times+=("$(elapsed_ms rust_run)")
  grep -q 'memcacheds' "$work/rust-out/role.yaml"
  # An edit the binary just built has not seen.
  toggle_status
  fast_times+=("$(elapsed_ms fast_run)")
  # kube-markers generate: its record of this build, then an edit the build has not seen.
  km_build >/dev/null 2>&1
  toggle_status
  km_times+=("$(elapsed_ms km_run)")
  said=$(km_run 2>&1)
  grep -q "no rebuild of codegen" <<<"$said" || { echo "generate did not take the fast path: $said" >&2; exit 1; }
  # A CRD type's marker: both regenerate the CRD; kube-markers builds.
  raise_crd_go
  go_crd_times+=("$(elapsed_ms go_run)")
  raise_crd_rust
  km_crd_times+=("$(elapsed_ms km_run)")
done
# The fast path wrote exactly what the full run writes from the same sources.
if ! check=$(cd "$root" && cargo run -q -p codegen -- --out "$work/rust-out" --check 2>&1); then
  echo "$check" >&2
  echo "--rbac-from-source wrote other files than the full run writes from the same sources" >&2
  exit 1
fi
go_median=$(printf '%s\n' "${go_times[@]}" | median)
rust_median=$(printf '%s\n' "${rust_times[@]}" | median)
fast_median=$(printf '%s\n' "${fast_times[@]}" | median)
km_median=$(printf '%s\n' "${km_times[@]}" | median)
go_crd_median=$(printf '%s\n' "${go_crd_times[@]}" | median)
km_crd_median=$(printf '%s\n' "${km_crd_times[@]}" | median)
printf '%-52s %8s ms\n' "controller-gen rbac+crd (Go operator):" "$go_median"
printf '%-52s %8s ms\n' "edit + cargo run -p codegen (examples):" "$rust_median"
printf '%-52s %8s ms\n' "edit + target/debug/codegen --rbac-from-source:" "$fast_median"
printf '%-52s %8s ms\n' "edit + kube-markers generate (fast path):" "$km_median"
printf '%-52s %8s ms\n' "CRD marker edit + controller-gen rbac+crd:" "$go_crd_median"
printf '%-52s %8s ms\n' "CRD marker edit + kube-markers generate (builds):" "$km_crd_median"
echo "ratio controller-gen / kube-markers: $(echo "scale=2; $go_median / $rust_median" | bc)"
echo "ratio controller-gen / kube-markers generate (#[rbac] edit): $(echo "scale=2; $go_median / $km_median" | bc)"
echo "ratio controller-gen / kube-markers generate (CRD edit): $(echo "scale=2; $go_crd_median / $km_crd_median" | bc)"
echo "ratio controller-gen / --rbac-from-source: $(echo "scale=2; $go_median / $fast_median" | bc)"
echo "(medians of $runs interleaved runs; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
