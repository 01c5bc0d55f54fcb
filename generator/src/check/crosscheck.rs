//! Registry vs. source scan: every attribute in the workspace's sources that the build
//! compiles must have reached the registry, or the generated manifests silently lack it.

use crate::input::cfg::{CfgEnv, Truth};
use crate::input::scan::normalized_text_is;
use crate::input::sources::{FoundAttr, ScanProblem, ScanReport};
use crate::input::workspace::{AttrKind, TargetKind};
use kube_markers_registry::{CrdEntry, RbacEntry, Source};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// What the cross-check found. Errors fail the run; warnings are printed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Findings {
    /// Attributes the registry lacks (and scan failures).
    pub errors: Vec<Finding>,
    /// Attributes behind a `cfg` that is off, entries with no attribute in the source, and the
    /// scan's own warnings.
    pub warnings: Vec<Finding>,
}

pub use crate::input::Place;

/// One thing the cross-check found about one attribute or registry entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Where; `None` for the scan's own problems, whose text names the place.
    pub place: Option<Place>,
    /// Which attribute: `rbac`, `crd`, …
    pub attribute: Option<&'static str>,
    /// What is wrong.
    pub problem: Problem,
}

/// Why the cross-check reports an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The registry entry at this place has other arguments than the source: the generator was
    /// built from other sources.
    Stale,
    /// Behind `cfgs`, which are off in the workspace's build.
    CfgOff {
        /// The cfgs, as written.
        cfgs: String,
        /// Why they are off.
        why: String,
    },
    /// In an example target, which cannot be linked into a generator.
    InExample {
        /// The example's name.
        example: String,
        /// Its package.
        package: String,
    },
    /// In a file of a linked crate that no `mod` reaches and that is not in the registry.
    NotCompiled {
        /// The package.
        package: String,
    },
    /// Compiled, but in a binary target, which cannot be linked into the generator.
    InBinary {
        /// The binary's name.
        bin: String,
        /// Its package.
        package: String,
        /// Why the scan counts the attribute as compiled.
        active: Activity,
    },
    /// Compiled, but in a crate no Rust program can link: a proc-macro (it runs inside the
    /// compiler), a cdylib or a staticlib without an `rlib`/`lib` crate type beside it.
    InUnlinkableCrate {
        /// `proc-macro`, `cdylib` or `staticlib`.
        crate_type: String,
        /// Its package.
        package: String,
        /// Why the scan counts the attribute as compiled.
        active: Activity,
    },
    /// In a file no `mod` or `include!` the scan can follow leads to, and not in the registry.
    Unreachable {
        /// The package.
        package: String,
        /// Its library crate, as `link!` names it.
        krate: String,
    },
    /// Compiled, in a linked crate, and still not in the registry.
    LinkedButMissing {
        /// The crate.
        krate: String,
        /// Why the scan counts the attribute as compiled.
        active: Activity,
        /// A feature cfg is involved: the generator's dependency decides it.
        feature_cfg: bool,
    },
    /// Compiled, in a crate the generator does not link.
    NotLinked {
        /// The crate.
        krate: String,
        /// Why the scan counts the attribute as compiled.
        active: Activity,
    },
    /// A registry entry with no attribute at its place in the scanned sources.
    NoAttribute {
        /// The entry's item.
        item: String,
    },
    /// In the registry, but behind a `cfg` the build profile sets (`debug_assertions`,
    /// `overflow_checks`, `panic`): the generator's build compiled it, the deployed build of
    /// another profile may not (or the reverse), so the roles would not be the operator's.
    ProfileDependent {
        /// The cfgs, as written.
        cfgs: String,
        /// Whether the generator's build compiled it (it is in the registry).
        compiled: bool,
    },
    /// A problem of the scan itself (unreadable or unparsable file, module not found); the text
    /// names the place.
    Scan(ScanProblem),
}

/// Why the scan counts an attribute as compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Activity {
    /// It has no cfg.
    Unconditional,
    /// Its cfgs are on in the workspace's build.
    CfgOn(String),
    /// Its cfgs cannot be evaluated; unknown counts as on.
    CfgUnknown {
        /// The cfgs, as written.
        cfgs: String,
        /// Why they cannot be evaluated.
        why: String,
    },
}

impl fmt::Display for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activity::Unconditional => Ok(()),
            Activity::CfgOn(cfgs) => write!(f, " (`{cfgs}` is active in the workspace's build)"),
            Activity::CfgUnknown { cfgs, why } => write!(
                f,
                " (the scan cannot tell whether `{cfgs}` is active: {why})"
            ),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(place) = &self.place {
            write!(f, "{place}: ")?;
        }
        let name = self.attribute.unwrap_or("?");
        match &self.problem {
            Problem::Stale => write!(
                f,
                "the registry entry differs from the #[{name}] in the source; the generator was \
                 built from other sources than the ones scanned (rebuild it with `cargo run`)"
            ),
            Problem::CfgOff { cfgs, why } => write!(
                f,
                "#[{name}] behind `{cfgs}` is not in the workspace's build ({why}), so it is not \
                 in the output"
            ),
            Problem::InExample { example, package } => write!(
                f,
                "#[{name}] in example `{example}` of package `{package}` is not in the output: \
                 examples cannot be linked into a generator (move the code into the library if \
                 the operator needs it)"
            ),
            Problem::NotCompiled { package } => write!(
                f,
                "#[{name}] in a file that no `mod` or `include!` of package `{package}` leads \
                 to, and not in the registry: if the file is compiled in some build (a `mod` \
                 declared by a macro, under a feature the generator's dependency lacks), its \
                 attributes are lost; if it is not compiled, delete it"
            ),
            Problem::InBinary {
                bin,
                package,
                active,
            } => write!(
                f,
                "#[{name}] in binary target `{bin}` of package `{package}` cannot reach the \
                 generator (only library crates can be linked into it); move the reconciler \
                 into the package's library{active}"
            ),
            Problem::InUnlinkableCrate {
                crate_type,
                package,
                active,
            } => write!(
                f,
                "#[{name}] in package `{package}` (crate type `{crate_type}`) cannot reach the \
                 generator: only `lib`/`rlib` crates can be linked into it; move the code into a \
                 library crate{active}"
            ),
            Problem::Unreachable { package, krate } => write!(
                f,
                "#[{name}] in a file that no `mod` or `include!` the scan can follow leads to \
                 (package `{package}`): if the file is compiled (a `mod` declared by a macro, \
                 an `include!` of a computed path), its attributes are lost unless crate \
                 `{krate}` is linked into the generator (add it to `kube_markers::link!`); if \
                 it is not compiled, delete it"
            ),
            Problem::LinkedButMissing {
                krate,
                active,
                feature_cfg,
            } => {
                write!(
                    f,
                    "#[{name}] in crate `{krate}` is missing from the registry although the \
                     crate is linked{active}: is the generator built from these sources?"
                )?;
                if *feature_cfg {
                    f.write_str(
                        " If a feature turns it on, enable that feature where the generator \
                         depends on the crate: the generator's build decides what is in the \
                         registry.",
                    )?;
                }
                Ok(())
            }
            Problem::NotLinked { krate, active } => write!(
                f,
                "#[{name}] in crate `{krate}` is missing from the registry: the generator does \
                 not link crate `{krate}`; add it to `kube_markers::link!(...)` in the \
                 generator's main.rs (and to its [dependencies]){active}"
            ),
            Problem::NoAttribute { item } => write!(
                f,
                "registry entry of #[{name}] ({item}) has no attribute at that place in the \
                 scanned sources (is the generator built from other sources, or is the file \
                 outside the scanned packages?)"
            ),
            Problem::ProfileDependent { cfgs, compiled } => write!(
                f,
                "#[{name}] behind `{cfgs}`, which the build profile sets: {}, but a build of \
                 another profile (the deployed release build, say) {}; use a feature instead",
                if *compiled {
                    "the generator's build compiled it, so the roles grant it"
                } else {
                    "the generator's build did not compile it, so the roles do not grant it"
                },
                if *compiled {
                    "may not compile it"
                } else {
                    "may compile it"
                }
            ),
            Problem::Scan(problem) => problem.fmt(f),
        }
    }
}

impl std::error::Error for Finding {}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The file a registry entry's `file!()` names. `file!()` is absolute for crates outside the
/// build's workspace and relative to the build's workspace root otherwise; that root is
/// normally the scanned one, but a relative path that is not there is matched as a suffix, so
/// a generator built in an enclosing workspace still finds its entries.
enum EntryFile {
    /// The file, canonical.
    Canonical(PathBuf),
    /// A path relative to some other root: any file ending with it.
    Suffix,
}

impl EntryFile {
    fn of(source: &Source, workspace_root: &Path) -> Self {
        let written = Path::new(&*source.file);
        if written.is_absolute() {
            return EntryFile::Canonical(canonical(written));
        }
        let under_root = workspace_root.join(written);
        if under_root.exists() {
            return EntryFile::Canonical(canonical(&under_root));
        }
        EntryFile::Suffix
    }
}

/// The registry's entries by the place their attribute stands, for finding the entry of a
/// scanned attribute without comparing it with every entry: one lookup per attribute, each
/// distinct `file!()` resolved on disk once, and files numbered so that a lookup hashes three
/// integers and the kind, not a path.
struct Places<'a> {
    /// Canonical file → its number.
    ids: HashMap<PathBuf, usize>,
    /// (kind, line, column, file number) → entries, in registry order.
    exact: HashMap<(AttrKind, usize, usize, usize), Vec<usize>>,
    /// Entries whose file is known only by a suffix (rare), with their place.
    by_suffix: Vec<(AttrKind, usize, usize, &'a Path, usize)>,
}

impl<'a> Places<'a> {
    fn new(registered: &[(AttrKind, &'a Source, Option<&RbacEntry>)], root: &Path) -> Self {
        let mut resolved: HashMap<&str, Option<usize>> = HashMap::new();
        let mut places = Places {
            ids: HashMap::new(),
            exact: HashMap::new(),
            by_suffix: Vec::new(),
        };
        // Entries come file by file: the previous entry's file answers most of them.
        let mut last: Option<(&str, Option<usize>)> = None;
        for (i, (kind, source, _)) in registered.iter().enumerate() {
            let (line, column) = (source.line as usize, source.column as usize);
            let id = match last {
                Some((file, id)) if file == source.file => id,
                _ => *resolved.entry(&*source.file).or_insert_with(|| {
                    match EntryFile::of(source, root) {
                        EntryFile::Canonical(file) => {
                            let next = places.ids.len();
                            Some(*places.ids.entry(file).or_insert(next))
                        }
                        EntryFile::Suffix => None,
                    }
                }),
            };
            last = Some((&*source.file, id));
            match id {
                Some(id) => places
                    .exact
                    .entry((*kind, line, column, id))
                    .or_default()
                    .push(i),
                None => places
                    .by_suffix
                    .push((*kind, line, column, Path::new(&*source.file), i)),
            }
        }
        places
    }

    /// The entries (ascending) of attributes of `kind` at `place` in `file` (canonical, with
    /// its number if the registry names it).
    fn at(
        &self,
        kind: AttrKind,
        (line, column): (usize, usize),
        (file, id): (&Path, Option<usize>),
    ) -> Vec<usize> {
        let mut hits = id
            .and_then(|id| self.exact.get(&(kind, line, column, id)))
            .cloned()
            .unwrap_or_default();
        if self.by_suffix.is_empty() {
            return hits;
        }
        let before = hits.len();
        hits.extend(
            self.by_suffix
                .iter()
                .filter(|(k, l, c, written, _)| {
                    (*k, *l, *c) == (kind, line, column) && file.ends_with(written)
                })
                .map(|(.., i)| *i),
        );
        if hits.len() > before {
            hits.sort_unstable();
        }
        hits
    }
}

/// Canonical paths of scanned files, each resolved once (a file holds many attributes, and
/// the scan's attributes come file by file: the last one answers most lookups).
#[derive(Default)]
struct CanonicalFiles {
    known: HashMap<PathBuf, (PathBuf, Option<usize>)>,
    last: Option<(PathBuf, PathBuf, Option<usize>)>,
}

impl CanonicalFiles {
    /// The canonical file and its number in `places`.
    fn get(&mut self, file: &Path, places: &Places) -> (&Path, Option<usize>) {
        let hit = self
            .last
            .as_ref()
            .is_some_and(|(written, ..)| written.as_os_str() == file.as_os_str());
        if !hit {
            let (canonical, id) = self
                .known
                .entry(file.to_path_buf())
                .or_insert_with(|| {
                    let canonical = canonical(file);
                    let id = places.ids.get(&canonical).copied();
                    (canonical, id)
                })
                .clone();
            self.last = Some((file.to_path_buf(), canonical, id));
        }
        let (_, canonical, id) = self.last.as_ref().expect("just set");
        (canonical, *id)
    }
}

/// Whether the scanned `#[rbac]` has the registry entry's arguments: the same normalized
/// text, or else (text written otherwise, or an entry without text) the same parsed marker.
fn same_args(attr: &FoundAttr, entry: &RbacEntry) -> bool {
    if !entry.args.is_empty() && normalized_text_is(&attr.args, &entry.args) {
        return true;
    }
    attr.marker().is_some_and(|m| m == entry.marker)
}

/// Compares what the linker kept with what the source says.
///
/// The macros make every attribute that compiles visible to the scan, at the line and column
/// its registry entry records. An attribute the registry lacks is then an error unless its
/// `cfg`s are off in the workspace's build (`cfgs` evaluates them).
pub fn cross_check(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    scan: &ScanReport,
    linked_crates: &[&str],
    workspace_root: &Path,
    cfgs: &CfgEnv,
) -> Findings {
    cross_check_all(
        entries,
        crds,
        &[],
        scan,
        linked_crates,
        workspace_root,
        cfgs,
    )
}

/// [`cross_check`] with the registered attributes of the other kinds (`#[webhook]`,
/// `#[webhook_configuration]`), matched by place only.
pub fn cross_check_all(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    others: &[(AttrKind, Source)],
    scan: &ScanReport,
    linked_crates: &[&str],
    workspace_root: &Path,
    cfgs: &CfgEnv,
) -> Findings {
    let scan_problem = |problem: &ScanProblem| Finding {
        place: None,
        attribute: None,
        problem: Problem::Scan(problem.clone()),
    };
    let mut findings = Findings {
        errors: scan.errors.iter().map(scan_problem).collect(),
        warnings: scan.warnings.iter().map(scan_problem).collect(),
    };
    let root = canonical(workspace_root);

    // Every registered attribute, with what the scan must find for it.
    let registered: Vec<(AttrKind, &Source, Option<&RbacEntry>)> = entries
        .iter()
        .map(|e| (AttrKind::Rbac, &e.source, Some(*e)))
        .chain(crds.iter().map(|c| (AttrKind::Crd, &c.source, None)))
        .chain(others.iter().map(|(kind, source)| (*kind, source, None)))
        .collect();
    let mut matched = vec![false; registered.len()];
    let places = Places::new(&registered, &root);
    let mut files = CanonicalFiles::default();
    let rel = |p: &Path, files: &mut CanonicalFiles| -> String {
        files
            .get(p, &places)
            .0
            .strip_prefix(&root)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };
    // Each attribute's own place first; then, for attributes inside `cfg_attr`, the
    // `cfg_attr`'s `#`, where the compiler puts those whose item went through another
    // attribute macro first (several can share that place: same arguments decide).
    let mut found: Vec<Option<usize>> = scan
        .attrs
        .iter()
        .map(|attr| {
            let file = files.get(&attr.file, &places);
            let hit = places
                .at(attr.kind, (attr.line, attr.column), file)
                .into_iter()
                .next();
            if let Some(i) = hit {
                matched[i] = true;
            }
            hit
        })
        .collect();
    for (a, attr) in scan.attrs.iter().enumerate() {
        let Some(outer) = attr.outer.filter(|_| found[a].is_none()) else {
            continue;
        };
        let same_args = |i: usize| registered[i].2.is_none_or(|e| same_args(attr, e));
        let file = files.get(&attr.file, &places);
        let hit = places
            .at(attr.kind, outer, file)
            .into_iter()
            .find(|&i| !matched[i] && same_args(i));
        if let Some(i) = hit {
            matched[i] = true;
            found[a] = Some(i);
        }
    }
    for (attr, hit) in scan.attrs.iter().zip(&found) {
        // The file's text for a finding, computed only for the attributes that have one.
        let mut finding = |problem: Problem| Finding {
            place: Some(Place {
                file: rel(&attr.file, &mut files),
                line: attr.line,
                column: Some(attr.column),
            }),
            attribute: Some(attr.kind.name()),
            problem,
        };
        if let Some(i) = *hit {
            if let Some(entry) = registered[i].2
                && !same_args(attr, entry)
            {
                findings.errors.push(finding(Problem::Stale));
            }
            if attr.cfgs.iter().any(|cfg| cfg.profile_cfg().is_some()) {
                findings.errors.push(finding(Problem::ProfileDependent {
                    cfgs: shown_cfgs(attr),
                    compiled: true,
                }));
            }
            continue;
        }
        // A file no module tree reaches, of a linked crate: had it been compiled, its entries
        // would be in the registry. No build compiles it, whatever its own cfgs say.
        let unreached = attr.target.is_none() && linked_crates.contains(&attr.krate.as_str());
        // The same rule for one the generator's build left out: whatever else is wrong, the
        // profile decides it.
        if !unreached && attr.cfgs.iter().any(|cfg| cfg.profile_cfg().is_some()) {
            findings.errors.push(finding(Problem::ProfileDependent {
                cfgs: shown_cfgs(attr),
                compiled: false,
            }));
            continue;
        }
        let truth = if attr.cfgs.is_empty() {
            Truth::True
        } else {
            cfgs.eval_all(&attr.cfgs, &attr.package)
        };
        match truth {
            Truth::False(why) => findings.warnings.push(finding(Problem::CfgOff {
                cfgs: shown_cfgs(attr),
                why,
            })),
            _ if let Some(TargetKind::Example(example)) = &attr.target => {
                findings.warnings.push(finding(Problem::InExample {
                    example: example.clone(),
                    package: attr.package.clone(),
                }))
            }
            _ if unreached => findings.errors.push(finding(Problem::NotCompiled {
                package: attr.package.clone(),
            })),
            truth => findings
                .errors
                .push(finding(missing(attr, linked_crates, &truth))),
        }
    }

    // Entries of files in this workspace that the scan did not find. (Entries of crates
    // outside it, e.g. reconcilers published on crates.io, are expected.)
    for ((kind, source, _), _) in registered.iter().zip(&matched).filter(|(_, m)| !**m) {
        let path = root.join(&*source.file);
        if path.starts_with(&root) && path.exists() {
            findings.warnings.push(Finding {
                place: Some(Place {
                    file: rel(&path, &mut files),
                    line: source.line as usize,
                    column: Some(source.column as usize),
                }),
                attribute: Some(kind.name()),
                problem: Problem::NoAttribute {
                    item: source.item.to_string(),
                },
            });
        }
    }
    findings
}

fn shown_cfgs(attr: &FoundAttr) -> String {
    attr.cfgs
        .iter()
        .map(|c| format!("cfg({c})"))
        .collect::<Vec<_>>()
        .join("` and `")
}

/// Why a compiled attribute is missing from the registry.
fn missing(attr: &FoundAttr, linked_crates: &[&str], truth: &Truth) -> Problem {
    let krate = attr.krate.clone();
    let active = match truth {
        Truth::Unknown(why) => Activity::CfgUnknown {
            cfgs: shown_cfgs(attr),
            why: why.clone(),
        },
        _ if attr.cfgs.is_empty() => Activity::Unconditional,
        _ => Activity::CfgOn(shown_cfgs(attr)),
    };
    match &attr.target {
        Some(TargetKind::Bin(bin)) => {
            return Problem::InBinary {
                bin: bin.clone(),
                package: attr.package.clone(),
                active,
            };
        }
        Some(TargetKind::Unlinkable(crate_type)) => {
            return Problem::InUnlinkableCrate {
                crate_type: crate_type.clone(),
                package: attr.package.clone(),
                active,
            };
        }
        Some(TargetKind::Lib | TargetKind::Example(_)) => {}
        None => {
            return Problem::Unreachable {
                package: attr.package.clone(),
                krate,
            };
        }
    }
    if linked_crates.contains(&krate.as_str()) {
        Problem::LinkedButMissing {
            feature_cfg: attr.cfgs.iter().any(|c| c.to_string().contains("feature")),
            krate,
            active,
        }
    } else {
        Problem::NotLinked { krate, active }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{marker, rbac};
    use kube_markers_core::cfg::Cfg;

    /// One scanned `#[rbac]` in `root/src/lib.rs` at line 3, behind `cfgs`, and its registry
    /// entry.
    fn one(root: &Path, cfgs: Vec<Cfg>) -> (ScanReport, RbacEntry) {
        let file = root.join("src/lib.rs");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "").unwrap();
        let args = r#"groups = "", resources = "events", verbs = "create""#;
        let attr = FoundAttr {
            kind: AttrKind::Rbac,
            package: "op".into(),
            krate: "op".into(),
            target: Some(TargetKind::Lib),
            file,
            line: 3,
            column: 1,
            outer: None,
            cfgs,
            args: args.into(),
        };
        let report = ScanReport {
            attrs: vec![attr],
            ..ScanReport::default()
        };
        let entry = rbac(
            marker(&[""], &["events"], &["create"]),
            Source::__new("src/lib.rs", 3, 1, "op", "reconcile"),
        );
        (report, entry)
    }

    #[test]
    fn an_attribute_the_build_profile_decides_is_an_error_even_when_compiled() {
        let dir = tempfile::tempdir().unwrap();
        let env = CfgEnv::fixed(Default::default(), &[], Some(Vec::new()));
        let profile = [
            Cfg::Name("debug_assertions".into()),
            Cfg::Not(Box::new(Cfg::Name("overflow_checks".into()))),
            Cfg::All(vec![Cfg::KeyValue("panic".into(), "unwind".into())]),
        ];
        for cfg in profile {
            let (report, entry) = one(dir.path(), vec![cfg.clone()]);
            let findings = cross_check(&[&entry], &[], &report, &["op"], dir.path(), &env);
            assert_eq!(findings.errors.len(), 1, "{cfg}: {:?}", findings.errors);
            let text = findings.errors[0].to_string();
            assert!(
                text.starts_with(&format!("src/lib.rs:3:1: #[rbac] behind `cfg({cfg})`"))
                    && text.contains("the generator's build compiled it")
                    && text.contains("use a feature instead"),
                "{text}"
            );
            // Not compiled (not in the registry): the same rule, not "missing".
            let findings = cross_check(&[], &[], &report, &["op"], dir.path(), &env);
            assert_eq!(findings.errors.len(), 1, "{cfg}: {:?}", findings.errors);
            let text = findings.errors[0].to_string();
            assert!(
                text.starts_with(&format!("src/lib.rs:3:1: #[rbac] behind `cfg({cfg})`"))
                    && text.contains("the generator's build did not compile it")
                    && text.contains("use a feature instead"),
                "{text}"
            );
        }
        // A feature is the build's own choice: compiled and registered is fine.
        let (report, entry) = one(
            dir.path(),
            vec![Cfg::KeyValue("feature".into(), "x".into())],
        );
        let findings = cross_check(&[&entry], &[], &report, &["op"], dir.path(), &env);
        assert!(findings.errors.is_empty(), "{:?}", findings.errors);
    }
}
