#!/usr/bin/env bash
# Builds kubectl v1.37.2 (scripts/kubectl: k8s.io/kubectl pinned in its go.mod/go.sum) from the
# Go module proxy into .assets/, and prints the binary's path. Reuses a build of the same
# sources. The tests that re-check check-crds' recorded kubectl verdicts run this kubectl, not
# the machine's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/kubectl"
version=v1.37.2
bin="$root/.assets/kubectl-$version/kubectl"
stamp="$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)"
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/kubectl.sh: Go is needed to build kubectl $version" >&2
  exit 1
fi
mkdir -p "$(dirname "$bin")"
echo "building kubectl $version with $(go version) ..." >&2
# kubectl's own build stamps its version with -X; without it `kubectl version` says v0.0.0.
(cd "$src" && go build -mod=readonly -o "$bin" \
  -ldflags "-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitVersion=$version" .) >&2
echo "$stamp" > "$bin.stamp"
"$bin" version --client >&2
echo "$bin"
