#!/usr/bin/env bash
# Builds crdify (kubernetes-sigs), the oracle of the CRD compatibility differential test, from
# the Go module proxy at a pinned version, into .assets/ (git-ignored), and prints the binary's
# path, and copies crdify's own test pairs (test/, examples/) beside it, the test's corpus.
# Reuses an existing build. Override the version with CRDIFY_VERSION. v0.5.0 is the
# newest release the module proxy serves; its checks are the ones this project names, less
# `pattern` and `nullable`, which crdify added after it (tests/tests/crdify_differential.rs).
set -euo pipefail

version="${CRDIFY_VERSION:-v0.5.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.assets/crdify-$version"
bin="$dest/crdify"

if [ -x "$bin" ] && [ -d "$dest/test" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/crdify.sh: Go is needed to build crdify $version (apt-get install golang-go, or see https://go.dev/dl)" >&2
  exit 1
fi
mkdir -p "$dest"
echo "building crdify $version with $(go version) ..." >&2
# A throwaway module that requires crdify at the pinned version: `go install pkg@version` also
# asks the proxy for the module's version list (deprecations), which it does not serve.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  go mod init crdify-oracle >/dev/null 2>&1
  go get "sigs.k8s.io/crdify@$version" >&2
  go build -o "$bin" sigs.k8s.io/crdify >&2
  src="$(go list -m -f '{{.Dir}}' sigs.k8s.io/crdify)"
  rm -rf "$dest/test" "$dest/examples"
  cp -r "$src/test" "$src/examples" "$dest/"
  chmod -R u+w "$dest/test" "$dest/examples"
)
echo "$bin"
