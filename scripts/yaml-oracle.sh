#!/usr/bin/env bash
# Builds the YAML oracle (scripts/yaml-oracle: controller-gen's path from an object to YAML,
# encoding/json then sigs.k8s.io/yaml and go-yaml v2; and kubectl's path from a file's bytes to
# objects: x/text's BOM decoding, apimachinery's YAMLOrJSONDecoder; pinned in its go.mod/go.sum)
# into .assets/ and prints the binary's path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/yaml-oracle"
bin="$root/.assets/yaml-oracle/yaml-oracle"
stamp="$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)"
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/yaml-oracle.sh: Go is needed to build the YAML oracle" >&2
  exit 1
fi
mkdir -p "$(dirname "$bin")"
(cd "$src" && go build -mod=readonly -o "$bin" .) >&2
echo "$stamp" > "$bin.stamp"
echo "$bin"
