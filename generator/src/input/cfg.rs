//! `cfg` predicates evaluated as the workspace's build evaluates them: cargo features from
//! cargo's own resolution of the workspace, target cfgs from the compiler, custom cfgs from
//! `[workspace.metadata.kube-markers] cfg = [...]`.
//!
//! The cross-check needs this only for an attribute missing from the registry, so each source
//! is asked on first use (a full `cargo metadata`, `rustc --print cfg`), never on a clean run.

use kube_markers_core::cfg::Cfg;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

/// Whether a predicate holds in the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Truth {
    /// Active.
    True,
    /// Inactive; the reason names the deciding cfg (`feature "x" of `pkg` is off`).
    False(String),
    /// The scan cannot tell: the cfgs it cannot evaluate, or why.
    Unknown(String),
}

/// Names rustc itself decides. A name in this list that `rustc --print cfg` does not print is
/// off; any other name is a custom cfg (`--cfg` in RUSTFLAGS), which the scan cannot see.
const BUILTIN: &[&str] = &[
    "test",
    "doc",
    "doctest",
    "docsrs",
    "miri",
    "proc_macro",
    "clippy",
    "rustfmt",
    "debug_assertions",
    "overflow_checks",
    "ub_checks",
    "contract_checks",
    "panic",
    "unix",
    "windows",
    "fmt_debug",
    "relocation_model",
    "sanitize",
    "sanitizer_cfi_generalize_pointers",
    "sanitizer_cfi_normalize_integers",
    "target_abi",
    "target_arch",
    "target_endian",
    "target_env",
    "target_family",
    "target_feature",
    "target_has_atomic",
    "target_has_atomic_equal_alignment",
    "target_has_atomic_load_store",
    "target_os",
    "target_pointer_width",
    "target_thread_local",
    "target_vendor",
    "emscripten_wasm_eh",
];

/// Target cfgs as `rustc --print cfg` prints them: `(name, value)`.
type TargetCfgs = BTreeSet<(String, Option<String>)>;

/// Enabled features per workspace package name.
type Features = BTreeMap<String, BTreeSet<String>>;

/// Why the build's cfgs could not be learned: a `cfg` that needs them is then unknown, and
/// says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CfgError {
    /// `rustc` could not be started.
    #[error("cannot run `{command}`: {error}")]
    RustcNotRun {
        /// The command line.
        command: String,
        /// Why.
        error: String,
    },
    /// `rustc` failed.
    #[error("`{command}` failed: {stderr}")]
    RustcFailed {
        /// The command line.
        command: String,
        /// What it printed.
        stderr: String,
    },
    /// `rustc -vV` names no host.
    #[error("`rustc -vV` names no host")]
    NoHost,
    /// The workspace's feature resolution could not be read.
    #[error("cannot tell which features are on: {0}")]
    Features(String),
    /// `cargo metadata` resolved no dependency graph.
    #[error("`cargo metadata` printed no dependency resolution")]
    NoResolve,
}

/// What the build sets. Each source is consulted lazily.
#[derive(Debug)]
pub struct CfgEnv {
    manifest_path: Option<PathBuf>,
    custom: Option<Vec<String>>,
    /// Enabled features per workspace package name.
    features: OnceCell<Result<Features, CfgError>>,
    /// `rustc --print cfg` of the host, as (name, value) pairs.
    target: OnceCell<Result<TargetCfgs, CfgError>>,
}

impl CfgEnv {
    /// `custom`: the workspace's declared custom cfgs, `None` if it declares none.
    pub fn new(manifest_path: Option<PathBuf>, custom: Option<Vec<String>>) -> Self {
        CfgEnv {
            manifest_path,
            custom,
            features: OnceCell::new(),
            target: OnceCell::new(),
        }
    }

    /// A fixed environment, for tests: these features per package and these target cfgs.
    pub fn fixed(
        features: BTreeMap<String, BTreeSet<String>>,
        target: &[(&str, Option<&str>)],
        custom: Option<Vec<String>>,
    ) -> Self {
        let env = CfgEnv::new(None, custom);
        let _ = env.features.set(Ok(features));
        let _ = env.target.set(Ok(target
            .iter()
            .map(|(n, v)| (n.to_string(), v.map(str::to_string)))
            .collect()));
        env
    }

    /// Whether all of `cfgs` hold for an attribute of `package`.
    pub fn eval_all(&self, cfgs: &[Cfg], package: &str) -> Truth {
        self.eval(&Cfg::All(cfgs.to_vec()), package)
    }

    /// Three-valued: `all` is false if any part is false, `any` true if any part is true.
    pub fn eval(&self, cfg: &Cfg, package: &str) -> Truth {
        match cfg {
            Cfg::Literal(true) => Truth::True,
            Cfg::Literal(false) => Truth::False("`false`".into()),
            Cfg::Not(inner) => match self.eval(inner, package) {
                Truth::True => Truth::False(format!("`{inner}` holds")),
                Truth::False(_) => Truth::True,
                unknown => unknown,
            },
            Cfg::All(items) => {
                let mut unknown = Vec::new();
                for item in items {
                    match self.eval(item, package) {
                        Truth::True => {}
                        f @ Truth::False(_) => return f,
                        Truth::Unknown(why) => unknown.push(why),
                    }
                }
                if unknown.is_empty() {
                    Truth::True
                } else {
                    Truth::Unknown(unknown.join("; "))
                }
            }
            Cfg::Any(items) => {
                let mut unknown = Vec::new();
                let mut reasons = Vec::new();
                for item in items {
                    match self.eval(item, package) {
                        Truth::True => return Truth::True,
                        Truth::False(why) => reasons.push(why),
                        Truth::Unknown(why) => unknown.push(why),
                    }
                }
                if !unknown.is_empty() {
                    Truth::Unknown(unknown.join("; "))
                } else if reasons.is_empty() {
                    Truth::False("`any()` is empty".into())
                } else {
                    Truth::False(reasons.join(" and "))
                }
            }
            Cfg::KeyValue(key, value) if key == "feature" => match self.features() {
                Ok(features) => {
                    let on = features
                        .get(package)
                        .is_some_and(|enabled| enabled.contains(value));
                    if on {
                        Truth::True
                    } else {
                        Truth::False(format!(
                            "feature `{value}` of `{package}` is off in the workspace's build"
                        ))
                    }
                }
                Err(e) => Truth::Unknown(e.to_string()),
            },
            Cfg::Name(name) => self.builtin_or_custom(name, None),
            Cfg::KeyValue(key, value) => self.builtin_or_custom(key, Some(value)),
        }
    }

    fn builtin_or_custom(&self, name: &str, value: Option<&str>) -> Truth {
        let shown = match value {
            Some(v) => format!("{name} = \"{v}\""),
            None => name.to_string(),
        };
        if BUILTIN.contains(&name) {
            // The generator is a normal build of libraries and binaries: never a test, a doc
            // build, a proc-macro or miri.
            // Set by the build profile: the generator's own build says nothing about the
            // operator's.
            if let Some(why) = kube_markers_core::cfg::set_by_the_profile(name) {
                return Truth::Unknown(why);
            }
            let set = match (name, value) {
                ("test" | "doc" | "doctest" | "docsrs" | "miri" | "proc_macro", _) => Ok(false),
                ("clippy" | "rustfmt", _) => Ok(false),
                _ => self
                    .target()
                    .map(|set| set.contains(&(name.to_string(), value.map(str::to_string)))),
            };
            return match set {
                Ok(true) => Truth::True,
                Ok(false) => Truth::False(format!("`{shown}` is not set")),
                Err(e) => Truth::Unknown(e.to_string()),
            };
        }
        match &self.custom {
            Some(declared) => {
                let spelled = |d: &str| d.replace(' ', "") == shown.replace(' ', "");
                if declared.iter().any(|d| spelled(d)) {
                    Truth::True
                } else {
                    Truth::False(format!(
                        "`{shown}` is not in [workspace.metadata.kube-markers] cfg"
                    ))
                }
            }
            None => Truth::Unknown(format!(
                "`{shown}` is a custom cfg (set with --cfg in RUSTFLAGS, which the scan cannot \
                 see); declare the custom cfgs your build sets in \
                 `[workspace.metadata.kube-markers] cfg = [...]` (an empty list if none)"
            )),
        }
    }

    fn features(&self) -> Result<&Features, &CfgError> {
        self.features
            .get_or_init(|| resolved_features(self.manifest_path.as_deref()))
            .as_ref()
    }

    fn target(&self) -> Result<&TargetCfgs, CfgError> {
        self.target
            .get_or_init(rustc_cfgs)
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Features cargo enables for each workspace member when it builds the whole workspace.
fn resolved_features(manifest_path: Option<&std::path::Path>) -> Result<Features, CfgError> {
    // Resolved for the host only, as the generator's build is: features that only other
    // platforms' dependencies enable are not on here.
    let host = rustc_host()?;
    let json = crate::input::cargo::cargo_metadata(manifest_path, &["--filter-platform", &host])
        .map_err(|e| CfgError::Features(kube_markers_core::error_text::with_sources(&e)))?;
    let metadata: cargo_metadata::Metadata = serde_json::from_value(json)
        .map_err(|e| CfgError::Features(format!("`cargo metadata` printed invalid JSON: {e}")))?;
    features_from_metadata(&metadata)
}

/// The `resolve` part of `cargo metadata`, keyed by workspace package name.
pub fn features_from_metadata(metadata: &cargo_metadata::Metadata) -> Result<Features, CfgError> {
    let resolve = metadata.resolve.as_ref().ok_or(CfgError::NoResolve)?;
    let names: BTreeMap<&cargo_metadata::PackageId, &str> = metadata
        .packages
        .iter()
        .map(|p| (&p.id, p.name.as_str()))
        .collect();
    Ok(resolve
        .nodes
        .iter()
        .filter(|node| metadata.workspace_members.contains(&node.id))
        .filter_map(|node| {
            let features = node.features.iter().map(|f| f.to_string()).collect();
            Some((names.get(&node.id)?.to_string(), features))
        })
        .collect())
}

/// The output of `rustc ARGS` (`$RUSTC` when cargo runs us).
fn rustc(args: &[&str]) -> Result<String, CfgError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let command = format!("{} {}", rustc.to_string_lossy(), args.join(" "));
    let output = Command::new(&rustc)
        .args(args)
        .output()
        .map_err(|e| CfgError::RustcNotRun {
            command: command.clone(),
            error: e.to_string(),
        })?;
    if !output.status.success() {
        return Err(CfgError::RustcFailed {
            command,
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn rustc_host() -> Result<String, CfgError> {
    rustc(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or(CfgError::NoHost)
}

fn rustc_cfgs() -> Result<TargetCfgs, CfgError> {
    rustc(&["--print", "cfg"]).map(|text| parse_print_cfg(&text))
}

/// `rustc --print cfg` lines: `unix`, `target_os="linux"`.
pub fn parse_print_cfg(text: &str) -> TargetCfgs {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| match line.split_once('=') {
            Some((name, value)) => (
                name.trim().to_string(),
                Some(value.trim().trim_matches('"').to_string()),
            ),
            None => (line.trim().to_string(), None),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn env(custom: Option<Vec<String>>) -> CfgEnv {
        let features = BTreeMap::from([(
            "op".to_string(),
            BTreeSet::from(["default".to_string(), "x".to_string()]),
        )]);
        CfgEnv::fixed(
            features,
            &[("unix", None), ("target_os", Some("linux"))],
            custom,
        )
    }

    fn eval(env: &CfgEnv, cfg: proc_macro2::TokenStream) -> Truth {
        env.eval(&Cfg::parse(cfg).unwrap(), "op")
    }

    #[test]
    fn features_targets_and_build_kind() {
        let env = env(None);
        assert_eq!(eval(&env, quote!(feature = "x")), Truth::True);
        assert!(
            matches!(eval(&env, quote!(feature = "y")), Truth::False(why) if why.contains("feature `y` of `op`"))
        );
        assert_eq!(eval(&env, quote!(not(test))), Truth::True);
        assert!(matches!(eval(&env, quote!(test)), Truth::False(_)));
        assert_eq!(eval(&env, quote!(all())), Truth::True);
        assert_eq!(
            eval(&env, quote!(all(unix, target_os = "linux"))),
            Truth::True
        );
        assert!(matches!(eval(&env, quote!(windows)), Truth::False(_)));
        assert!(matches!(eval(&env, quote!(any())), Truth::False(_)));
        assert_eq!(eval(&env, quote!(true)), Truth::True);
        assert!(
            matches!(eval(&env, quote!(not(debug_assertions))), Truth::Unknown(why) if why.contains("build profile"))
        );
        // `panic = "abort"` in `[profile.release]` only: on in the deployed build, off here.
        assert!(
            matches!(eval(&env, quote!(panic = "abort")), Truth::Unknown(why) if why.contains("[profile.*] panic"))
        );
        assert!(
            matches!(eval(&env, quote!(ub_checks)), Truth::Unknown(why) if why.contains("[profile.*] debug-assertions"))
        );
        assert!(
            matches!(eval(&env, quote!(not(panic = "unwind"))), Truth::Unknown(why) if why.contains("build profile"))
        );
    }

    #[test]
    fn custom_cfgs_are_unknown_unless_declared() {
        let undeclared = env(None);
        assert!(
            matches!(eval(&undeclared, quote!(tokio_unstable)), Truth::Unknown(why) if why.contains("tokio_unstable"))
        );
        // A false part decides `all`, a true part decides `any`, whatever is unknown.
        assert!(matches!(
            eval(&undeclared, quote!(all(tokio_unstable, test))),
            Truth::False(_)
        ));
        assert_eq!(
            eval(&undeclared, quote!(any(tokio_unstable, unix))),
            Truth::True
        );
        let declared = env(Some(vec!["tokio_unstable".into(), "level=\"2\"".into()]));
        assert_eq!(eval(&declared, quote!(tokio_unstable)), Truth::True);
        assert_eq!(eval(&declared, quote!(level = "2")), Truth::True);
        assert!(matches!(eval(&declared, quote!(other)), Truth::False(_)));
    }

    #[test]
    fn print_cfg_lines() {
        let set = parse_print_cfg("unix\ntarget_os=\"linux\"\n");
        assert!(set.contains(&("unix".to_string(), None)));
        assert!(set.contains(&("target_os".to_string(), Some("linux".to_string()))));
    }
}
