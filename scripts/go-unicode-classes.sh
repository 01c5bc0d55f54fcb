#!/usr/bin/env bash
# Writes cel/src/go_regex/unicode_classes.rs from Go's own regexp and unicode packages
# (scripts/go-unicode-classes/main.go), or with --check compares it with what the installed Go
# says. The table follows the Go that builds kube-apiserver (go1.26 for 1.37, as
# scripts/envtest-assets.sh builds it); another Go's table may differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/cel/src/go_regex/unicode_classes.rs"
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/go-unicode-classes.sh: Go is needed" >&2
  exit 1
fi
fresh="$(cd "$root/scripts/go-unicode-classes" && GOFLAGS=-mod=mod GO111MODULE=off go run main.go)"
if [ "${1:-}" = --check ]; then
  diff <(echo "$fresh") "$out"
else
  echo "$fresh" > "$out"
fi
