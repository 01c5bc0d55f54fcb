//! `kube-markers`: see [`kube_markers_cli`].

fn main() -> std::process::ExitCode {
    kube_markers_cli::main()
}
