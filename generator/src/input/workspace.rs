//! The workspace scan: every `#[rbac]` and `#[crd]` written in the workspace's sources, found by
//! a token-level walk of each file (syn only for the attributes that matter, and for the
//! errors of a file that does not lex), so the registry can be checked for entries the linker
//! never saw.
//!
//! It follows each library and binary target's module tree from its root file (`mod x;`,
//! `#[path]`, inline modules, `include!` of a literal path), records the `cfg`s an attribute
//! depends on, and keeps its arguments for the macro's own parser. Which attributes a file
//! holds is decided by `kube_markers_core::scan`, the code the macros use to refuse every
//! spelling the scan could not find.
//!
//! Files of a package that the module walk never reached are read too (cheaply: only those
//! whose text mentions an attribute are parsed), so an attribute in a file the walk cannot
//! follow (a `mod` declared by a macro, an `include!` of a computed path) is reported, not
//! skipped.

use crate::input::cfg::CfgEnv;
use crate::input::metadata_cache::MetadataCache;
use crate::input::scan::{FileScan, IncludePath, scan_source};
use crate::{Error, ScanError};
use kube_markers_core::cfg::Cfg;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use kube_markers_core::model::AttrKind;

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
    /// Targets that can hold attributes: `(kind, root file)`, kind being `lib`, `bin:<name>`,
    /// `example:<name>` or `unlinkable:<crate type>` (proc-macro, cdylib, staticlib).
    pub targets: Vec<(String, PathBuf)>,
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
    /// The `cargo metadata --no-deps` output it was read from (the deploy bundle reads its
    /// identity tables there too).
    pub metadata: Value,
}

/// One attribute found in the source.
#[derive(Debug, Clone)]
pub struct FoundAttr {
    /// `#[rbac]` or `#[crd]`.
    pub kind: AttrKind,
    /// Package it was found in.
    pub package: String,
    /// The package's library crate name, as `link!` names it.
    pub krate: String,
    /// `lib`, `bin:<name>` or `example:<name>`; `None` for a file no target's module tree
    /// reaches.
    pub target: Option<String>,
    /// Absolute path of the file.
    pub file: PathBuf,
    /// Line of the attribute: its `#`, or its path inside `cfg_attr` (the registry's `line!()`).
    pub line: usize,
    /// Column (1-based, the registry's `column!()`).
    pub column: usize,
    /// Inside `cfg_attr`: the other place the compiler may put it (that `cfg_attr`'s `#`).
    pub outer: Option<(usize, usize)>,
    /// The `cfg` predicates the attribute depends on, outermost first; empty if none.
    pub cfgs: Vec<Cfg>,
    /// The attribute's arguments: the source text inside its delimiters.
    pub args: String,
}

impl FoundAttr {
    /// The arguments' normalized text, as the macro keeps it in [`RbacEntry::args`]
    /// (`None` if it has no such form, e.g. with a doc comment inside).
    ///
    /// [`RbacEntry::args`]: kube_markers_registry::RbacEntry::args
    pub fn args_text(&self) -> Option<String> {
        crate::input::scan::normalized_text(&self.args)
    }

    /// An `#[rbac]`'s arguments as the macro parses them; `None` if they do not parse (the
    /// crate would not compile then, so only a stale build could have an entry) or for the
    /// other attributes. Parsed on each call: the cross-check needs it only when the text of
    /// the arguments differs from the registry's.
    pub fn marker(&self) -> Option<kube_markers_core::model::RbacMarker> {
        if self.kind != AttrKind::Rbac {
            return None;
        }
        let tokens = self.args.parse().ok()?;
        kube_markers_core::rbac::parse_marker(tokens).ok()
    }
}

/// Everything the scan found.
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    /// Attributes, in file and line order.
    pub attrs: Vec<FoundAttr>,
    /// Problems that make the scan unreliable (unreadable or unparsable files).
    pub errors: Vec<String>,
    /// Things a user should know (module files not found, includes not followed).
    pub warnings: Vec<String>,
}

impl Workspace {
    /// Runs `cargo metadata --no-deps` (with `$CARGO` when cargo runs us), or reads its
    /// answer kept beside the generator binary while nothing it depends on has changed.
    pub fn discover(manifest_path: Option<&Path>) -> Result<Workspace, Error> {
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
        let mut ws = Self::from_metadata(&json)?;
        ws.manifest_path = manifest_path.map(Path::to_path_buf);
        Ok(ws)
    }

    /// Reads the parts of `cargo metadata` output the scan needs.
    pub fn from_metadata(json: &Value) -> Result<Workspace, Error> {
        let root = json["workspace_root"]
            .as_str()
            .ok_or(ScanError::MissingField("workspace_root"))?;
        let settings = &json["metadata"]["kube-markers"];
        // `[workspace.metadata.kube-markers] scan-exclude = ["pkg", ...]`: members that are
        // never linked into the generator on purpose (test fixtures, say).
        let excluded = string_list(settings, "scan-exclude", root)?.unwrap_or_default();
        let custom_cfgs = string_list(settings, "cfg", root)?;
        let names: Vec<&str> = json["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["name"].as_str())
            .collect();
        if let Some(unknown) = excluded.iter().find(|e| !names.contains(&e.as_str())) {
            return Err(ScanError::UnknownExclude {
                name: unknown.clone(),
                root: root.into(),
                members: names.iter().map(|n| n.to_string()).collect(),
            }
            .into());
        }
        let mut packages = Vec::new();
        for pkg in json["packages"].as_array().into_iter().flatten() {
            let name = pkg["name"].as_str().unwrap_or_default().to_string();
            if excluded.contains(&name) {
                continue;
            }
            let uses_markers = pkg["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|d| {
                    // The attributes expand to `::kube_markers::…`: a package whose
                    // dependency is named `kube_markers` in its code (a facade crate renamed
                    // to it) compiles them too.
                    let named = d["name"] == "kube-markers"
                        || matches!(d["rename"].as_str(), Some("kube_markers" | "kube-markers"));
                    named && d["kind"].is_null()
                });
            // `extern crate facade as kube_markers;` at a crate root compiles the attributes'
            // `::kube_markers::…` paths too (a facade re-exporting kube-markers, renamed in
            // code instead of in Cargo.toml).
            let uses_markers = uses_markers
                || pkg["targets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t["src_path"].as_str())
                    .any(|root| {
                        std::fs::read_to_string(root)
                            .is_ok_and(|text| renames_a_crate_to_kube_markers(&text))
                    });
            let opted_out = pkg["metadata"]["kube-markers"]["scan"] == Value::Bool(false);
            if !uses_markers || opted_out {
                continue;
            }
            let targets = pkg["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| {
                    let kinds: Vec<&str> = t["kind"]
                        .as_array()?
                        .iter()
                        .filter_map(Value::as_str)
                        .collect();
                    let src = PathBuf::from(t["src_path"].as_str()?);
                    if kinds.iter().any(|k| matches!(*k, "lib" | "rlib" | "dylib")) {
                        Some(("lib".to_string(), src))
                    } else if let Some(kind) = kinds
                        .iter()
                        .find(|k| matches!(**k, "proc-macro" | "cdylib" | "staticlib"))
                    {
                        // Compiled, never linked into a Rust program: its attributes are
                        // errors.
                        Some((format!("unlinkable:{kind}"), src))
                    } else if kinds.contains(&"bin") {
                        Some((format!("bin:{}", t["name"].as_str()?), src))
                    } else if kinds.contains(&"example") {
                        // Never linked into a generator either: reported, not an error (an
                        // example is not the deployed operator).
                        Some((format!("example:{}", t["name"].as_str()?), src))
                    } else {
                        None
                    }
                })
                .collect();
            let dir = pkg["manifest_path"]
                .as_str()
                .and_then(|m| Path::new(m).parent())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(root).join(&name));
            let lib_crate = pkg["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| {
                    t["kind"]
                        .as_array()
                        .is_some_and(|k| k.iter().any(|k| k == "lib" || k == "rlib"))
                })
                .and_then(|t| t["name"].as_str())
                .unwrap_or(&name)
                .replace('-', "_");
            packages.push(Package {
                name,
                dir,
                lib_crate,
                targets,
            });
        }
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Workspace {
            root: PathBuf::from(root),
            manifest_path: None,
            packages,
            custom_cfgs,
            metadata: json.clone(),
        })
    }

    /// What the workspace's build sets, for evaluating `cfg`s (computed on first use).
    pub fn cfg_env(&self) -> CfgEnv {
        CfgEnv::new(self.manifest_path.clone(), self.custom_cfgs.clone())
    }

    /// Scans every target of every package.
    pub fn scan(&self) -> ScanReport {
        let mut report = ScanReport::default();
        for pkg in &self.packages {
            let mut walker = Walker {
                root: &self.root,
                package: &pkg.name,
                package_dir: &pkg.dir,
                krate: &pkg.lib_crate,
                target: None,
                report: &mut report,
                visited: BTreeSet::new(),
                walked: BTreeSet::new(),
                open: Vec::new(),
            };
            // Each target walks its own tree: a module file shared by the library (behind a
            // cfg) and a binary (unconditionally) is judged for each.
            let mut reached = BTreeSet::new();
            for (target, root) in &pkg.targets {
                walker.target = Some(target);
                walker.walk_file(root, &module_dir_of_root(root), &[]);
                reached.append(&mut walker.visited);
                walker.walked.clear();
            }
            walker.visited = reached;
            walker.target = None;
            let mut dirs: Vec<PathBuf> = pkg
                .targets
                .iter()
                .map(|(_, root)| module_dir_of_root(root))
                .collect();
            dirs.sort();
            dirs.dedup();
            // `src/bin/` is inside `src/`: sweep each tree once.
            let tops: Vec<&PathBuf> = dirs
                .iter()
                .filter(|d| !dirs.iter().any(|o| o != *d && d.starts_with(o)))
                .collect();
            for dir in tops {
                walker.sweep(dir);
            }
        }
        report.attrs.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.target).cmp(&(&b.file, b.line, b.column, &b.target))
        });
        // One attribute reached by several routes (a file declared twice, under different
        // cfgs) is compiled when any route is.
        report.attrs.dedup_by(|a, b| {
            let same = a.file == b.file
                && a.line == b.line
                && a.column == b.column
                && a.target == b.target;
            if same && a.cfgs != b.cfgs {
                b.cfgs = if a.cfgs.is_empty() || b.cfgs.is_empty() {
                    Vec::new()
                } else {
                    vec![Cfg::Any(vec![
                        Cfg::All(std::mem::take(&mut b.cfgs)),
                        Cfg::All(std::mem::take(&mut a.cfgs)),
                    ])]
                };
            }
            same
        });
        report
    }
}

fn string_list(
    settings: &Value,
    key: &'static str,
    root: &str,
) -> Result<Option<Vec<String>>, Error> {
    match &settings[key] {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ScanError::NotAStringList {
                        key,
                        root: root.into(),
                        found: v.to_string(),
                    }
                    .into()
                })
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(ScanError::NotAStringList {
            key,
            root: root.into(),
            found: other.to_string(),
        }
        .into()),
    }
}

/// The `.rs` files under `dir`, sorted; hidden directories and nested packages (a directory
/// with its own `Cargo.toml`) are left out.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !path.join("Cargo.toml").exists() {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `cargo metadata` as JSON, with extra arguments (`--no-deps`, `--filter-platform`).
pub(crate) fn cargo_metadata(manifest_path: Option<&Path>, args: &[&str]) -> Result<Value, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.args(["metadata", "--format-version", "1"]).args(args);
    if let Some(path) = manifest_path {
        cmd.arg("--manifest-path").arg(path);
    }
    let output = cmd.output().map_err(|source| ScanError::CargoNotRun {
        cargo: cargo.to_string_lossy().into_owned(),
        source,
    })?;
    if !output.status.success() {
        return Err(ScanError::CargoFailed {
            manifest_path: manifest_path.map(Path::to_path_buf),
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_string(),
        }
        .into());
    }
    Ok(serde_json::from_slice(&output.stdout).map_err(ScanError::InvalidJson)?)
}

fn module_dir_of_root(root: &Path) -> PathBuf {
    root.parent().map(Path::to_path_buf).unwrap_or_default()
}

struct Walker<'a> {
    root: &'a Path,
    package: &'a str,
    /// The package's directory: `CARGO_MANIFEST_DIR`.
    package_dir: &'a Path,
    krate: &'a str,
    target: Option<&'a str>,
    report: &'a mut ScanReport,
    /// Files read for the target being walked; for the sweep, those of every target.
    visited: BTreeSet<PathBuf>,
    /// Each file with the cfgs it was reached under: a file declared twice (`#[cfg(test)]
    /// #[path = "x.rs"] mod a;` and `mod x;`) is judged under each.
    walked: BTreeSet<(PathBuf, String)>,
    /// The files being walked, outermost first: an `include!` of itself must not loop.
    open: Vec<PathBuf>,
}

impl Walker<'_> {
    /// `path` relative to the workspace root, for messages.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn read(&mut self, file: &Path) -> Option<FileScan> {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                let shown = self.shown(file);
                self.report
                    .errors
                    .push(format!("{shown}: cannot read: {e}"));
                return None;
            }
        };
        // Most files of a real workspace hold neither an attribute nor a module to follow:
        // they need no parse.
        if !may_hold_attribute_or_module(&text) {
            return None;
        }
        self.parse(file, &text)
    }

    fn parse(&mut self, file: &Path, text: &str) -> Option<FileScan> {
        match scan_source(text) {
            Ok(found) => Some(found),
            Err(e) => {
                let at = e.span().start();
                self.report.errors.push(format!(
                    "{}:{}:{}: cannot parse: {e} (package `{}`)",
                    self.shown(file),
                    at.line,
                    at.column + 1,
                    self.package
                ));
                None
            }
        }
    }

    /// Scans one module file and what it declares. `mod_dir` is where its `mod x;` children
    /// live; `cfgs` are those of the `mod` declaration or `include!` that led here.
    fn walk_file(&mut self, file: &Path, mod_dir: &Path, cfgs: &[Cfg]) {
        let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let under: Vec<String> = cfgs.iter().map(Cfg::to_string).collect();
        if self.open.contains(&canonical)
            || !self.walked.insert((canonical.clone(), under.join(" && ")))
        {
            return;
        }
        let first_time = self.visited.insert(canonical.clone());
        let found = if first_time {
            self.read(file)
        } else {
            // Read again only to judge it under other cfgs; its read errors are reported.
            std::fs::read_to_string(file)
                .ok()
                .and_then(|text| scan_source(&text).ok())
        };
        let Some(found) = found else {
            return;
        };
        self.open.push(canonical);
        self.walk_scanned(file, mod_dir, cfgs, found);
        self.open.pop();
    }

    fn walk_scanned(&mut self, file: &Path, mod_dir: &Path, cfgs: &[Cfg], found: FileScan) {
        self.record(file, cfgs, found.attrs);
        for m in &found.mods {
            let mut dir = mod_dir.to_path_buf();
            dir.extend(&m.inline_path);
            let here = file.parent().unwrap_or(Path::new("."));
            // `#[path]` is relative to the declaring file's directory at the top of a file,
            // and to the inline modules' directory inside them.
            let path_file = |p: &str| {
                if m.inline_path.is_empty() {
                    here.join(p)
                } else {
                    dir.join(p)
                }
            };
            // `#[cfg_attr(pred, path = "...")]`: each file under its own predicate, and
            // the unconditional file only where none holds (the first that holds wins).
            let mut not_before: Vec<Cfg> = Vec::new();
            for (pred, p) in &m.cfg_paths {
                let child = path_file(p);
                let mut all_cfgs = cfgs.to_vec();
                all_cfgs.extend(m.cfgs.iter().cloned());
                all_cfgs.extend(not_before.iter().cloned());
                all_cfgs.push(pred.clone());
                not_before.push(Cfg::Not(Box::new(pred.clone())));
                if child.is_file() {
                    let child_dir = child.parent().map(Path::to_path_buf).unwrap_or_default();
                    self.walk_file(&child, &child_dir, &all_cfgs);
                } else {
                    self.report.warnings.push(format!(
                        "{}:{}: module file for `mod {};` under `cfg_attr({pred}, path = ...)` \
                         not found (looked for {}); its attributes, if any, were not scanned",
                        self.shown(file),
                        m.line,
                        m.name,
                        self.shown(&child)
                    ));
                }
            }
            let candidates: Vec<PathBuf> = match &m.path_attr {
                Some(p) => vec![path_file(p)],
                None => vec![
                    dir.join(format!("{}.rs", m.name)),
                    dir.join(&m.name).join("mod.rs"),
                ],
            };
            let mut all_cfgs = cfgs.to_vec();
            all_cfgs.extend(m.cfgs.iter().cloned());
            all_cfgs.extend(not_before);
            let Some(child) = candidates.iter().find(|c| c.is_file()) else {
                if !m.cfg_paths.is_empty() {
                    // Only the conditional files may exist.
                    continue;
                }
                let looked: Vec<String> = candidates.iter().map(|c| self.shown(c)).collect();
                self.report.warnings.push(format!(
                    "{}:{}: module file for `mod {};` not found (looked for {}); its \
                     attributes, if any, were not scanned",
                    self.shown(file),
                    m.line,
                    m.name,
                    looked.join(" and ")
                ));
                continue;
            };
            // A `mod.rs` (or a `#[path]` file) holds its children beside it; `foo.rs` holds
            // them in `foo/`.
            let child_dir = if m.path_attr.is_some() || child.ends_with("mod.rs") {
                child.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                dir.join(&m.name)
            };
            let child = child.clone();
            self.walk_file(&child, &child_dir, &all_cfgs);
        }
        for inc in &found.includes {
            let here = file.parent().unwrap_or(Path::new("."));
            let path = match &inc.path {
                IncludePath::Relative(p) => here.join(p),
                IncludePath::ManifestDir(rest) => {
                    PathBuf::from(format!("{}{rest}", self.package_dir.display()))
                }
                // The macros refuse attributes in a build script's output.
                IncludePath::OutDir => continue,
                IncludePath::Unknown(written) => {
                    self.report.warnings.push(format!(
                        "{}:{}: `include!({written})` names a file the scan cannot compute; \
                         attributes in it are checked only if another file of the package \
                         leads the scan to it",
                        self.shown(file),
                        inc.line
                    ));
                    continue;
                }
            };
            let mut all_cfgs = cfgs.to_vec();
            all_cfgs.extend(inc.cfgs.iter().cloned());
            // An included file's items belong to the including module: its `mod x;` children
            // live where the includer's do.
            let mut dir = mod_dir.to_path_buf();
            dir.extend(&inc.inline_path);
            self.walk_file(&path, &dir, &all_cfgs);
        }
    }

    fn record(&mut self, file: &Path, cfgs: &[Cfg], attrs: Vec<crate::input::scan::FoundAttr>) {
        for attr in attrs {
            let mut all_cfgs = cfgs.to_vec();
            all_cfgs.extend(attr.cfgs);
            self.report.attrs.push(FoundAttr {
                kind: attr.kind,
                package: self.package.to_string(),
                krate: self.krate.to_string(),
                target: self.target.map(str::to_string),
                file: file.to_path_buf(),
                line: attr.line,
                column: attr.column,
                outer: attr.outer,
                cfgs: all_cfgs,
                args: attr.args,
            });
        }
    }

    /// The `.rs` files under a target's source directory that no module tree reached: an
    /// attribute in one of them is recorded with no target, for the cross-check to judge.
    /// Hidden directories and nested packages are skipped.
    fn sweep(&mut self, dir: &Path) {
        for file in rust_files(dir) {
            let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
            if self.visited.contains(&canonical) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            // Only a file that names an attribute can hold one.
            if !names_an_attribute(&text) {
                continue;
            }
            self.visited.insert(canonical);
            // Not compiled as far as the module walk knows: a file that does not parse is
            // worth a warning, not a failed run.
            match scan_source(&text) {
                Ok(found) => self.record(&file, &[], found.attrs),
                Err(e) => self.report.warnings.push(format!(
                    "{}: not reached by any target's module tree, and it does not parse ({e}); it \
                     was not scanned (package `{}`)",
                    self.shown(&file),
                    self.package
                )),
            }
        }
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

/// Whether a file's text names one of the attributes: every spelling the macros accept
/// contains its name (`rbac`, `crd`, `webhook`, `webhook_configuration`), and identifiers
/// have no escapes.
fn names_an_attribute(text: &str) -> bool {
    ["rbac", "crd", "webhook"]
        .iter()
        .any(|name| text.contains(name))
}

/// Whether a module file may hold an attribute, a `mod` declaration or an `include!`: a file
/// whose text has none of these words has nothing for the scan.
fn may_hold_attribute_or_module(text: &str) -> bool {
    names_an_attribute(text) || text.contains("mod") || text.contains("include")
}
