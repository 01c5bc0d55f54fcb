#!/usr/bin/env bash
# `cargo package` of every publishable crate, verified: each crate's .crate file is unpacked
# and built on its own against the others' packages, as crates.io would build it. Extra
# arguments go to cargo (`--no-verify`, `--list`, `--allow-dirty`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The members that are not published: this repository's generator, the examples, the test and
# benchmark crates (all `publish = false`), and the scan tests' fixture crate, which cargo
# counts as a member because a test links it. tests/tests/packaging.rs keeps this list equal
# to the workspace's unpublished members.
UNPUBLISHED=(codegen memcached-operator mydatabase-operator kube-markers-tests kube-markers-ui-tests webhook-bench linked-op)

excludes=()
for name in "${UNPUBLISHED[@]}"; do
  excludes+=(--exclude "$name")
done
# A library enables no Kubernetes version of k8s-openapi (its build script then refuses to
# build), and the verification builds each library alone: name one, as docs.rs does through
# the crates' `[package.metadata.docs.rs]`.
K8S_OPENAPI_ENABLED_VERSION="${K8S_OPENAPI_ENABLED_VERSION:-1.37}" \
  cargo package --workspace "${excludes[@]}" "$@"
