#!/usr/bin/env bash
# Builds the binaries of kube-markers' envtest (a real API server for the end-to-end tests):
# kube-apiserver and etcd at pinned versions, from the Go module proxy, into .assets/envtest
# (git-ignored), reusing what is already built. Prints the directory holding both binaries.
#
# With KUBEBUILDER_ASSETS set (controller-runtime's setup-envtest layout: a directory with
# kube-apiserver and etcd) nothing is built and that directory is printed instead.
#
# kube-apiserver cannot be `go install`ed (k8s.io/kubernetes replaces its staging modules with
# local paths), so it is built inside a small wrapper module that replaces each staging module
# with its published version. etcd is built from go.etcd.io/etcd/server/v3's etcdmain.
set -euo pipefail

kubernetes_version="${KUBERNETES_VERSION:-1.37.2}"
etcd_version="${ETCD_VERSION:-3.6.16}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  for bin in kube-apiserver etcd; do
    if [ ! -x "$KUBEBUILDER_ASSETS/$bin" ]; then
      echo "scripts/envtest-assets.sh: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable $bin" >&2
      exit 1
    fi
  done
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

dest="$root/.assets/envtest/k8s-$kubernetes_version-etcd-$etcd_version"
if [ -x "$dest/kube-apiserver" ] && [ -x "$dest/etcd" ]; then
  echo "$dest"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/envtest-assets.sh: Go is needed to build kube-apiserver $kubernetes_version and etcd $etcd_version" >&2
  exit 1
fi
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod

# kube-apiserver
echo "building kube-apiserver v$kubernetes_version with $(go version) ..." >&2
mkdir -p "$work/apiserver"
(
  cd "$work/apiserver"
  go mod download -json "k8s.io/kubernetes@v$kubernetes_version" > download.json
  gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p' download.json)"
  staging_version="v0.${kubernetes_version#1.}"
  {
    echo "module kube-markers.invalid/envtest-apiserver"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes v$kubernetes_version"
    echo
    echo "replace ("
    sed -n 's|^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*|\t\1 => \1 '"$staging_version"'|p' "$gomod"
    echo ")"
  } > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' > tools.go
  go mod tidy >&2
  # The version the binary reports (k8s' own build sets these from git).
  minor="${kubernetes_version#1.}"
  minor="${minor%%.*}"
  pkg=k8s.io/component-base/version
  ldflags="-X $pkg.gitVersion=v$kubernetes_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  go build -ldflags "$ldflags" -o "$dest/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
)

# etcd
echo "building etcd v$etcd_version ..." >&2
mkdir -p "$work/etcd"
(
  cd "$work/etcd"
  printf 'module kube-markers.invalid/envtest-etcd\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$etcd_version" > go.mod
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' > main.go
  go mod tidy >&2
  go build -o "$dest/etcd" . >&2
)

"$dest/kube-apiserver" --version >&2
"$dest/etcd" --version | sed -n 1p >&2
echo "$dest"
