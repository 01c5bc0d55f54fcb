#!/usr/bin/env bash
# Builds controller-gen, the reference oracle of the differential tests, from the Go module
# proxy at a pinned version, into .assets/ (git-ignored), and prints the binary's path.
# Reuses an existing build. Override the version with CONTROLLER_GEN_VERSION. An older Go
# fetches the toolchain controller-gen needs from the module proxy (GOTOOLCHAIN=auto).
set -euo pipefail

version="${CONTROLLER_GEN_VERSION:-v0.23.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.assets/controller-gen-$version"
bin="$dest/controller-gen"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/controller-gen.sh: Go is needed to build controller-gen $version (apt-get install golang-go, or see https://go.dev/dl)" >&2
  exit 1
fi
mkdir -p "$dest"
echo "building controller-gen $version with $(go version) ..." >&2
GOBIN="$dest" GOFLAGS=-mod=mod go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$version" >&2
echo "$bin"
