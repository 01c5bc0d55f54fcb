//! The workspace as `cargo metadata` describes it: the members that use kube-markers, their
//! targets (whose module trees the scan walks), and the workspace's kube-markers settings.

use crate::input::cargo::cargo_metadata;
use crate::input::cfg::CfgEnv;
use crate::input::metadata_cache::MetadataCache;
use crate::input::scan_error::ScanError;
use crate::invocation::{Invocation, PackageInWorkspace};
use cargo_metadata::{Metadata, Package as CargoPackage};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

pub use kube_markers_core::model::AttrKind;

/// What a target is, as far as attributes go: whether a generator can link it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetKind {
    /// A binary (`bin:<name>`): compiled, never linked into another program.
    Bin(String),
    /// An example (`example:<name>`): never the deployed operator.
    Example(String),
    /// The library (`lib`, `rlib` or `dylib`), the one kind a generator links.
    Lib,
    /// A crate no Rust program links (`unlinkable:<crate type>`: proc-macro, cdylib,
    /// staticlib).
    Unlinkable(String),
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetKind::Bin(name) => write!(f, "bin:{name}"),
            TargetKind::Example(name) => write!(f, "example:{name}"),
            TargetKind::Lib => f.write_str("lib"),
            TargetKind::Unlinkable(crate_type) => write!(f, "unlinkable:{crate_type}"),
        }
    }
}

/// A target that can hold attributes: what it is and its module tree's root file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// What it is.
    pub kind: TargetKind,
    /// Its root file (`src/lib.rs`, `src/main.rs`, ...).
    pub root: PathBuf,
}

impl Target {
    /// The target `kind` whose module tree starts at `root`.
    pub fn new(kind: TargetKind, root: impl Into<PathBuf>) -> Self {
        Target {
            kind,
            root: root.into(),
        }
    }
}

/// A workspace member whose sources are scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Package name as in `Cargo.toml`.
    pub name: String,
    /// The directory of its `Cargo.toml`.
    pub dir: PathBuf,
    /// The crate name of its library, as `link!` names it (`[lib] name`, else the package
    /// name with `_` for `-`).
    pub lib_crate: String,
    /// Targets that can hold attributes.
    pub targets: Vec<Target>,
}

/// The workspace as `cargo metadata` describes it.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Workspace root directory.
    pub root: PathBuf,
    /// The manifest `cargo metadata` was run on, if not cargo's default.
    pub manifest_path: Option<PathBuf>,
    /// Members that depend on `kube-markers` and are not left out by
    /// `[package.metadata.kube-markers] scan = false` or by the workspace's
    /// `[workspace.metadata.kube-markers] scan-exclude = [...]`.
    pub packages: Vec<Package>,
    /// `[workspace.metadata.kube-markers] cfg = [...]`: the custom cfgs the build sets (beyond
    /// cargo's features and rustc's target cfgs), as `name` or `name="value"`. `None` when
    /// the key is absent: custom cfgs are then unknown to the scan.
    pub custom_cfgs: Option<Vec<String>>,
    /// `cargo metadata --no-deps`, typed (the deploy bundle reads its identity tables there).
    pub metadata: Metadata,
}

impl Workspace {
    /// Runs `cargo metadata --no-deps` (with `$CARGO` when cargo runs us), or reads its
    /// answer kept beside the generator binary while nothing it depends on has changed.
    pub fn discover(manifest_path: Option<&Path>) -> Result<Workspace, ScanError> {
        let cache = MetadataCache::for_this_binary(manifest_path);
        let json = match cache.as_ref().and_then(MetadataCache::load) {
            Some(json) => json,
            None => {
                let asked_at = std::time::SystemTime::now();
                let json = cargo_metadata(manifest_path, &["--no-deps"])?;
                if let Some(cache) = &cache {
                    cache.store(&json, asked_at);
                }
                json
            }
        };
        let metadata = serde_json::from_value(json).map_err(ScanError::InvalidJson)?;
        let mut ws = Self::from_metadata(metadata)?;
        ws.manifest_path = manifest_path.map(Path::to_path_buf);
        Ok(ws)
    }

    /// Reads the members that use kube-markers, and the workspace's settings.
    pub fn from_metadata(metadata: Metadata) -> Result<Workspace, ScanError> {
        let root = metadata.workspace_root.as_std_path().to_path_buf();
        let settings = &metadata.workspace_metadata["kube-markers"];
        // `[workspace.metadata.kube-markers] scan-exclude = ["pkg", ...]`: members that are
        // never linked into the generator on purpose (test fixtures, say).
        let excluded = string_list(settings, "scan-exclude", &root)?.unwrap_or_default();
        let custom_cfgs = string_list(settings, "cfg", &root)?;
        let names: Vec<&str> = metadata.packages.iter().map(|p| p.name.as_str()).collect();
        if let Some(unknown) = excluded.iter().find(|e| !names.contains(&e.as_str())) {
            return Err(ScanError::UnknownExclude {
                name: unknown.clone(),
                root,
                members: names.iter().map(|n| n.to_string()).collect(),
            });
        }
        let mut packages: Vec<Package> = metadata
            .packages
            .iter()
            .filter(|pkg| !excluded.contains(&*pkg.name) && scanned(pkg))
            .map(|pkg| package(pkg, &root))
            .collect();
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Workspace {
            root,
            manifest_path: None,
            packages,
            custom_cfgs,
            metadata,
        })
    }

    /// A workspace at `root` that uses kube-markers in none of its members (tests add their
    /// own packages).
    pub fn at(root: impl Into<PathBuf>) -> Workspace {
        let root = root.into();
        let metadata = serde_json::from_value(serde_json::json!({
            "workspace_root": root,
            "packages": [],
            "workspace_members": [],
            "target_directory": root.join("target"),
            "version": 1,
        }))
        .expect("an empty workspace's metadata reads");
        Workspace {
            root,
            manifest_path: None,
            packages: Vec::new(),
            custom_cfgs: None,
            metadata,
        }
    }

    /// What the workspace's build sets, for evaluating `cfg`s (computed on first use).
    pub fn cfg_env(&self) -> CfgEnv {
        CfgEnv::new(self.manifest_path.clone(), self.custom_cfgs.clone())
    }
}

/// Whether the scan reads `pkg`: it compiles the attributes (it depends on `kube-markers`,
/// under that name or renamed to it, or a root of its renames a facade to `kube_markers`)
/// and `[package.metadata.kube-markers] scan = false` does not leave it out.
fn scanned(pkg: &CargoPackage) -> bool {
    // The attributes expand to `::kube_markers::…`: a package whose dependency is named
    // `kube_markers` in its code (a facade crate renamed to it) compiles them too.
    let named = pkg.dependencies.iter().any(|d| {
        let named = d.name == "kube-markers"
            || matches!(d.rename.as_deref(), Some("kube_markers" | "kube-markers"));
        named && d.kind == cargo_metadata::DependencyKind::Normal
    });
    // `extern crate facade as kube_markers;` at a crate root compiles the attributes'
    // `::kube_markers::…` paths too (a facade re-exporting kube-markers, renamed in code
    // instead of in Cargo.toml).
    let renamed = || {
        pkg.targets.iter().any(|t| {
            std::fs::read_to_string(&t.src_path)
                .is_ok_and(|text| renames_a_crate_to_kube_markers(&text))
        })
    };
    let opted_out = pkg.metadata["kube-markers"]["scan"] == Value::Bool(false);
    (named || renamed()) && !opted_out
}

/// A member that uses kube-markers, with the targets whose module trees may hold attributes.
fn package(pkg: &CargoPackage, root: &Path) -> Package {
    use cargo_metadata::TargetKind as Kind;
    let targets = pkg
        .targets
        .iter()
        .filter_map(|t| {
            let kind = if t
                .kind
                .iter()
                .any(|k| matches!(k, Kind::Lib | Kind::RLib | Kind::DyLib))
            {
                TargetKind::Lib
            } else if let Some(kind) = t
                .kind
                .iter()
                .find(|k| matches!(k, Kind::ProcMacro | Kind::CDyLib | Kind::StaticLib))
            {
                // Compiled, never linked into a Rust program: its attributes are errors.
                TargetKind::Unlinkable(kind.to_string())
            } else if t.kind.contains(&Kind::Bin) {
                TargetKind::Bin(t.name.clone())
            } else if t.kind.contains(&Kind::Example) {
                // Never linked into a generator either: reported, not an error (an example is
                // not the deployed operator).
                TargetKind::Example(t.name.clone())
            } else {
                return None;
            };
            Some(Target::new(kind, t.src_path.as_std_path()))
        })
        .collect();
    let dir = pkg
        .manifest_path
        .parent()
        .map(|d| d.as_std_path().to_path_buf())
        .unwrap_or_else(|| root.join(&*pkg.name));
    let lib_crate = pkg
        .targets
        .iter()
        .find(|t| t.kind.iter().any(|k| matches!(k, Kind::Lib | Kind::RLib)))
        .map_or(pkg.name.as_str(), |t| t.name.as_str())
        .replace('-', "_");
    Package {
        name: pkg.name.to_string(),
        dir,
        lib_crate,
        targets,
    }
}

/// A `[workspace.metadata.kube-markers]` list of strings; `None` when the key is absent.
fn string_list(
    settings: &Value,
    key: &'static str,
    root: &Path,
) -> Result<Option<Vec<String>>, ScanError> {
    let not_a_list = |found: &Value| ScanError::NotAStringList {
        key,
        root: root.to_path_buf(),
        found: found.to_string(),
    };
    match &settings[key] {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| not_a_list(v)))
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(not_a_list(other)),
    }
}

/// `extern crate <facade> as kube_markers;` in a crate root's text (not kube-markers' own
/// `extern crate self as kube_markers;`).
fn renames_a_crate_to_kube_markers(text: &str) -> bool {
    text.match_indices("extern crate").any(|(at, _)| {
        let rest = &text[at..];
        let statement = &rest[..rest.find(';').unwrap_or(rest.len())];
        let words: Vec<&str> = statement.split_whitespace().collect();
        match words.as_slice() {
            ["extern", "crate", facade, "as", "kube_markers"] => *facade != "self",
            _ => false,
        }
    })
}

/// `cargo metadata --no-deps` as the tests write it, less what every answer of cargo holds and
/// the workspace's code does not read (package ids and versions, dependency requirements,
/// crate types, ...): filled in, so that it reads as cargo's own.
#[doc(hidden)]
pub fn metadata_for_tests(mut json: serde_json::Value) -> cargo_metadata::Metadata {
    use serde_json::{Value, json};
    fn fill(object: &mut Value, defaults: Value) {
        let (Some(object), Value::Object(defaults)) = (object.as_object_mut(), defaults) else {
            return;
        };
        for (key, value) in defaults {
            object.entry(key).or_insert(value);
        }
    }
    let root = json["workspace_root"].clone();
    fill(
        &mut json,
        json!({"packages": [], "workspace_members": [], "target_directory": "/target", "version": 1}),
    );
    let packages = json["packages"].as_array_mut().expect("packages");
    for (i, package) in packages.iter_mut().enumerate() {
        let id = format!("path+file:///{i}#0.1.0");
        fill(
            package,
            json!({"id": id, "version": "0.1.0", "dependencies": [], "targets": [], "features": {}}),
        );
        for dependency in package["dependencies"]
            .as_array_mut()
            .expect("dependencies")
        {
            fill(
                dependency,
                json!({"req": "*", "kind": null, "optional": false, "uses_default_features": true,
                       "features": [], "source": null, "target": null, "rename": null}),
            );
        }
        for target in package["targets"].as_array_mut().expect("targets") {
            let src = target
                .get("src_path")
                .cloned()
                .unwrap_or_else(|| root.clone());
            fill(target, json!({"crate_types": [], "src_path": src}));
        }
    }
    serde_json::from_value(json).expect("the test's cargo metadata reads")
}

/// The workspace scanned has its own package of the generator's name: the generator was
/// built from another workspace. The runner refuses the run (`Error::AnotherWorkspacesGenerator`).
#[derive(Debug)]
pub(crate) struct AnotherWorkspacesGenerator {
    pub(crate) package: String,
    /// The `Cargo.toml` the generator was built from.
    pub(crate) ours: PathBuf,
    /// The workspace's package of that name.
    pub(crate) theirs: PathBuf,
    /// The scanned workspace's `Cargo.toml`.
    pub(crate) workspace: PathBuf,
}

/// The generator's package is not a member of the workspace it scans. The runner warns
/// (`Warning::GeneratorOutsideWorkspace`).
#[derive(Debug)]
pub(crate) struct GeneratorOutside {
    pub(crate) package: String,
    /// The `Cargo.toml` it was built from.
    pub(crate) ours: PathBuf,
    /// The scanned workspace's `Cargo.toml`.
    pub(crate) workspace: PathBuf,
}

/// Refuses a run of another workspace's generator (`invocation`) in this one; warns when the
/// generator stands outside the workspace it scans.
pub(crate) fn check_generator_in(
    invocation: &Invocation,
    metadata: &cargo_metadata::Metadata,
) -> Result<Option<GeneratorOutside>, AnotherWorkspacesGenerator> {
    let package = invocation.package.clone().unwrap_or_default();
    match invocation.in_workspace(metadata) {
        PackageInWorkspace::Unknown | PackageInWorkspace::Member => Ok(None),
        PackageInWorkspace::Another {
            theirs,
            ours,
            workspace,
        } => Err(AnotherWorkspacesGenerator {
            package,
            ours,
            theirs,
            workspace,
        }),
        PackageInWorkspace::Outside { ours, workspace } => Ok(Some(GeneratorOutside {
            package,
            ours,
            workspace,
        })),
    }
}
