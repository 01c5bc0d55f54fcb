#!/usr/bin/env bash
# Builds the Go webhook client (scripts/webhook-go-client: Go's net/http Transport as
# kube-apiserver's webhook client configures it, standard library only) into .assets/ and
# prints the binary's path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/webhook-go-client"
bin="$root/.assets/webhook-go-client/webhook-go-client"
stamp="$( (cat "$src/go.mod" "$src/main.go"; go version 2>/dev/null) | sha256sum | cut -c1-16)"
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/webhook-go-client.sh: Go is needed to build the webhook client" >&2
  exit 1
fi
mkdir -p "$(dirname "$bin")"
(cd "$src" && go build -mod=readonly -o "$bin" .) >&2
echo "$stamp" > "$bin.stamp"
echo "$bin"
