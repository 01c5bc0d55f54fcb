//! `KUBE_MARKERS_SKIP_ORACLE=1` at build time sets `cfg(skip_oracle)`, under which the tests
//! that need a Go oracle (helm, in `tests/helm.rs`) are `#[ignore]`d: the test runner then
//! lists them as ignored, never as passed.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=KUBE_MARKERS_SKIP_ORACLE");
    println!("cargo::rustc-check-cfg=cfg(skip_oracle)");
    if std::env::var_os("KUBE_MARKERS_SKIP_ORACLE").is_some_and(|v| v == "1") {
        println!("cargo::rustc-cfg=skip_oracle");
    }
}
