#!/usr/bin/env bash
# Builds controller-runtime v0.24.1's webhook server (scripts/controller-runtime-webhook: one
# validating webhook that allows every request) into .assets/ from the Go module proxy, and
# prints the binary's path: the server scripts/bench-webhook.sh runs webhook-bench's cap
# scenario against beside ours (WEBHOOK_BENCH_SERVER).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/controller-runtime-webhook"
bin="$root/.assets/controller-runtime-webhook/controller-runtime-webhook"
stamp="$( (cat "$src/go.mod" "$src/go.sum" "$src/main.go"; go version 2>/dev/null) | sha256sum | cut -c1-16)"
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/controller-runtime-webhook.sh: Go is needed to build controller-runtime's webhook server" >&2
  exit 1
fi
mkdir -p "$(dirname "$bin")"
(cd "$src" && go build -mod=readonly -o "$bin" .) >&2
echo "$stamp" > "$bin.stamp"
echo "$bin"
