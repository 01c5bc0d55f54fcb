//! `--rbac-from-source`: the roles regenerated from the workspace's sources by an already
//! built generator, without the rebuild `cargo run` does first.
//!
//! The workspace scan finds every `#[rbac]` the build compiles, with its arguments' text, and
//! the parser the macro runs is the one used here: so the entries the registry would hold
//! after a rebuild are read from the sources, then aggregated, linted, rendered and written by
//! the full run's own code. Only the roles and what the deploy bundle derives from them can
//! change: the CRDs and webhook manifests are left as they are (an `#[rbac]` edit cannot change
//! them).
//!
//! It never reads an attribute otherwise than the compiler would without saying so: every
//! attribute whose inclusion or reading only the compiler knows (a `cfg` the scan cannot
//! decide, that is off, or a feature cfg; an attribute in a macro's input, or in a file reached
//! through a `mod`/`include!` in one; a file no module tree reaches; an `include!` or module the
//! scan cannot follow; a crate the scan does not read) is refused, and the run writes nothing.

use crate::input::cfg::{CfgEnv, Truth};
use crate::input::scan_error::ScanError;
use crate::input::sources::{FoundAttr, ScanReport};
use crate::input::workspace::{AnotherWorkspacesGenerator, AttrKind, TargetKind, Workspace};
use crate::input::{Artifact, Collected, Inputs, Place, Webhooks};
use crate::options::Options;
use crate::timings::Timings;
use kube_markers_core::cfg::Cfg;
use kube_markers_registry::{
    self as registry, Attribute, ConversionEntry, CrdEntry, RbacEntry, Source, Text,
    WebhookConfigurationEntry, WebhookEntry,
};
use proc_macro2::LineColumn;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

mod facts;
mod refusal;

use facts::{FileFacts, declared_in_macro_inputs};
pub use refusal::{LeftAsItIs, Reason, Refusal};
pub(crate) use refusal::{left_as_it_is, refused};

/// The registry a rebuild would make, read from the sources.
pub(crate) struct Read {
    /// The scanned crates' entries, from the sources.
    from_sources: Vec<RbacEntry>,
    /// The other crates' entries, from the last build (crates outside the workspace).
    kept: Vec<&'static RbacEntry>,
    /// Attributes in the sources the last build does not have as they are now.
    new_or_changed: usize,
    /// Attributes of the last build the sources no longer have as they were.
    gone: usize,
    /// The rest of the last build's registry, which an `#[rbac]` edit cannot change.
    last_build: LastBuild,
}

/// The last build's entries that the run keeps.
#[derive(Default)]
struct LastBuild {
    crds: Vec<&'static CrdEntry>,
    /// The sources have as many in each file (checked).
    conversions: Vec<&'static ConversionEntry>,
    webhooks: Vec<&'static WebhookEntry>,
    configurations: Vec<&'static WebhookConfigurationEntry>,
    linked: Vec<&'static str>,
}

/// Why the sources cannot stand in for the registry; nothing was written. The runner reports
/// each as the run's error of the same name.
#[derive(Debug)]
pub(crate) enum CollectError {
    /// The workspace could not be scanned.
    Scan(ScanError),
    /// The generator was built from another workspace.
    AnotherWorkspacesGenerator(AnotherWorkspacesGenerator),
    /// Attributes only the compiler can read.
    FromSource {
        refusals: Vec<Refusal>,
        /// The command that rebuilds the generator (`cargo run -p codegen`).
        rerun: String,
    },
}

impl From<ScanError> for CollectError {
    fn from(e: ScanError) -> CollectError {
        CollectError::Scan(e)
    }
}

impl From<AnotherWorkspacesGenerator> for CollectError {
    fn from(e: AnotherWorkspacesGenerator) -> CollectError {
        CollectError::AnotherWorkspacesGenerator(e)
    }
}

/// Collects the `#[rbac]` entries from the workspace's sources instead of this binary's
/// registry: the rest of the run is the registry's, with its CRDs and webhook manifests kept
/// as they are (an `#[rbac]` edit cannot change them, and the last build's may be older than
/// the sources).
pub(crate) fn collect(opts: &Options) -> Result<(Read, Collected), CollectError> {
    let mut timings = Timings::from_env();
    let workspace = Workspace::discover(opts.manifest_path.as_deref())?;
    let outside =
        crate::input::workspace::check_generator_in(&opts.invocation, &workspace.metadata)?;
    timings.lap("cargo metadata");
    let scan = workspace.scan();
    timings.lap("scan");
    let last_build = registry::rbac_entries();
    let linked = registry::linked_crates();
    let mut read = read_entries(&workspace, &scan, &last_build, &linked).map_err(|refusals| {
        CollectError::FromSource {
            refusals,
            rerun: opts.invocation.rerun(),
        }
    })?;
    let conversions = registry::conversion_entries();
    let changed = conversions_changed(&workspace, &scan, &conversions);
    if !changed.is_empty() {
        return Err(CollectError::FromSource {
            refusals: changed,
            rerun: opts.invocation.rerun(),
        });
    }
    timings.lap("read the attributes");
    read.last_build = LastBuild {
        crds: registry::crd_entries(),
        conversions,
        webhooks: registry::webhook_entries(),
        configurations: registry::webhook_configuration_entries(),
        linked,
    };
    let collected = Collected {
        workspace_root: Some(workspace.root.clone()),
        metadata: Some(workspace.metadata),
        outside,
        note: Some(read.note(&opts.file_name, &opts.invocation.rerun())),
        calls: None,
        timings,
    };
    Ok((read, collected))
}

impl Read {
    /// The run's inputs: `entries` ([`Read::entries`]) and the last build's other entries.
    pub(crate) fn inputs<'a>(&'a self, entries: &'a [&'a RbacEntry]) -> Inputs<'a> {
        let last = &self.last_build;
        Inputs {
            kept: &[Artifact::Crds, Artifact::Docs, Artifact::Webhooks],
            conversions: &last.conversions,
            ..Inputs::new(
                entries,
                &last.crds,
                Webhooks::new(&last.webhooks, &last.configurations),
                &last.linked,
            )
        }
    }

    /// Every entry, sorted by source as the registry's are.
    pub(crate) fn entries(&self) -> Vec<&RbacEntry> {
        let mut entries: Vec<&RbacEntry> = self
            .from_sources
            .iter()
            .chain(self.kept.iter().copied())
            .collect();
        entries.sort_by(|a, b| a.source.cmp(&b.source));
        entries
    }

    /// What the run did, and what it could not: for the user's next step.
    fn note(&self, file_name: &str, rerun: &str) -> String {
        let mut note = format!(
            "{file_name} from the sources ({} #[rbac] attribute(s)",
            self.from_sources.len()
        );
        if !self.kept.is_empty() {
            note.push_str(&format!(
                ", and {} of crates outside the workspace as the last build has them",
                self.kept.len()
            ));
        }
        note.push(')');
        if self.new_or_changed + self.gone == 0 {
            note.push_str(
                ", the same as the last build's; CRDs and webhooks are left as they are (run \
                 `{rerun}` after editing types)",
            );
        } else {
            note.push_str(&format!(
                "; {} differ from the last build ({} new or changed, {} gone): run `{rerun}` \
                 to verify, and to regenerate CRDs and webhooks",
                self.new_or_changed + self.gone,
                self.new_or_changed,
                self.gone
            ));
        }
        note
    }
}

/// The path of a file as `file!()` spells it for a workspace member: relative to the
/// workspace root.
fn as_file_macro(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// The files whose `#[conversion]` attributes the sources and the last build count
/// differently (in the crates the scan reads): the run would keep CRDs and a role that no
/// longer follow them. A count, not places: lines shift with every edit above an attribute.
fn conversions_changed(
    workspace: &Workspace,
    scan: &ScanReport,
    last_build: &[&'static ConversionEntry],
) -> Vec<Refusal> {
    let root = &workspace.root;
    let scanned: HashSet<&str> = workspace
        .packages
        .iter()
        .map(|p| p.lib_crate.as_str())
        .collect();
    /// In the sources, in the last build, and the first attribute's place.
    type Counts = (usize, usize, Option<(usize, usize)>);
    let mut counts: BTreeMap<String, Counts> = BTreeMap::new();
    for attr in scan.attrs.iter().filter(|a| a.kind == AttrKind::Conversion) {
        let count = counts.entry(as_file_macro(&attr.file, root)).or_default();
        count.0 += 1;
        count.2.get_or_insert((attr.line, attr.column));
    }
    for entry in last_build
        .iter()
        .filter(|e| scanned.contains(e.source.crate_name()))
    {
        counts.entry(entry.source.file.to_string()).or_default().1 += 1;
    }
    counts
        .into_iter()
        .filter(|(_, (sources, last, _))| sources != last)
        .map(|(file, (in_sources, in_last_build, at))| Refusal {
            place: Some(Place {
                file,
                line: at.map_or(1, |a| a.0),
                column: at.map(|a| a.1),
            }),
            reason: Reason::ConversionsChanged {
                in_sources,
                in_last_build,
            },
        })
        .collect()
}

/// An entry's file and attribute, without its line: what "the same attribute" means when lines
/// shift.
fn content(e: &RbacEntry) -> (&str, &kube_markers_core::model::RbacMarker) {
    (&e.source.file, &e.marker)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The registry a rebuild would make: the scanned crates' `#[rbac]` attributes read from the
/// sources, the other crates' entries of the last build; or every attribute only the compiler
/// can read.
fn read_entries(
    workspace: &Workspace,
    scan: &ScanReport,
    last_build: &[&'static RbacEntry],
    linked: &[&str],
) -> Result<Read, Vec<Refusal>> {
    let mut refusals: Vec<Refusal> = scan
        .errors
        .iter()
        .chain(&scan.warnings)
        .map(|problem| Refusal {
            place: None,
            reason: Reason::Scan(problem.clone()),
        })
        .collect();
    let scanned: HashSet<&str> = workspace
        .packages
        .iter()
        .map(|p| p.lib_crate.as_str())
        .collect();
    let (by_place, kept) = last_build_by_place(workspace, last_build, &scanned, &mut refusals);
    let entries = entries_from_sources(workspace, scan, linked, &by_place, &mut refusals);
    if !refusals.is_empty() {
        return Err(refusals);
    }
    let (new_or_changed, gone) = differences(&entries, last_build, &scanned);
    Ok(Read {
        from_sources: entries,
        kept,
        new_or_changed,
        gone,
        last_build: LastBuild::default(),
    })
}

/// The last build's entries of scanned crates by place (for the module path and item of an
/// attribute that did not move), and those of crates outside the workspace, kept as they are.
/// An entry of a crate inside the workspace that the scan does not read is refused.
#[allow(clippy::type_complexity)]
fn last_build_by_place(
    workspace: &Workspace,
    last_build: &[&'static RbacEntry],
    scanned: &HashSet<&str>,
    refusals: &mut Vec<Refusal>,
) -> (
    HashMap<(String, usize, usize), &'static RbacEntry>,
    Vec<&'static RbacEntry>,
) {
    let root = &workspace.root;
    let mut by_place = HashMap::new();
    let canonical_root = canonical(root);
    let mut kept = Vec::new();
    for entry in last_build {
        let source = &entry.source;
        if scanned.contains(source.crate_name()) {
            let place = (
                source.file.to_string(),
                source.line as usize,
                source.column as usize,
            );
            by_place.insert(place, *entry);
            continue;
        }
        let file = Path::new(&*source.file);
        let inside = if file.is_absolute() {
            canonical(file).starts_with(&canonical_root)
        } else {
            root.join(file).exists()
        };
        if inside {
            refusals.push(Refusal {
                place: Some(Place {
                    file: source.file.to_string(),
                    line: source.line as usize,
                    column: Some(source.column as usize),
                }),
                reason: Reason::UnscannedCrate {
                    krate: source.crate_name().to_string(),
                    item: source.item.to_string(),
                },
            });
        } else {
            kept.push(*entry);
        }
    }
    (by_place, kept)
}

/// Every scanned `#[rbac]` the build certainly compiles into the generator, as the macro reads
/// it; each one only the compiler can read is refused.
fn entries_from_sources(
    workspace: &Workspace,
    scan: &ScanReport,
    linked: &[&str],
    by_place: &HashMap<(String, usize, usize), &'static RbacEntry>,
    refusals: &mut Vec<Refusal>,
) -> Vec<RbacEntry> {
    let root = &workspace.root;
    let cfgs = workspace.cfg_env();
    let mut files: BTreeMap<PathBuf, Result<FileFacts, String>> = BTreeMap::new();
    let through_macros = declared_in_macro_inputs(workspace, linked, &mut files);
    let mut entries: Vec<RbacEntry> = Vec::new();
    for attr in scan.attrs.iter().filter(|a| a.kind == AttrKind::Rbac) {
        let file = as_file_macro(&attr.file, root);
        let place = |line: usize, column: usize| Place {
            file: file.clone(),
            line,
            column: Some(column),
        };
        let facts = files
            .entry(attr.file.clone())
            .or_insert_with(|| FileFacts::read(&attr.file));
        let through_macro = through_macros.iter().find(|(led_to, _)| {
            led_to
                .iter()
                .any(|to| attr.file == *to || (to.is_dir() && attr.file.starts_with(to)))
        });
        let verdict = included(attr, linked, &cfgs, facts).and_then(|item| match through_macro {
            Some((_, reason)) => Err(reason.clone()),
            None => Ok(item),
        });
        let item = match verdict {
            Ok(item) => item,
            Err(reason) => {
                refusals.push(Refusal {
                    place: Some(place(attr.line, attr.column)),
                    reason,
                });
                continue;
            }
        };
        let marker =
            match parse(attr) {
                Ok(marker) => marker,
                Err(messages) => {
                    refusals.extend(messages.into_iter().map(|((line, column), message)| {
                        Refusal {
                            place: Some(place(line, column)),
                            reason: Reason::Invalid(message),
                        }
                    }));
                    continue;
                }
            };
        let last = by_place.get(&(file.clone(), attr.line, attr.column));
        let module_path: Text = match last {
            Some(e) => e.source.module_path.clone(),
            None => attr.krate.clone().into(),
        };
        let item: Text = match (last, item) {
            (_, Some(item)) => item.into(),
            (Some(e), None) => e.source.item.clone(),
            (None, None) => "?".into(),
        };
        let source = Source::new(
            file.clone(),
            attr.line as u32,
            attr.column as u32,
            module_path,
            item,
        );
        entries.push(Attribute::new(marker, source, ""));
    }
    entries
}

/// How many attributes the sources have that the last build does not (new or changed), and
/// the reverse (gone), places aside: lines shift with every edit above them.
fn differences(
    entries: &[RbacEntry],
    last_build: &[&'static RbacEntry],
    scanned: &HashSet<&str>,
) -> (usize, usize) {
    let mut last: HashMap<_, usize> = HashMap::new();
    for entry in last_build
        .iter()
        .filter(|e| scanned.contains(e.source.crate_name()))
    {
        *last.entry(content(entry)).or_default() += 1;
    }
    let mut new_or_changed = 0;
    for entry in entries {
        match last.get_mut(&content(entry)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => new_or_changed += 1,
        }
    }
    (new_or_changed, last.values().sum())
}

/// Whether the build compiles `attr` into the generator, as far as the sources tell for
/// certain; `Ok` with the annotated item's name (if the file says), `Err` with why the
/// compiler alone can tell.
fn included(
    attr: &FoundAttr,
    linked: &[&str],
    cfgs: &CfgEnv,
    facts: &Result<FileFacts, String>,
) -> Result<Option<String>, Reason> {
    match &attr.target {
        None => {
            return Err(Reason::NotReached {
                package: attr.package.clone(),
            });
        }
        Some(TargetKind::Lib) => {}
        Some(target) => {
            return Err(Reason::NotInLibrary {
                target: target.clone(),
                package: attr.package.clone(),
            });
        }
    }
    if !linked.contains(&attr.krate.as_str()) {
        return Err(Reason::NotLinked {
            krate: attr.krate.clone(),
        });
    }
    if !attr.cfgs.is_empty() {
        let shown = || {
            attr.cfgs
                .iter()
                .map(|c| format!("cfg({c})"))
                .collect::<Vec<_>>()
                .join("` and `")
        };
        // The cross-check's rule: whatever the rest of the predicate says, a cfg the build
        // profile sets makes the generator's build no stand-in for the deployed one.
        if let Some(why) = attr
            .cfgs
            .iter()
            .find_map(Cfg::profile_cfg)
            .and_then(kube_markers_core::cfg::set_by_the_profile)
        {
            return Err(Reason::CfgUnknown { cfgs: shown(), why });
        }
        if attr.cfgs.iter().any(names_a_feature) {
            return Err(Reason::CfgFeature { cfgs: shown() });
        }
        match cfgs.eval_all(&attr.cfgs, &attr.package) {
            Truth::True => {}
            Truth::False(why) => return Err(Reason::CfgOff { cfgs: shown(), why }),
            Truth::Unknown(why) => return Err(Reason::CfgUnknown { cfgs: shown(), why }),
        }
    }
    let facts = facts
        .as_ref()
        .map_err(|e| Reason::FileUnparsable(e.clone()))?;
    let at = LineColumn {
        line: attr.line,
        column: attr.column - 1,
    };
    if facts.in_macro_input(at) {
        return Err(Reason::InMacroInput);
    }
    Ok(facts.item_at(at))
}

fn names_a_feature(cfg: &Cfg) -> bool {
    match cfg {
        Cfg::All(items) | Cfg::Any(items) => items.iter().any(names_a_feature),
        Cfg::Not(inner) => names_a_feature(inner),
        Cfg::KeyValue(key, _) => key == "feature",
        Cfg::Name(_) | Cfg::Literal(_) => false,
    }
}

/// An error of the macro's parser: where it points in the file (line, 1-based column), and its
/// message.
type ParseError = ((usize, usize), String);

/// `attr`'s arguments as the macro parses and validates them; else each error's place in the
/// file (line, 1-based column) and message, as the compiler would show them.
fn parse(attr: &FoundAttr) -> Result<kube_markers_core::model::RbacMarker, Vec<ParseError>> {
    let whole = || (attr.line, attr.column);
    let tokens: proc_macro2::TokenStream = attr
        .args
        .parse()
        .map_err(|e: proc_macro2::LexError| vec![(whole(), e.to_string())])?;
    kube_markers_core::rbac::parse_marker(tokens).map_err(|errors| {
        // The arguments' text starts after the attribute's `(`; an error's span counts from
        // there. Where the text is not found as written, the attribute's place stands in.
        let start = args_start(attr);
        errors
            .into_iter()
            .map(|e| {
                let at = match start {
                    Some((line, column)) => {
                        let p = e.span().start();
                        if p.line == 1 {
                            (line, column + p.column)
                        } else {
                            (line + p.line - 1, p.column + 1)
                        }
                    }
                    None => whole(),
                };
                (at, e.to_string())
            })
            .collect()
    })
}

/// Where `attr`'s arguments start in its file (line, 1-based column).
fn args_start(attr: &FoundAttr) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(&attr.file).ok()?;
    let line_start: usize = text
        .split_inclusive('\n')
        .take(attr.line - 1)
        .map(str::len)
        .sum();
    let from = line_start
        + text[line_start..]
            .char_indices()
            .nth(attr.column - 1)
            .map(|(i, _)| i)?;
    let at = from + text[from..].find(attr.args.as_str())?;
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at]
        .rsplit('\n')
        .next()
        .map_or(0, |l| l.chars().count())
        + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests;
