//! The workspace's sources, walked: every `#[rbac]`, `#[crd]` and `#[webhook]` written in them,
//! found by a token-level scan of each file ([`crate::input::scan`]: syn only for the
//! attributes that matter, and for the errors of a file that does not lex), so the registry can
//! be checked for entries the linker never saw.
//!
//! It follows each library and binary target's module tree from its root file (`mod x;`,
//! `#[path]`, inline modules, `include!` of a literal path), records the `cfg`s an attribute
//! depends on, and keeps its arguments for the macro's own parser. Which attributes a file
//! holds is decided by the same rules the macros use to refuse every spelling the scan could
//! not find (`kube_markers_core::call_site`).
//!
//! Files of a package that the module walk never reached are read too (cheaply: only those
//! whose text mentions an attribute are parsed), so an attribute in a file the walk cannot
//! follow (a `mod` declared by a macro, an `include!` of a computed path) is reported, not
//! skipped.

use crate::input::scan::calls::CrateFile;
use crate::input::scan::{FileScan, IncludePath, Lexed, scan_source, scan_source_lexed};
use crate::input::workspace::{TargetKind, Workspace};
use kube_markers_core::cfg::Cfg;
use kube_markers_core::model::AttrKind;
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// One attribute found in the source.
#[derive(Debug, Clone)]
pub struct FoundAttr {
    /// `#[rbac]` or `#[crd]`.
    pub kind: AttrKind,
    /// Package it was found in.
    pub package: String,
    /// The package's library crate name, as `link!` names it.
    pub krate: String,
    /// The target whose module tree reaches the file; `None` for a file none reaches.
    pub target: Option<TargetKind>,
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
    pub errors: Vec<ScanProblem>,
    /// Things a user should know (module files not found, includes not followed).
    pub warnings: Vec<ScanProblem>,
    /// The kube calls of each library and binary file the module walk reached (read with
    /// the same text as its attributes), for the call check (`check::calls`).
    pub calls: Vec<FoundCalls>,
}

/// The kube calls of one file.
#[derive(Debug, Clone)]
pub struct FoundCalls {
    /// Package it was found in.
    pub package: String,
    /// The package's library crate name, as `link!` names it.
    pub krate: String,
    /// Absolute path of the file.
    pub file: PathBuf,
    /// What the scan found.
    pub calls: crate::input::scan::calls::FileCalls,
}

/// A file whose kube calls are read: its path, its crate (the target's number), its module, its
/// text, and the cfgs of the `mod` declarations that led to it.
/// A file whose calls are read: its path, crate, module, text, the cfgs that led to it, and
/// its tokens when the attribute scan lexed it.
type CallText = (PathBuf, u32, Vec<String>, String, Vec<Cfg>, Option<Lexed>);

/// Something the scan could not read or follow; each names the file (relative to the workspace
/// root) and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanProblem {
    /// A file the module walk reached cannot be read.
    Unreadable {
        /// The file.
        file: String,
        /// Why.
        error: String,
    },
    /// A file the module walk reached does not parse.
    Unparsable {
        /// The file.
        file: String,
        /// Where the parser stopped (1-based line and column).
        at: (usize, usize),
        /// The parser's message.
        message: String,
        /// The package.
        package: String,
    },
    /// The file of a `mod x;` is not where the compiler would look.
    ModuleNotFound {
        /// The declaring file.
        file: String,
        /// The line of the `mod`.
        line: usize,
        /// The module's name.
        module: String,
        /// The `cfg_attr` predicate of the `path` looked for, if that is what was looked for.
        cfg_attr: Option<String>,
        /// The files looked for.
        looked_for: Vec<String>,
    },
    /// An `include!` of a path the scan cannot compute.
    IncludeNotFollowed {
        /// The including file.
        file: String,
        /// The line of the `include!`.
        line: usize,
        /// Its argument, as written.
        written: String,
    },
    /// A file no module tree reaches that names an attribute and does not parse.
    UnreachedUnparsable {
        /// The file.
        file: String,
        /// The parser's message.
        message: String,
        /// The package.
        package: String,
    },
}

impl fmt::Display for ScanProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanProblem::Unreadable { file, error } => write!(f, "{file}: cannot read: {error}"),
            ScanProblem::Unparsable {
                file,
                at: (line, column),
                message,
                package,
            } => write!(
                f,
                "{file}:{line}:{column}: cannot parse: {message} (package `{package}`)"
            ),
            ScanProblem::ModuleNotFound {
                file,
                line,
                module,
                cfg_attr: Some(pred),
                looked_for,
            } => write!(
                f,
                "{file}:{line}: module file for `mod {module};` under `cfg_attr({pred}, path = \
                 ...)` not found (looked for {}); its attributes, if any, were not scanned",
                looked_for.join(" and ")
            ),
            ScanProblem::ModuleNotFound {
                file,
                line,
                module,
                cfg_attr: None,
                looked_for,
            } => write!(
                f,
                "{file}:{line}: module file for `mod {module};` not found (looked for {}); its \
                 attributes, if any, were not scanned",
                looked_for.join(" and ")
            ),
            ScanProblem::IncludeNotFollowed {
                file,
                line,
                written,
            } => write!(
                f,
                "{file}:{line}: `include!({written})` names a file the scan cannot compute; \
                 attributes in it are checked only if another file of the package leads the \
                 scan to it"
            ),
            ScanProblem::UnreachedUnparsable {
                file,
                message,
                package,
            } => write!(
                f,
                "{file}: not reached by any target's module tree, and it does not parse \
                 ({message}); it was not scanned (package `{package}`)"
            ),
        }
    }
}

impl std::error::Error for ScanProblem {}

/// Scans every target of every package of `workspace`.
pub fn scan(workspace: &Workspace) -> ScanReport {
    scan_with_calls(workspace, &[])
}

/// [`scan`], and the kube calls of the packages whose library crate is one of `calls_of`
/// (the linked crates: the others' calls are not the operator's).
pub fn scan_with_calls(workspace: &Workspace, calls_of: &[&str]) -> ScanReport {
    let mut report = scan_packages(&workspace.root, &workspace.packages, calls_of);
    // A call behind a `cfg` the workspace's build leaves out is not made (as an attribute
    // there is not in the output); one the scan cannot evaluate counts, as for attributes.
    if report
        .calls
        .iter()
        .any(|f| f.calls.calls.iter().any(|c| !c.cfgs.is_empty()))
    {
        let env = workspace.cfg_env();
        for file in &mut report.calls {
            let package = file.package.clone();
            file.calls.calls.retain(|c| {
                c.cfgs.is_empty()
                    || !matches!(
                        env.eval_all(&c.cfgs, &package),
                        crate::input::cfg::Truth::False(_)
                    )
            });
        }
    }
    report
}

fn scan_packages(
    root: &Path,
    packages: &[crate::input::workspace::Package],
    calls_of: &[&str],
) -> ScanReport {
    let mut report = ScanReport::default();
    for pkg in packages {
        let mut walker = Walker {
            read_calls: calls_of.contains(&pkg.lib_crate.as_str()),
            root,
            package: &pkg.name,
            package_dir: &pkg.dir,
            krate: &pkg.lib_crate,
            target: None,
            report: &mut report,
            visited: BTreeSet::new(),
            walked: BTreeSet::new(),
            open: Vec::new(),
            call_texts: Vec::new(),
            crate_root: 0,
            targets: pkg.targets.iter().map(|t| t.kind.clone()).collect(),
            module: Vec::new(),
        };
        // Each target walks its own tree: a module file shared by the library (behind a
        // cfg) and a binary (unconditionally) is judged for each.
        let mut reached = BTreeSet::new();
        for (root, target) in (0..).zip(&pkg.targets) {
            walker.target = Some(&target.kind);
            walker.crate_root = root;
            walker.walk_file(&target.root, &module_dir_of_root(&target.root), &[]);
            reached.append(&mut walker.visited);
            walker.walked.clear();
        }
        walker.read_package_calls();
        walker.visited = reached;
        walker.target = None;
        let mut dirs: Vec<PathBuf> = pkg
            .targets
            .iter()
            .map(|t| module_dir_of_root(&t.root))
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
    // A file both the library and a binary reach was read for each.
    report.calls.sort_by(|a, b| a.file.cmp(&b.file));
    report.calls.dedup_by(|a, b| a.file == b.file);
    report.attrs.sort_by(|a, b| {
        (&a.file, a.line, a.column, &a.target).cmp(&(&b.file, b.line, b.column, &b.target))
    });
    // One attribute reached by several routes (a file declared twice, under different
    // cfgs) is compiled when any route is.
    report.attrs.dedup_by(|a, b| {
        let same =
            a.file == b.file && a.line == b.line && a.column == b.column && a.target == b.target;
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

fn module_dir_of_root(root: &Path) -> PathBuf {
    root.parent().map(Path::to_path_buf).unwrap_or_default()
}

struct Walker<'a> {
    /// Whether the package's kube calls are read too.
    read_calls: bool,
    root: &'a Path,
    package: &'a str,
    /// The package's directory: `CARGO_MANIFEST_DIR`.
    package_dir: &'a Path,
    krate: &'a str,
    target: Option<&'a TargetKind>,
    report: &'a mut ScanReport,
    /// Files read for the target being walked; for the sweep, those of every target.
    visited: BTreeSet<PathBuf>,
    /// Each file with the cfgs it was reached under: a file declared twice (`#[cfg(test)]
    /// #[path = "x.rs"] mod a;` and `mod x;`) is judged under each.
    walked: BTreeSet<(PathBuf, String)>,
    /// The files being walked, outermost first: an `include!` of itself must not loop.
    open: Vec<PathBuf>,
    /// Each file whose kube calls are read, for `read_package_calls`.
    call_texts: Vec<CallText>,
    /// The target being walked (its number in the package): each is a crate of its own.
    crate_root: u32,
    /// The package's targets, in order (their numbers).
    targets: Vec<TargetKind>,
    /// The module of the file being walked, from its crate's root.
    module: Vec<String>,
}

impl Walker<'_> {
    /// `path` relative to the workspace root, for messages.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn read(&mut self, file: &Path, cfgs: &[Cfg]) -> Option<FileScan> {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                self.report.errors.push(ScanProblem::Unreadable {
                    file: self.shown(file),
                    error: e.to_string(),
                });
                return None;
            }
        };
        // Most files of a real workspace hold neither an attribute nor a module to follow:
        // they need no parse.
        let (found, lexed) = match may_hold_attribute_or_module(&text) {
            true => self.parse(file, &text),
            false => (None, None),
        };
        self.calls(file, text, cfgs, lexed);
        found
    }

    /// The kube calls of a file the operator runs: a library's or a binary's, not behind
    /// `cfg(test)`, kept (its text and tokens, moved here) until its package is walked. A
    /// file that does not parse is reported by the attribute scan.
    fn calls(&mut self, file: &Path, text: String, cfgs: &[Cfg], lexed: Option<Lexed>) {
        let runs = self.read_calls
            && matches!(self.target, Some(TargetKind::Lib | TargetKind::Bin(_)))
            && !cfgs.iter().any(|c| {
                let shown = c.to_string();
                shown.contains("test") && !shown.contains("not")
            });
        // Every file, not only those naming a kube word: a call site of a generic function
        // fixes its `K` (the package's files are read together, `read_package_calls`).
        if runs && !self.call_texts.iter().any(|(f, ..)| f == file) {
            self.call_texts.push((
                file.to_path_buf(),
                self.crate_root,
                self.module.clone(),
                text,
                cfgs.to_vec(),
                lexed,
            ));
        }
    }

    /// The kube calls of the package's files read by the walk: each file read as a module of
    /// its crate (the call sites of its generic functions kept everywhere, the names its
    /// modules give kube items resolved across them).
    fn read_package_calls(&mut self) {
        let files: Vec<CrateFile<'_>> = self
            .call_texts
            .iter()
            .map(|(_, root, module, text, _, lexed)| CrateFile {
                text,
                root: *root,
                module: module.clone(),
                lexed: lexed.as_ref(),
            })
            .collect();
        // The binaries' paths through the library, by its name (`use my_operator::prelude::*;`).
        let library = self
            .targets
            .iter()
            .position(|t| matches!(t, TargetKind::Lib))
            .map(|i| (i as u32, self.krate));
        let found = crate::input::scan::calls::scan_crate_files(&files, library);
        for ((file, .., file_cfgs, _), calls) in self.call_texts.iter().zip(found) {
            if let Some(mut calls) = calls {
                // The `mod`'s cfgs that led to the file come first, then the call's own.
                for call in &mut calls.calls {
                    call.cfgs.splice(0..0, file_cfgs.iter().cloned());
                }
                self.report.calls.push(FoundCalls {
                    package: self.package.to_string(),
                    krate: self.krate.to_string(),
                    file: file.clone(),
                    calls,
                });
            }
        }
        self.call_texts.clear();
    }

    /// The file's attributes and modules (`None` when it does not parse: reported), and its
    /// tokens for the call scan.
    fn parse(&mut self, file: &Path, text: &str) -> (Option<FileScan>, Option<Lexed>) {
        let (found, lexed) = scan_source_lexed(text);
        let found = match found {
            Ok(found) => Some(found),
            Err(e) => {
                let at = e.span().start();
                self.report.errors.push(ScanProblem::Unparsable {
                    file: self.shown(file),
                    at: (at.line, at.column + 1),
                    message: e.to_string(),
                    package: self.package.to_string(),
                });
                None
            }
        };
        (found, lexed)
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
            self.read(file, cfgs)
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
                    self.walk_module(m, |w| w.walk_file(&child, &child_dir, &all_cfgs));
                } else {
                    self.report.warnings.push(ScanProblem::ModuleNotFound {
                        file: self.shown(file),
                        line: m.line,
                        module: m.name.clone(),
                        cfg_attr: Some(pred.to_string()),
                        looked_for: vec![self.shown(&child)],
                    });
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
                let looked_for = candidates.iter().map(|c| self.shown(c)).collect();
                self.report.warnings.push(ScanProblem::ModuleNotFound {
                    file: self.shown(file),
                    line: m.line,
                    module: m.name.clone(),
                    cfg_attr: None,
                    looked_for,
                });
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
            self.walk_module(m, |w| w.walk_file(&child, &child_dir, &all_cfgs));
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
                    self.report.warnings.push(ScanProblem::IncludeNotFollowed {
                        file: self.shown(file),
                        line: inc.line,
                        written: written.clone(),
                    });
                    continue;
                }
            };
            let mut all_cfgs = cfgs.to_vec();
            all_cfgs.extend(inc.cfgs.iter().cloned());
            // An included file's items belong to the including module: its `mod x;` children
            // live where the includer's do.
            let mut dir = mod_dir.to_path_buf();
            dir.extend(&inc.inline_path);
            let depth = self.module.len();
            self.module.extend(inc.inline_path.iter().cloned());
            self.walk_file(&path, &dir, &all_cfgs);
            self.module.truncate(depth);
        }
    }

    /// `walk` in the module `m` declares (under the module being walked).
    fn walk_module(&mut self, m: &crate::input::scan::ModDecl, walk: impl FnOnce(&mut Self)) {
        let depth = self.module.len();
        self.module.extend(m.inline_path.iter().cloned());
        self.module.push(m.name.clone());
        walk(self);
        self.module.truncate(depth);
    }

    fn record(&mut self, file: &Path, cfgs: &[Cfg], attrs: Vec<crate::input::scan::FoundAttr>) {
        for attr in attrs {
            let mut all_cfgs = cfgs.to_vec();
            all_cfgs.extend(attr.cfgs);
            self.report.attrs.push(FoundAttr {
                kind: attr.kind,
                package: self.package.to_string(),
                krate: self.krate.to_string(),
                target: self.target.cloned(),
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
                Err(e) => self.report.warnings.push(ScanProblem::UnreachedUnparsable {
                    file: self.shown(&file),
                    message: e.to_string(),
                    package: self.package.to_string(),
                }),
            }
        }
    }
}

/// Whether a file's text names one of the attributes: every spelling the macros accept
/// contains its name (`rbac`, `crd`, `webhook`, `webhook_configuration`, `conversion`), and
/// identifiers have no escapes.
fn names_an_attribute(text: &str) -> bool {
    ["rbac", "crd", "webhook", "conversion"]
        .iter()
        .any(|name| text.contains(name))
}

/// Whether a module file may hold an attribute, a `mod` declaration or an `include!`: a file
/// whose text has none of these words has nothing for the scan.
fn may_hold_attribute_or_module(text: &str) -> bool {
    names_an_attribute(text) || text.contains("mod") || text.contains("include")
}

impl Workspace {
    /// Scans every target of every package (see [`scan`]).
    pub fn scan(&self) -> ScanReport {
        scan(self)
    }

    /// Scans every target of every package, and the kube calls of the packages whose library
    /// is one of `calls_of` (see [`scan_with_calls`]).
    pub fn scan_with_calls(&self, calls_of: &[&str]) -> ScanReport {
        scan_with_calls(self, calls_of)
    }
}
