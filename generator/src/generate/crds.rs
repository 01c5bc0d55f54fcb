//! The CRD generator: the registered types' CRDs, merged by the registry's own merge (the one
//! a running operator's `kube_markers::crd::definitions` uses), named as controller-gen names
//! them and checked against the API server's rules (`kube-markers-crdcheck`) before anything is
//! written.

use crate::generate::{Artifact, Artifacts, Context, GenerateError, GenerateWarning, Generated};
use crate::output::Output;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_crdcheck::Fixes;
use kube_markers_crdcheck::files::Finding;
use kube_markers_registry::crd::{Built, CrdProblem, CrdType, merge, versions};
use kube_markers_registry::{ConversionEntry, CrdEntry};
use serde_json::Value;

/// The CRD files (`--crd-out`, one `<group>_<plural>.yaml` per group and kind): every
/// problem, of any type, refuses the run.
pub fn generate(ctx: &Context, made: &mut Artifacts) -> Result<Generated, GenerateError> {
    let (inputs, opts) = (ctx.inputs, ctx.opts);
    if inputs.crds.is_empty() {
        return Ok(Generated::default());
    }
    // `--rbac-from-source` keeps the CRD files as they are: it reads only the merged CRDs'
    // names for the bundle, and checks nothing of what it does not write.
    let checked = !inputs.kept.contains(&Artifact::Crds);
    let (crds, unneeded, crd_warnings) =
        generate_with_warnings(inputs.crds, inputs.conversions, checked)
            .map_err(GenerateError::Crd)?;
    let crd_dir = opts.crd_dir();
    // Each CRD's document as its check read it: rendered once.
    let files = crds
        .iter()
        .map(|(crd, document)| Output {
            path: crd_dir.join(&crd.file_name),
            content: format!("{}{document}", ctx.header),
            what: format!(
                "the CRD {}",
                crd.crd.metadata.name.as_deref().unwrap_or(&crd.file_name)
            ),
            option: "--crd-out",
        })
        .collect();
    let versions: usize = crds.iter().map(|(c, _)| c.crd.spec.versions.len()).sum();
    let summary =
        (!crds.is_empty()).then(|| format!("{} CRD(s) with {versions} version(s)", crds.len()));
    made.crds = crds.into_iter().map(|(crd, _)| crd).collect();
    Ok(Generated {
        summary,
        files,
        warnings: unneeded
            .into_iter()
            .map(GenerateWarning::UnneededAllow)
            .chain(crd_warnings.into_iter().map(GenerateWarning::Crd))
            .collect(),
    })
}

/// A CRD file: the header, then the object after `---`. (A run writes the document its check
/// read, which is this one.)
pub fn render_crd(crd: &GeneratedCrd, header: &str) -> String {
    crate::output::yaml::render_documents(header, &[crd.to_value()])
}

pub use crate::model::GeneratedCrd;

/// controller-gen's file name for a CRD.
pub fn file_name(group: &str, plural: &str) -> String {
    format!("{group}_{plural}.yaml")
}

pub use kube_markers_registry::crd::versions::{
    CONVERSION_PATH, CONVERSION_SERVICE, CONVERSION_SERVICE_NAMESPACE,
};

/// Generates every CRD: one per group and kind, versions merged, checked, with no conversion
/// declared: a kind whose versions' schemas differ is refused unless its type says
/// `allow(unconverted-versions, ...)` ([`generate_crds_with_conversions`] takes the
/// `#[kube_markers::conversion]`s).
///
/// Errors name the Rust type and its source location; all of them are reported together.
pub fn generate_crds(entries: &[&CrdEntry]) -> Result<Vec<GeneratedCrd>, Vec<CrdProblem>> {
    generate_crds_with_conversions(entries, &[])
}

/// [`generate_crds`], with the conversions between the kinds' versions: they must cover their
/// kind (every version but the storage version converts to and from it), and give its CRD
/// `spec.conversion` strategy `Webhook`, served by the bundle's webhook Service at
/// [`CONVERSION_PATH`].
pub fn generate_crds_with_conversions(
    entries: &[&CrdEntry],
    conversions: &[&ConversionEntry],
) -> Result<Vec<GeneratedCrd>, Vec<CrdProblem>> {
    generate_with_warnings(entries, conversions, true).map(|(crds, ..)| without_documents(crds))
}

/// [`generate_crds_with_conversions`], with what the API server accepts in the CRDs but
/// `check-crds` warns of: the run's `Warning::Crd`s.
pub fn generate_crds_warning(
    entries: &[&CrdEntry],
    conversions: &[&ConversionEntry],
) -> Result<(Vec<GeneratedCrd>, Vec<CrdWarning>), Vec<CrdProblem>> {
    generate_with_warnings(entries, conversions, true)
        .map(|(crds, _, warnings)| (without_documents(crds), warnings))
}

fn without_documents(crds: Vec<(GeneratedCrd, String)>) -> Vec<GeneratedCrd> {
    crds.into_iter().map(|(crd, _)| crd).collect()
}

/// What the API server accepts in a CRD the generator writes but `check-crds` warns of, with
/// the same words: its own warnings (`unrecognized format "uint32"`), and what it takes
/// silently though it looks wrong (a schema no value satisfies, a printer column's path that
/// leads nowhere).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{group}/{kind} ({ty}): {}", finding.warning())]
#[non_exhaustive]
pub struct CrdWarning {
    /// The CRD's group.
    pub group: String,
    /// The CRD's kind.
    pub kind: String,
    /// The type of the version it is in (the first type for the CRD's own fields).
    pub ty: CrdType,
    /// What `check-crds` says of it.
    pub finding: Finding,
}

/// The CRDs, each with its document as written after the header (`---` and the object), the
/// `allow(unconverted-versions, ...)` that accept nothing, and the warnings.
type WithWarnings = (
    Vec<(GeneratedCrd, String)>,
    Vec<versions::UnneededAllow>,
    Vec<CrdWarning>,
);

/// `checked`: whether to run `check-crds`' checks on each CRD (not when its file is kept).
fn generate_with_warnings(
    entries: &[&CrdEntry],
    conversions: &[&ConversionEntry],
    checked: bool,
) -> Result<WithWarnings, Vec<CrdProblem>> {
    let (mut kinds, mut errors) = merge(entries);
    let (converting, version_problems) = versions::apply(&mut kinds, conversions);
    errors.extend(version_problems);
    let unneeded = versions::unneeded_allows(&kinds, &converting);
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for kind in kinds {
        let mut problems = kind.problems;
        // The names make the file name, `<group>_<plural>.yaml`: a `/` or `..` in them would
        // write outside the CRD directory. The API server refuses such names anyway.
        let names = [
            (
                "group",
                &kind.crd.spec.group,
                kube_markers_core::names::crd_group(&kind.crd.spec.group),
            ),
            (
                "plural",
                &kind.crd.spec.names.plural,
                kube_markers_core::names::crd_plural(&kind.crd.spec.names.plural),
            ),
        ];
        for (field, value, check) in names {
            if let (Err(why), Some(built)) = (check, kind.built.first()) {
                problems.push(CrdProblem::InvalidName {
                    ty: CrdType::of(built.entry),
                    field,
                    value: value.clone(),
                    why,
                });
            }
        }
        // A kind that cannot be merged or named is not checked further: its other problems
        // come first.
        if !problems.is_empty() {
            errors.append(&mut problems);
            continue;
        }
        // The CRD's document, rendered once: checked here, and written after the header.
        let json = serde_json::to_value(&kind.crd).unwrap_or(Value::Null);
        let document = crate::output::yaml::render_documents("", &[json]);
        // Only the generator checks what the API server would reject: it needs the structural
        // rules and a CEL parser, which a running operator does without. The check is
        // `check-crds`' whole-file check, on the CRD's file as it is written and read back as
        // kubectl reads it, with the same verdicts: refused where the API server refuses, a
        // warning where it accepts.
        if checked {
            let file = file_name(&kind.crd.spec.group, &kind.crd.spec.names.plural);
            let report = kube_markers_crdcheck::check_text_as(&file, &document, Fixes::Attributes);
            let group = &kind.crd.spec.group;
            let kind_name = &kind.crd.spec.names.kind;
            let ty = |finding: &Finding| match &finding.version {
                Some(v) => type_of(&kind.built, v),
                None => CrdType::of(kind.built[0].entry),
            };
            // What the file itself makes kubectl say, then the CRD's own findings.
            let (mut refused, mut accepted): (Vec<Finding>, Vec<Finding>) = (
                report.errors.iter().cloned().map(Finding::crd).collect(),
                report.warnings.iter().cloned().map(Finding::crd).collect(),
            );
            for crd in report.crds {
                refused.extend(crd.refused);
                accepted.extend(crd.accepted);
            }
            for finding in refused {
                problems.push(match &finding.version {
                    Some(version) => CrdProblem::Schema {
                        group: group.clone(),
                        kind: kind_name.clone(),
                        version: version.clone(),
                        ty: ty(&finding),
                        problem: finding.problem,
                    },
                    None => CrdProblem::Definition {
                        group: group.clone(),
                        kind: kind_name.clone(),
                        ty: ty(&finding),
                        problem: finding.problem.to_string(),
                    },
                });
            }
            for finding in accepted {
                warnings.push(CrdWarning {
                    group: group.clone(),
                    kind: kind_name.clone(),
                    ty: ty(&finding),
                    finding,
                });
            }
        }
        if problems.is_empty() {
            let crd = GeneratedCrd {
                file_name: file_name(&kind.crd.spec.group, &kind.crd.spec.names.plural),
                sources: kind
                    .built
                    .iter()
                    .map(|b| (b.entry.type_name.to_string(), b.entry.source.clone()))
                    .collect(),
                crd: kind.crd,
            };
            out.push((crd, document));
        } else {
            errors.append(&mut problems);
        }
    }
    if errors.is_empty() {
        Ok((out, unneeded, warnings))
    } else {
        Err(errors)
    }
}

/// Whether the CRD converts through a webhook.
pub fn converts(crd: &CustomResourceDefinition) -> bool {
    crd.spec
        .conversion
        .as_ref()
        .is_some_and(|c| c.strategy == "Webhook")
}

/// The type that defines `version` (every merged version comes from one of `built`).
fn type_of(built: &[Built], version: &str) -> CrdType {
    let defining = built
        .iter()
        .find(|b| b.crd.spec.versions.iter().any(|v| v.name == version))
        .unwrap_or(&built[0]);
    CrdType::of(defining.entry)
}
