#!/usr/bin/env bash
# Fetches released CRDs of widely used projects from the Go module proxy into
# .assets/crd-corpus/ (git-ignored), and prints that directory's path: the real-world corpus
# of check-crds' no-false-positive test (cel/tests/real_crds.rs) and of the CEL differential
# against kube-apiserver (envtest/tests/cel_differential.rs, replayed by
# cel/tests/differential.rs). Each project's CRD YAML is copied out of its module at a pinned
# version (`go mod download -json MODULE@VERSION`); nothing is built. Reuses a complete corpus.
#
# Versions are the newest releases whose go.mod this repository's Go accepts (a newer
# go directive makes `go mod download` refuse the module under GOTOOLCHAIN=local).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.assets/crd-corpus"
# Bump when the list below changes, so an older corpus is fetched again.
stamp="$dest/.complete-v1"

if [ -f "$stamp" ]; then
  echo "$dest"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/crd-corpus.sh: Go is needed to fetch the CRD corpus from the module proxy (apt-get install golang-go, or see https://go.dev/dl)" >&2
  exit 1
fi

# project directory | module@version | directory of CRD YAML inside the module | file glob
corpus=(
  "cert-manager-v1.21.2|github.com/cert-manager/cert-manager@v1.21.2|deploy/crds|*.yaml"
  "cluster-api-v1.14.2/core|sigs.k8s.io/cluster-api@v1.14.2|core/config/crd/bases|*.yaml"
  "cluster-api-v1.14.2/bootstrap-kubeadm|sigs.k8s.io/cluster-api@v1.14.2|bootstrap/kubeadm/config/crd/bases|*.yaml"
  "cluster-api-v1.14.2/controlplane-kubeadm|sigs.k8s.io/cluster-api@v1.14.2|controlplane/kubeadm/config/crd/bases|*.yaml"
  "cluster-api-v1.14.2/clusterctl|sigs.k8s.io/cluster-api@v1.14.2|cmd/clusterctl/config/crd/bases|*.yaml"
  "karpenter-v1.14.0|sigs.k8s.io/karpenter@v1.14.0|pkg/apis/crds|*.yaml"
  "karpenter-provider-aws-v1.14.0|github.com/aws/karpenter-provider-aws@v1.14.0|pkg/apis/crds|karpenter.k8s.aws_*.yaml"
  "kueue-v0.17.0|sigs.k8s.io/kueue@v0.17.0|config/components/crd/bases|*.yaml"
  "prometheus-operator-v0.85.0|github.com/prometheus-operator/prometheus-operator@v0.85.0|example/prometheus-operator-crd|*.yaml"
  "knative-serving-v0.51.0|knative.dev/serving@v0.51.0|config/core/300-resources|*.yaml"
  "argo-cd-v3.5.8|github.com/argoproj/argo-cd/v3@v3.5.8|manifests/crds|*-crd.yaml"
)

rm -rf "$dest"
mkdir -p "$dest"
for entry in "${corpus[@]}"; do
  IFS='|' read -r project module dir glob <<<"$entry"
  echo "fetching $module ..." >&2
  json="$(go mod download -json "$module")"
  moddir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$moddir" ] || [ ! -d "$moddir/$dir" ]; then
    echo "scripts/crd-corpus.sh: $module has no $dir:" >&2
    printf '%s\n' "$json" >&2
    exit 1
  fi
  mkdir -p "$dest/$project"
  found=0
  for file in "$moddir/$dir"/$glob; do
    [ -f "$file" ] || continue
    cp "$file" "$dest/$project/"
    found=$((found + 1))
  done
  if [ "$found" = 0 ]; then
    echo "scripts/crd-corpus.sh: no $glob in $module's $dir" >&2
    exit 1
  fi
  # The module cache is read-only; the copies need not be.
  chmod -R u+w "$dest/$project"
done
touch "$stamp"
echo "$dest"
