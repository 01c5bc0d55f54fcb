#!/usr/bin/env bash
# Fetches the standard channel CRDs of Gateway API releases v1.0 through v1.6 from the Go
# module proxy into .assets/gateway-api/<version>/ (git-ignored), and prints that directory:
# the real, consecutive releases the CRD compatibility test compares (with crdify, and with
# kube-markers-compat). Reuses an earlier fetch.
set -euo pipefail

versions=(v1.0.0 v1.1.0 v1.2.1 v1.3.0 v1.4.1 v1.5.1 v1.6.3)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.assets/gateway-api"

if [ -f "$dest/.complete" ]; then
  echo "$dest"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/gateway-api-crds.sh: Go is needed to fetch Gateway API's CRDs (apt-get install golang-go, or see https://go.dev/dl)" >&2
  exit 1
fi
mkdir -p "$dest"
for v in "${versions[@]}"; do
  echo "fetching sigs.k8s.io/gateway-api@$v ..." >&2
  dir="$(go mod download -json "sigs.k8s.io/gateway-api@$v" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$dir" ] || [ ! -d "$dir/config/crd/standard" ]; then
    echo "scripts/gateway-api-crds.sh: no config/crd/standard in sigs.k8s.io/gateway-api@$v" >&2
    exit 1
  fi
  mkdir -p "$dest/$v"
  # Only the CRDs: later releases also ship a ValidatingAdmissionPolicy there.
  for f in "$dir"/config/crd/standard/*.yaml; do
    if grep -q '^kind: CustomResourceDefinition' "$f"; then
      cp "$f" "$dest/$v/"
      chmod u+w "$dest/$v/$(basename "$f")"
    fi
  done
done
printf '%s\n' "${versions[@]}" > "$dest/.complete"
echo "$dest"
