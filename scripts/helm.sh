#!/usr/bin/env bash
# Builds helm, the oracle of the chart tests (`helm template`, `helm lint`, `helm install`),
# from the Go module proxy at a pinned version, into .assets/ (git-ignored), and prints the
# binary's path. Reuses an existing build. Override the version with HELM_VERSION.
set -euo pipefail

version="${HELM_VERSION:-v3.22.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.assets/helm-$version"
bin="$dest/helm"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/helm.sh: Go is needed to build helm $version (apt-get install golang-go, or see https://go.dev/dl)" >&2
  exit 1
fi
mkdir -p "$dest"
echo "building helm $version with $(go version) ..." >&2
# helm's own build stamps its version with -X; without it `helm version` says v3.x-dev.
GOBIN="$dest" GOFLAGS=-mod=mod go install \
  -ldflags "-X helm.sh/helm/v3/internal/version.version=$version" \
  "helm.sh/helm/v3/cmd/helm@$version" >&2
"$bin" version --short >&2
echo "$bin"
