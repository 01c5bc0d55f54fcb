#!/usr/bin/env run-cargo-script
#[rbac(verbs = "get")] fn f() {}
