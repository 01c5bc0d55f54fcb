//! Upgrade safety: every CRD the run generates compared with the CRD file this generator wrote
//! before (the one its ledger in the CRD directory lists), by kube-markers-compat. A kind no
//! longer generated is not compared: its file is an orphan of the ledger. A breaking
//! change refuses the run, in the full run and in `--check`, before anything is written.
//!
//! The policy is `[workspace.metadata.kube-markers.upgrade]` (docs/upgrades.md): alpha
//! versions are checked as all others unless it relaxes them, and then each finding relaxed is
//! still reported, as a warning; `#[k8s(allow(CHECK, reason = "..."))]` on a field, a type or
//! the kind (or `allow(CHECK, ...)` in the kind's `#[kube_markers::crd(...)]`) accepts a
//! check's findings at and under it, and `--allow-breaking` lets one run through. Each
//! breaking change names the allow that accepts it, where to write it.

use crate::check::schema_lints::{AllowAt, FieldAt, SchemaType, crd_places};
use crate::model::GeneratedCrd;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_compat::{Finding, Policy, Severity};
use kube_markers_registry::{CrdEntry, Source};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// The settings table, as errors name it.
pub const SETTINGS: &str = "[workspace.metadata.kube-markers.upgrade]";

/// A finding, with the Rust type that defines the version it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpgradeFinding {
    /// What changed.
    pub finding: Finding,
    /// Where the change is, if a linked type defines that version: the field the changed node
    /// is (or is in), `Widget.size` at the field's line, else the type (`Widget`) at its
    /// `#[kube_markers::crd]`.
    pub ty: Option<(String, Source)>,
    /// The file it is compared with.
    pub previous: PathBuf,
    /// The `allow` that would accept it, and where to write it, if a linked type defines the
    /// version it is about (or, for the CRD as a whole, any version of the CRD).
    pub accept_with: Option<String>,
}

impl fmt::Display for UpgradeFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let finding = &self.finding;
        let field = kube_markers_compat::short_path(&finding.path);
        match &self.ty {
            Some((name, at)) => write!(f, "{}:{}: {name}", at.file, at.line)?,
            None => write!(f, "{}", finding.crd)?,
        }
        if !finding.version.is_empty() {
            write!(f, " {}", finding.version)?;
        }
        if !finding.path.is_empty() {
            write!(f, " field `{field}`")?;
        }
        write!(
            f,
            ": [{}] {} (was: {})",
            finding.check,
            finding.message,
            self.previous.display()
        )
    }
}

impl std::error::Error for UpgradeFinding {}

/// What a comparison found, split by what the run does with it.
#[derive(Debug, Default)]
pub struct Compared {
    /// Breaking changes: the run fails (unless `--allow-breaking`).
    pub errors: Vec<UpgradeFinding>,
    /// Findings at `warn`.
    pub warnings: Vec<UpgradeFinding>,
    /// Errors and warnings a `#[k8s(allow(...))]` accepts, each with the allow.
    pub allowed: Vec<(UpgradeFinding, AllowAt)>,
    /// Findings on alpha versions that `alpha = "off"` relaxes: reported in the summary, as
    /// warnings, without failing `--deny-warnings`.
    pub relaxed: Vec<UpgradeFinding>,
}

/// Why the previous CRDs could not be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpgradeProblem {
    /// The policy does not read.
    #[error("{0}")]
    Policy(kube_markers_compat::PolicyError),
    /// A file the ledger lists cannot be read as CRDs.
    #[error(
        "{}: {why} (it is the CRD this generator wrote before, which the new one is compared \
         with; restore it from version control, or remove it and its line in the ledger to \
         compare with nothing)",
        file.display()
    )]
    Previous {
        /// The file.
        file: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// The policy of `[workspace.metadata.kube-markers]`'s `upgrade` table (`settings`: that
/// table's parent, as `cargo metadata` gives it; `Null` without a workspace).
pub fn policy(settings: &Value) -> Result<Policy, UpgradeProblem> {
    Policy::from_settings(&settings["upgrade"], SETTINGS).map_err(UpgradeProblem::Policy)
}

/// Compares `crds` with the CRD files this generator wrote to `crd_dir` before: `listed`, the
/// files its ledger there lists.
pub fn compare(
    crds: &[GeneratedCrd],
    entries: &[&CrdEntry],
    types: &[&SchemaType],
    crd_dir: &Path,
    listed: &[String],
    policy: &Policy,
) -> Result<Compared, UpgradeProblem> {
    let previous = previous_crds(crd_dir, listed)?;
    if previous.is_empty() {
        return Ok(Compared::default());
    }
    let new: Vec<Value> = crds.iter().map(GeneratedCrd::to_value).collect();
    let mut compared = Compared::default();
    // Each type's CRD, allows and fields, walked once for all findings (and only if any).
    let mut places: Option<Vec<EntryPlaces>> = None;
    for (file, old) in &previous {
        let name = &old["metadata"]["name"];
        let now: Vec<Value> = new
            .iter()
            .filter(|c| c["metadata"]["name"] == *name)
            .cloned()
            .collect();
        // A kind no longer generated at all is the ledger's orphan, removed or kept as the
        // plan says (and shown by `--check`): only the CRDs this run writes are compared.
        if now.is_empty() {
            continue;
        }
        let findings = kube_markers_compat::compare_sets(std::slice::from_ref(old), &now, policy)
            .map_err(|errors| UpgradeProblem::Previous {
            file: file.clone(),
            why: errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        })?;
        for finding in findings {
            if finding.severity == Severity::Off {
                continue;
            }
            let places = places.get_or_insert_with(|| {
                entries
                    .iter()
                    .map(|entry| {
                        let (allows, fields) = crd_places(entry, types);
                        EntryPlaces {
                            crd: entry.definition(),
                            ty: (entry.type_name.to_string(), entry.source.clone()),
                            allows,
                            fields,
                        }
                    })
                    .collect()
            });
            let place = place_of(places, &finding);
            let allow = place.allow.clone();
            let off = finding.relaxed_by.is_some() && policy.alpha == Severity::Off;
            let found = UpgradeFinding {
                ty: place.ty,
                accept_with: place.accept_with,
                finding,
                previous: file.clone(),
            };
            match (allow, found.finding.severity) {
                (Some(allow), _) => compared.allowed.push((found, allow)),
                (None, Severity::Error) => compared.errors.push(found),
                (None, _) if off => compared.relaxed.push(found),
                (None, _) => compared.warnings.push(found),
            }
        }
    }
    Ok(compared)
}

/// The CRDs of the files `listed` in `crd_dir` (those the generator's ledger lists), each with
/// its file.
fn previous_crds(
    crd_dir: &Path,
    listed: &[String],
) -> Result<Vec<(PathBuf, Value)>, UpgradeProblem> {
    let mut out = Vec::new();
    for name in listed {
        let file = crd_dir.join(name);
        // Read as `check-crds --previous` and kubectl read it: one file, one verdict.
        let Ok((text, _)) = kube_markers_crdcheck::files::read_text(&file) else {
            continue;
        };
        let crds = kube_markers_crdcheck::upgrade::crds_in_text(&text).map_err(|why| {
            UpgradeProblem::Previous {
                file: file.clone(),
                why,
            }
        })?;
        out.extend(crds.into_iter().map(|d| (file.clone(), d)));
    }
    Ok(out)
}

/// A linked type's CRD (one version), its name and place, and its allows and fields.
struct EntryPlaces {
    crd: CustomResourceDefinition,
    ty: (String, Source),
    allows: Vec<AllowAt>,
    fields: Vec<FieldAt>,
}

/// Where a finding is in the Rust sources, the `allow(...)` that accepts it, and the one that
/// would.
struct Place {
    ty: Option<(String, Source)>,
    allow: Option<AllowAt>,
    accept_with: Option<String>,
}

/// The linked type that defines the finding's version (for a pair `v1 -> v2`, the second; for
/// the CRD as a whole, its first version's), the field of it the changed node is or is in,
/// and the allow, of that check, on the node, a field or type above it, or the kind. A finding
/// about the CRD as a whole (its scope, its versions) takes a kind's allow of any version.
fn place_of(entries: &[EntryPlaces], finding: &Finding) -> Place {
    let version = finding
        .version
        .rsplit(" -> ")
        .next()
        .unwrap_or(&finding.version);
    let path = finding.path.strip_prefix("^.").unwrap_or("");
    let check = finding.check.name();
    let mut first = None;
    let mut kind_allow = None;
    for entry in entries {
        let crd = &entry.crd;
        if crd.metadata.name.as_deref() != Some(finding.crd.as_str()) {
            continue;
        }
        let ty = entry.ty.clone();
        if crd.spec.versions.iter().any(|v| v.name == version) {
            let allow = entry
                .allows
                .iter()
                .filter(|a| a.version == version && a.name == check)
                .filter(|a| a.path.as_deref().is_none_or(|p| covers(p, path)))
                // The nearest: the deepest path, the kind's last.
                .max_by_key(|a| a.path.as_ref().map_or(0, |p| p.len() + 1))
                .cloned();
            let field = field_at(&entry.fields, version, path);
            let accept_with = Some(match &field {
                Some((name, at)) => on_field(check, name, at),
                None => on_kind(check, &entry.ty.1),
            });
            return Place {
                ty: Some(field.unwrap_or(ty)),
                allow,
                accept_with,
            };
        }
        if kind_allow.is_none() && (path.is_empty() || finding.version.is_empty()) {
            kind_allow = entry
                .allows
                .iter()
                .find(|a| a.path.is_none() && a.name == check)
                .cloned();
        }
        first.get_or_insert(ty);
    }
    // A finding about a version no linked type defines any more (a version dropped) or the
    // CRD as a whole: any kind of the CRD takes the allow.
    let accept_with = first.as_ref().map(|(_, at)| on_kind(check, at));
    Place {
        ty: first,
        allow: kind_allow,
        accept_with,
    }
}

/// The allow of `check` on the field `name` (`WidgetSpec.size`) at `at`.
fn on_field(check: &str, name: &str, at: &Source) -> String {
    format!(
        "#[k8s(allow({check}, reason = \"...\"))] on the field {name} ({}:{})",
        at.file, at.line
    )
}

/// The allow of `check` on the kind whose `#[kube_markers::crd]` is at `at` (`at.item`: its
/// spec struct).
fn on_kind(check: &str, at: &Source) -> String {
    format!(
        "#[k8s(allow({check}, reason = \"...\"))] on the struct {item}, below its \
         #[kube_markers::crd] ({}:{}), or allow({check}, reason = \"...\") in that \
         #[kube_markers::crd(...)]",
        at.file,
        at.line,
        item = at.item
    )
}

/// Whether the node at `path` is `allowed` or under it. The lints' walk spells a map's values
/// `.*`, the compatibility checks `[*]`.
fn covers(allowed: &str, path: &str) -> bool {
    let allowed = allowed.replace(".*", "[*]");
    path == allowed
        || path
            .strip_prefix(allowed.as_str())
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// The deepest field of `version` whose node is `path` or holds it, as `Type.field` at its line.
fn field_at(fields: &[FieldAt], version: &str, path: &str) -> Option<(String, Source)> {
    if path.is_empty() {
        return None;
    }
    fields
        .iter()
        .filter(|f| f.version == version && covers(&f.path, path))
        .max_by_key(|f| f.path.len())
        .map(|f| (f.source.item.to_string(), f.source.clone()))
}

/// The run's error: each breaking change with the allow that accepts it, then the ways out,
/// naming the checks found.
pub fn breaking_report(findings: &[UpgradeFinding]) -> String {
    let mut text = format!(
        "{} problem(s) breaking the CRDs written before (nothing was written):",
        findings.len()
    );
    for f in findings {
        text.push_str(&format!("\n  - {f}"));
        if let Some(allow) = &f.accept_with {
            text.push_str(&format!("\n    to accept it: {allow}"));
        }
    }
    let mut checks: Vec<&str> = findings.iter().map(|f| f.finding.check.name()).collect();
    checks.sort_by_key(|c| {
        kube_markers_compat::Check::ALL
            .iter()
            .position(|x| x.name() == *c)
    });
    checks.dedup();
    let table: Vec<String> = checks.iter().map(|c| format!("{c} = \"warn\"")).collect();
    text.push('\n');
    text.push_str(&ways_out(&table.join(", ")));
    text
}

/// The ways out of a breaking change, said once after the list (`checks`: the policy entries
/// that would make the changes found warnings, `maximum = "warn"`).
pub fn ways_out(checks: &str) -> String {
    format!(
        "Ways out: serve the change as a new version, with a conversion between the versions; \
         accept each change where it is made with the allow named under it; make the checks \
         warnings for the workspace, in its Cargo.toml: \
         [workspace.metadata.kube-markers.upgrade] checks = {{ {checks} }}; or, having \
         checked that no stored object or client depends on the old schema, run once with \
         --allow-breaking"
    )
}
