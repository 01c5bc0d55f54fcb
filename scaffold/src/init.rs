//! `kube-markers init`: a new operator's workspace, building, generating and testing at once.

use crate::args::{self, Flag};
use crate::plan::Plan;
use crate::templates::{init as t, render};
use crate::{Error, names, project};
use std::path::Path;
use std::process::ExitCode;

/// kube-rs, k8s-openapi and schemars as kube-markers is built with (a test holds them to its
/// workspace's `Cargo.toml`).
pub const KUBE: &str = "5.0.0";
pub const K8S_OPENAPI: &str = "0.29";
pub const SCHEMARS: &str = "1";
/// The syn 3 the generator's source scan parses with (its profile is optimized).
pub const SYN3: &str = "3.0.10";
/// The Rust image the Dockerfile builds with: kube-markers' `rust-version`.
pub const RUST: &str = "1.95";

const COMMAND: &str = "kube-markers init";

const FLAGS: &[Flag] = &[
    Flag {
        name: "domain",
        value: true,
        help: "Domain of the API groups: `--group cache` becomes `cache.<domain>` (required)",
    },
    Flag {
        name: "name",
        value: true,
        help: "Project and operator crate name [default: the directory's name]",
    },
    Flag {
        name: "license",
        value: true,
        help: "SPDX license of the crates (`apache2` = Apache-2.0, `none`) [default: apache2]",
    },
    Flag {
        name: "kube-markers-path",
        value: true,
        help: "Depend on the kube-markers checkout at this path [default: the one this command was built from]",
    },
    Flag {
        name: "kube-markers-version",
        value: true,
        help: "Depend on this crates.io version of kube-markers",
    },
    Flag {
        name: "kube-markers-git",
        value: true,
        help: "Depend on kube-markers from this git repository",
    },
    crate::create::SKIP,
];

/// Where the project's kube-markers crates come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A checkout: `<path>/runtime`, `<path>/envtest`.
    Path(String),
    Version(String),
    Git(String),
}

impl Source {
    /// The default: the checkout this command was built from, else (installed from
    /// crates.io) its own version.
    pub fn default_for_this_build() -> Source {
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        match checkout.join("runtime/Cargo.toml").is_file() {
            true => Source::Path(
                checkout
                    .canonicalize()
                    .unwrap_or(checkout)
                    .display()
                    .to_string(),
            ),
            false => Source::Version(format!("={}", env!("CARGO_PKG_VERSION"))),
        }
    }

    fn dependency(&self, package: &str, dir: &str, extra: &str) -> String {
        let at = match self {
            Source::Path(p) => format!("path = {:?}", format!("{p}/{dir}")),
            Source::Version(v) => format!("version = {v:?}"),
            Source::Git(g) => format!("git = {g:?}"),
        };
        format!("{package} = {{ {at}{extra} }}")
    }
}

/// What `init` is asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub domain: String,
    pub name: String,
    /// An SPDX expression, or `None` for no license.
    pub license: Option<String>,
    pub source: Source,
}

/// `kube-markers init ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    crate::finish(run(
        args,
        &std::env::current_dir().unwrap_or_else(|_| ".".into()),
    ))
}

/// `init` in `dir`.
pub fn run(args: &[String], dir: &Path) -> Result<(), Error> {
    let parsed = args::parse(args, FLAGS, COMMAND)?;
    if parsed.help {
        print!(
            "{}",
            args::help(
                "kube-markers init --domain DOMAIN [--name NAME] [OPTIONS]",
                "Write a new operator's Cargo workspace in the current directory: the operator \
                 crate (probes, preflight, controllers), the generator with the deploy bundle's \
                 identity, a Dockerfile and CI. It ends by running the generator, which \
                 writes rbac-out/ (the bundle; `create api` adds a kind and its roles).",
                FLAGS
            )
        );
        return Ok(());
    }
    let options = options(&parsed, dir)?;
    let mut plan = Plan::new(dir);
    plan_files(&mut plan, &options)?;
    for line in plan.write()? {
        eprintln!("{line}");
    }
    // The generator's first run: no attribute yet, so rbac-out/ holds the bundle alone.
    if !parsed.switch("skip-generate", false) {
        crate::regenerate(dir)?;
    }
    eprintln!(
        "\nNext: kube-markers create api --group GROUP --version v1alpha1 --kind KIND, then: \
         cargo test    (docs/start.md)"
    );
    Ok(())
}

fn options(parsed: &args::Parsed, dir: &Path) -> Result<Options, Error> {
    let domain = parsed.required("domain", COMMAND)?.to_string();
    names::domain(&domain)?;
    let name = match parsed.get("name") {
        Some(n) => n.to_string(),
        None => dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    };
    names::project(&name)?;
    let license = match parsed.get("license").unwrap_or("apache2") {
        "apache2" => Some("Apache-2.0".to_string()),
        "none" => None,
        other => Some(other.to_string()),
    };
    let sources: Vec<Source> = [
        parsed
            .get("kube-markers-path")
            .map(|p| Source::Path(p.to_string())),
        parsed
            .get("kube-markers-version")
            .map(|v| Source::Version(v.to_string())),
        parsed
            .get("kube-markers-git")
            .map(|g| Source::Git(g.to_string())),
    ]
    .into_iter()
    .flatten()
    .collect();
    let source = match sources.as_slice() {
        [] => Source::default_for_this_build(),
        [one] => one.clone(),
        _ => {
            return Err(Error::usage(
                "--kube-markers-path, --kube-markers-version and --kube-markers-git choose one \
                 source: give one of them."
                    .to_string(),
            ));
        }
    };
    if let Source::Path(p) = &source
        && !Path::new(p).join("runtime/Cargo.toml").is_file()
    {
        return Err(Error::usage(format!(
            "--kube-markers-path {p}: no kube-markers checkout there ({p}/runtime/Cargo.toml is \
             missing).\nGive the directory of a clone of https://github.com/kube-markers/kube-markers."
        )));
    }
    Ok(Options {
        domain,
        name,
        license,
        source,
    })
}

/// Plans every file of a new project.
pub fn plan_files(plan: &mut Plan, o: &Options) -> Result<(), Error> {
    let ident = names::crate_ident(&o.name);
    let image = format!("{}:0.1.0", o.name);
    let license_line = match &o.license {
        Some(l) => format!("license = {l:?}\n"),
        None => String::new(),
    };
    let record = project::record(&o.domain, &o.name);
    let kube_markers = o
        .source
        .dependency("kube-markers", "runtime", ", default-features = false");
    let envtest = o.source.dependency("kube-markers-envtest", "envtest", "");
    let values: &[(&str, &str)] = &[
        ("name", &o.name),
        ("ident", &ident),
        ("domain", &o.domain),
        ("image", &image),
        ("license_line", &license_line),
        ("record", &record),
        ("kube_markers_dep", &kube_markers),
        ("kube_markers_envtest_dep", &envtest),
        ("kube", KUBE),
        ("k8s_openapi", K8S_OPENAPI),
        ("schemars", SCHEMARS),
        ("syn3", SYN3),
        ("rust", RUST),
    ];
    let what = "`kube-markers init`";
    let files: &[(String, &str)] = &[
        ("Cargo.toml".into(), t::WORKSPACE),
        (format!("{}/Cargo.toml", o.name), t::OPERATOR_MANIFEST),
        (format!("{}/src/lib.rs", o.name), t::OPERATOR_LIB),
        (format!("{}/src/main.rs", o.name), t::OPERATOR_MAIN),
        (format!("{}/src/api/mod.rs", o.name), t::API_MOD),
        (
            format!("{}/src/controllers/mod.rs", o.name),
            t::CONTROLLERS_MOD,
        ),
        (format!("{}/src/webhooks/mod.rs", o.name), t::WEBHOOKS_MOD),
        ("codegen/Cargo.toml".into(), t::CODEGEN_MANIFEST),
        ("codegen/src/main.rs".into(), t::CODEGEN_MAIN),
        ("Dockerfile".into(), t::DOCKERFILE),
        (".dockerignore".into(), t::DOCKERIGNORE),
        (".gitignore".into(), t::GITIGNORE),
        (".github/workflows/ci.yml".into(), t::WORKFLOW),
        ("README.md".into(), t::README),
    ];
    for (rel, template) in files {
        let mut text = render(template, values);
        if o.license.is_none() {
            text = text.replace("license.workspace = true\n", "");
        }
        plan.create(rel, text, what)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
