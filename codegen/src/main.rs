//! `cargo run -p codegen`: writes `rbac-out/role.yaml` from the example operators' `#[rbac]`
//! attributes. An operator author's generator is exactly this file with their own crates.

kube_markers::link!(memcached_operator, mydatabase_operator);

fn main() -> std::process::ExitCode {
    kube_markers::codegen::main()
}
