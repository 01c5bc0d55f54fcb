//! `kube-markers init`'s files.

/// The workspace's `Cargo.toml`. Its profiles are kube-markers' own (they keep debug info
/// small and optimize the generator's source scan, BENCHMARKS.md), so that a project sharing
/// its target directory reuses every compiled dependency.
pub const WORKSPACE: &str = r#"[workspace]
resolver = "3"
members = ["{{name}}", "codegen"]

[workspace.package]
version = "0.1.0"
edition = "2024"
rust-version = "1.95"
{{license_line}}
{{record}}
[workspace.dependencies]
{{name}} = { path = "{{name}}" }
{{kube_markers_dep}}
{{kube_markers_envtest_dep}}
kube = { version = "{{kube}}", default-features = false }
k8s-openapi = { version = "{{k8s_openapi}}", default-features = false }
schemars = { version = "{{schemars}}", default-features = false }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
thiserror = "2"
futures = { version = "0.3", default-features = false, features = ["std"] }
jiff = { version = "0.2", default-features = false, features = ["std"] }
tokio = { version = "1", default-features = false }
tracing = { version = "0.1", default-features = false, features = ["std"] }
tracing-subscriber = { version = "0.3", default-features = false, features = ["fmt", "std"] }

[profile.dev]
# Line tables keep panic locations; full debug info makes every test binary hundreds of MB.
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false

# `cargo run -p codegen` spends its time reading the workspace's sources: optimizing the
# source scan and its parser (syn 3; syn 2 only builds proc-macros) makes each run 3x faster
# for seconds more of a clean build. Update the version with `cargo update`'s.
[profile.dev.package."syn@{{syn3}}"]
opt-level = 3

[profile.dev.package.proc-macro2]
opt-level = 3

[profile.dev.package.kube-markers-core]
opt-level = 1

[profile.dev.package.kube-markers-scan]
opt-level = 1

[profile.dev.package.sha2]
opt-level = 3

[profile.release]
# The image's binary: smaller, and panics end the process (the Deployment restarts it).
strip = true
panic = "abort"
"#;

/// The operator crate's `Cargo.toml`.
pub const OPERATOR_MANIFEST: &str = r#"[package]
name = "{{name}}"
description = "The {{name}} operator."
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true
publish = false

[dependencies]
# `audit`: the startup preflight; `leader-election`: `--leader-elect`; `health`: the
# bundle's /healthz and /readyz probes.
kube-markers = { workspace = true, features = ["audit", "leader-election", "health"] } # +kube-markers:scaffold:kube-markers-features
kube = { workspace = true, features = ["client", "runtime", "derive", "rustls-tls", "ring"] }
k8s-openapi = { workspace = true, features = ["latest", "schemars"] }
schemars.workspace = true
serde.workspace = true
serde_json.workspace = true
futures.workspace = true
thiserror.workspace = true
jiff.workspace = true
tracing.workspace = true
tracing-subscriber.workspace = true
tokio = { workspace = true, features = ["macros", "rt-multi-thread", "signal", "time"] }

[dev-dependencies]
kube-markers-envtest.workspace = true
"#;

pub const OPERATOR_LIB: &str = r#"//! The {{name}} operator: its API types (`api`), their controllers (`controllers`) and
//! admission webhooks (`webhooks`). `kube-markers create api` and `create webhook` add to
//! them at the `+kube-markers:scaffold:` markers; keep the markers.

pub mod api;
pub mod controllers;
pub mod webhooks;

/// Field manager of the operator's server-side applies, and the reporter of its events.
pub const FIELD_MANAGER: &str = "{{name}}";
"#;

pub const API_MOD: &str = r#"//! The API types, one module per group (`kube-markers create api`).

// +kube-markers:scaffold:groups
"#;

pub const CONTROLLERS_MOD: &str = r#"//! The controllers, one module per kind (`kube-markers create api`).

// +kube-markers:scaffold:controllers
"#;

pub const WEBHOOKS_MOD: &str = r#"//! The admission webhooks, one module per kind and version (`kube-markers create webhook`).

// +kube-markers:scaffold:webhooks
"#;

/// The operator's `main`: the tracing subscriber, the probes, the preflight, the webhook
/// server once there are webhooks or conversions, then every controller, on the elected
/// leader only with `--leader-elect` (the bundle's Deployment passes it).
pub const OPERATOR_MAIN: &str = r#"//! Runs the {{name}} operator against the cluster of the current kubeconfig (in the
//! cluster, the bundle's ServiceAccount), serving the bundle's `/healthz` and `/readyz` probes
//! (`HEALTH_PROBE_PORT`, default 8081), until SIGTERM or Ctrl-C.
//!
//! With `--leader-elect` (the bundle's Deployment passes it: `args` in codegen/Cargo.toml)
//! the controllers run on one replica at a time, the holder of the Lease `{{name}}-leader`
//! in the operator's namespace; the probes and the webhook server run on every replica.

use kube_markers::health::{Health, probe_addr};
use kube_markers::leader_election::{LeaderElection, Outcome};

const USAGE: &str = "usage: {{name}} [--leader-elect[=true|false]]";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let leader_elect = leader_elect_flag(std::env::args().skip(1))?;
    // Logs to stderr; `RUST_LOG`-style filtering needs tracing-subscriber's `env-filter`.
    tracing_subscriber::fmt().with_target(false).init();

    // Ready once every permission is granted, the webhooks are served and every controller's
    // cache has synced. The conditions exist before the probes are served.
    let health = Health::new();
    let preflight = health.condition("preflight");
    // +kube-markers:scaffold:conditions
    let _probes = health.serve(probe_addr()?).await?;

    let client = kube::Client::try_default().await?;
    // Refuse to start without every permission the #[rbac] attributes declare.
    let report = kube_markers::preflight(&client).await?;
    if !report.is_complete() {
        return Err(format!("missing permissions:\n{report}").into());
    }
    preflight.ready();
    // +kube-markers:scaffold:webhook-server

    // With --leader-elect, only the holder of the Lease runs the controllers.
    let election = if leader_elect {
        let election = LeaderElection::builder(client.clone(), "{{name}}-leader").build()?;
        tracing::info!(lease = election.lease(), identity = election.identity(), "waiting to lead");
        // A standby replica has no cache to sync: it is ready to take over (a rolling update
        // waits for it). Each controller marks its cache not ready again when it starts.
        let caches: &[kube_markers::health::Condition] = &[
            // +kube-markers:scaffold:standby
        ];
        caches.iter().for_each(|cache| cache.ready());
        Some(election)
    } else {
        None
    };
    let controllers = async move {
        let mut controllers = tokio::task::JoinSet::<()>::new();
        // +kube-markers:scaffold:controllers
        if controllers.is_empty() {
            shutdown_signal().await;
        }
        while let Some(done) = controllers.join_next().await {
            done?;
        }
        Ok::<(), tokio::task::JoinError>(())
    };
    match election {
        // Losing the lease is an error: the process exits and the Deployment restarts it as
        // a candidate, as controller-runtime's manager does.
        Some(election) => {
            if let Outcome::Completed(ran) = election.run(controllers, shutdown_signal()).await? {
                ran?;
            }
        }
        None => controllers.await?,
    }
    // +kube-markers:scaffold:shutdown
    Ok(())
}

/// `--leader-elect`, as controller-runtime's managers take it (a bare flag, or `=true`/`=false`).
fn leader_elect_flag(args: impl Iterator<Item = String>) -> Result<bool, String> {
    let mut leader_elect = false;
    for arg in args {
        match arg.as_str() {
            "--leader-elect" | "--leader-elect=true" => leader_elect = true,
            "--leader-elect=false" => leader_elect = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`; {USAGE}")),
        }
    }
    Ok(leader_elect)
}

/// SIGTERM (the kubelet stopping the Pod) or Ctrl-C, as kube-runtime's `shutdown_on_signal`.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
"#;

pub const CODEGEN_MANIFEST: &str = r#"[package]
name = "codegen"
description = "Writes rbac-out/ (roles, CRDs, webhooks, the deploy bundle) from {{name}}'s attributes: `cargo run -p codegen`."
version.workspace = true
edition.workspace = true
license.workspace = true
publish = false

[dependencies]
kube-markers = { workspace = true, features = ["codegen"] }
{{name}}.workspace = true

# The deploy bundle: `kubectl apply -k rbac-out/` or `helm install {{name}} rbac-out/chart`
# (keys: kube-markers' docs/bundle.md).
[package.metadata.kube-markers.bundle]
name = "{{name}}"
image = "{{image}}"
# The Role for the Lease of `--leader-elect`, which the Deployment passes (more than one
# replica then runs its controllers on one at a time).
leader-election = true
args = ["--leader-elect"]
webhooks = false # +kube-markers:scaffold:bundle-webhooks
cert-manager = false # +kube-markers:scaffold:bundle-cert-manager
"#;

pub const CODEGEN_MAIN: &str = r#"//! `cargo run -p codegen`: writes `rbac-out/` from the attributes of the crates it links
//! (every kind, controller and webhook of {{name}}: one crate, linked once).

kube_markers::link!({{ident}});

fn main() -> std::process::ExitCode {
    kube_markers::codegen::main()
}
"#;

/// A multi-stage build: the release binary built on the Rust image, run on distroless as the
/// numeric non-root user the bundle's Deployment requires (`runAsNonRoot`).
pub const DOCKERFILE: &str = r#"# Build: docker build -t {{image}} .
# The build sees this directory only: kube-markers must come from git or crates.io
# (`[workspace.dependencies]`), not from a path outside it.
FROM docker.io/library/rust:{{rust}}-bookworm AS builder
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p {{name}} \
    && cp target/release/{{name}} /{{name}}

# glibc, CA certificates and the `nonroot` user (65532), nothing else.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=builder /{{name}} /{{name}}
USER 65532:65532
ENTRYPOINT ["/{{name}}"]
"#;

/// Only what the build reads is sent to the Docker daemon.
pub const DOCKERIGNORE: &str = r#"# Everything, then what `cargo build --release -p {{name}}` reads.
*
!Cargo.toml
!Cargo.lock
!{{name}}/Cargo.toml
!{{name}}/src
!codegen/Cargo.toml
!codegen/src
"#;

pub const GITIGNORE: &str = r#"/target
# envtest's kube-apiserver and etcd (setup-envtest or kube-markers' scripts/envtest-assets.sh)
/.assets
"#;

/// CI: formatting, lints, the tests with envtest's binaries, and `rbac-out/` fresh.
pub const WORKFLOW: &str = r#"name: ci
on:
  push:
    branches: [main]
  pull_request:

env:
  CARGO_TERM_COLOR: always
  # kube-apiserver and etcd for the envtest tests (controller-runtime's setup-envtest).
  ENVTEST_K8S_VERSION: "1.34.1"

jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
        with:
          components: rustfmt, clippy
      - uses: Swatinem/rust-cache@v2
      - uses: actions/setup-go@v5
        with:
          go-version: stable
      - name: envtest assets
        run: |
          go install sigs.k8s.io/controller-runtime/tools/setup-envtest@latest
          echo "KUBEBUILDER_ASSETS=$(setup-envtest use $ENVTEST_K8S_VERSION -p path)" >> "$GITHUB_ENV"
      - run: cargo fmt --all --check
      - run: cargo clippy --workspace --all-targets -- -D warnings
      - run: cargo test --workspace
      - name: rbac-out/ is fresh
        run: cargo run -p codegen -- --check
"#;

pub const README: &str = r#"# {{name}}

A Kubernetes operator in Rust ([kube-rs](https://kube.rs)), its RBAC, CRDs, webhooks and
deploy bundle generated from its attributes by [kube-markers](https://github.com/kube-markers/kube-markers).

## Commands

```sh
kube-markers create api --group G --version V --kind K   # a kind, its controller and test
kube-markers create webhook --group G --version V --kind K --defaulting --programmatic-validation
cargo run -p codegen             # regenerate rbac-out/ after changing attributes (commit it)
cargo run -p codegen -- --check  # CI: fails with a diff when rbac-out/ is stale
cargo test                       # unit tests, and envtest tests when KUBEBUILDER_ASSETS is set
cargo run --bin {{name}}         # run against the cluster of your kubeconfig
cargo run --bin {{name}} -- --leader-elect   # as the Deployment runs it: controllers on the Lease holder only
docker build -t {{image}} .
kubectl apply --server-side -k rbac-out/   # or: helm install {{name}} rbac-out/chart
```

The envtest tests run a real kube-apiserver and etcd: point `KUBEBUILDER_ASSETS` at them
(`go install sigs.k8s.io/controller-runtime/tools/setup-envtest@latest` then
`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)`); without it they are skipped.

## Layout

- `{{name}}/src/api/`: the kinds (`#[kube_markers::crd]`), one module per group and version;
- `{{name}}/src/controllers/`: a reconciler per kind, its `#[rbac]` next to its calls;
- `{{name}}/src/webhooks/`: admission handlers (`#[kube_markers::webhook]`);
- `{{name}}/src/main.rs`: probes, preflight, webhook server, controllers (with `--leader-elect`,
  on the holder of the Lease `{{name}}-leader` only);
- `{{name}}/tests/`: envtest tests, each under the bundle's ServiceAccount;
- `codegen/`: the generator, and the bundle's identity in its `Cargo.toml`;
- `config/samples/`: a sample object per kind;
- `rbac-out/`: generated, committed.

The `+kube-markers:scaffold:` comments are where `kube-markers create` adds code: keep them.
"#;
