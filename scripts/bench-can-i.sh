#!/usr/bin/env bash
# Latency of `codegen can-i`, whole process (start, read and parse the manifests, evaluate,
# print): the examples' rbac-out/ with a ServiceAccount and bindings, and a synthetic policy of
# 1,000 ClusterRoles × 10 rules bound to one ServiceAccount (1.5 MB of YAML).
#
#   scripts/bench-can-i.sh [debug|release] [runs]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
profile=${1:-debug}
runs=${2:-51}
flag=$([ "$profile" = release ] && echo --release || true)
cargo build -q -p codegen $flag
bin=target/$profile/codegen

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/examples" "$work/synthetic"
cp -r rbac-out/. "$work/examples/"
cat > "$work/examples/bindings.yaml" <<'EOF'
apiVersion: v1
kind: ServiceAccount
metadata: {name: op, namespace: ops}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: op-manager}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manager-role}
subjects: [{kind: ServiceAccount, name: op, namespace: ops}]
EOF
{
  echo "apiVersion: v1"
  echo "kind: ServiceAccount"
  echo "metadata: {name: op, namespace: ops}"
  for i in $(seq 0 999); do
    printf -- "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: role-%d\nrules:\n" "$i"
    for j in $(seq 0 9); do
      printf -- "- apiGroups:\n  - group%d.example.com\n  resources:\n  - things%d\n  - things%d/status\n  verbs:\n  - get\n  - list\n  - watch\n" "$j" "$j" "$j"
    done
    printf -- "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: binding-%d\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: role-%d\nsubjects:\n- kind: ServiceAccount\n  name: op\n  namespace: ops\n" "$i" "$i"
  done
} > "$work/synthetic/policy.yaml"

# Median, min and max wall time of $runs runs.
bench() {
  local label=$1; shift
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" \
    '{t[NR] = $1} END {printf "%-58s median %6.1f ms  (min %.1f, max %.1f, %d runs)\n", label, t[int((NR + 1) / 2)] / 1000, t[1] / 1000, t[NR] / 1000, NR}'
}

echo "$bin"
bench "--help (process start)" "$bin" --help
bench "examples: yes" "$bin" can-i create deployments.apps -n web --from "$work/examples"
bench "examples: yes --explain" "$bin" can-i create deployments.apps -n web --explain --from "$work/examples"
bench "examples: no --explain" "$bin" can-i delete services/db -n web --explain --from "$work/examples"
bench "synthetic 1,000 ClusterRoles, 10,000 rules: no" "$bin" can-i delete things9.group9.example.com -n web --from "$work/synthetic"
