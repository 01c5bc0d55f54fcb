//! The generated CRDs at run time: what the generator writes, built in the running operator
//! from the `#[kube_markers::crd]` types linked into it.
//!
//! kube-derive's `Kind::crd()` knows neither the root rules of
//! `#[kube_markers::crd(validation(...))]` nor the other versions of the kind, so an operator
//! that installs it gets another CRD than the generated file. These functions run the
//! generator's own merge; the checks against the API server's rules stay in the generator
//! (they need a CEL parser), so run it in CI: what it accepts, these return unchanged.

use super::CrdProblem;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_registry as registry;
use kube_markers_registry::crd::{MergedKind, merge, versions};

/// Why a CRD cannot be given.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum DefinitionError {
    /// No `#[kube_markers::crd]` type of this binary has this group and kind.
    #[error(
        "no #[kube_markers::crd] type in this binary has group {group:?} and kind {kind:?}: put \
         #[kube_markers::crd] on its spec struct, and make sure the crate that declares it is \
         linked (kube_markers::link!)"
    )]
    NotRegistered {
        /// The group looked for.
        group: String,
        /// The kind looked for.
        kind: String,
    },
    /// The registered types do not make valid CRDs (kube-derive failed, versions that
    /// disagree, no storage version, ...): `cargo run -p codegen` refuses them too.
    #[error(
        "the #[kube_markers::crd] types do not merge into CRDs:{}",
        lines(problems)
    )]
    Invalid {
        /// Each problem, naming the Rust type and its source.
        problems: Vec<CrdProblem>,
    },
}

/// The generator's merge, and its rule for versions: those whose schemas differ convert (the
/// CRD gets `spec.conversion`) or are refused. A problem of one kind's versions is that kind's;
/// a conversion that names no kind is everyone's, as a type that cannot be built is.
fn merged() -> (Vec<MergedKind<'static>>, Vec<CrdProblem>) {
    let (mut kinds, mut problems) = merge(&registry::crd_entries());
    let (_, version_problems) = versions::apply(&mut kinds, &registry::conversion_entries());
    for problem in version_problems {
        let owner = problem.versions_of().and_then(|(group, name)| {
            kinds
                .iter()
                .position(|k| k.crd.spec.group == group && k.crd.spec.names.kind == name)
        });
        match owner {
            Some(k) => kinds[k].problems.push(problem),
            None => problems.push(problem),
        }
    }
    (kinds, problems)
}

/// `\n  ` before each problem, with its sources.
fn lines(problems: &[CrdProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("\n  {}", crate::with_sources(p)))
        .collect()
}

/// Every CRD of the `#[kube_markers::crd]` types linked into this binary, exactly as the
/// generator writes them (versions merged, root rules, `listKind`, `metadata.name`, the
/// `kube-markers/version` annotation), sorted by group and kind.
///
/// ```
/// # use kube::CustomResource;
/// # use schemars::JsonSchema;
/// # use serde::{Deserialize, Serialize};
/// #[kube_markers::crd(validation(rule = "self.spec.replicas <= 5 || self.metadata.name.startsWith('big-')"))]
/// #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
/// #[kube(group = "db.example.com", version = "v1", kind = "MyDatabase", namespaced)]
/// pub struct MyDatabaseSpec {
///     pub replicas: i32,
/// }
///
/// # fn main() -> Result<(), kube_markers::crd::DefinitionError> {
/// for crd in kube_markers::crd::definitions()? {
///     // e.g. Api::<CustomResourceDefinition>::all(client)
///     //     .patch(&crd.name_any(), &PatchParams::apply("my-operator"), &Patch::Apply(&crd))
///     println!("{}", crd.metadata.name.as_deref().unwrap_or_default());
/// }
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// [`DefinitionError::Invalid`] when any registered type does not make a valid CRD.
pub fn definitions() -> Result<Vec<CustomResourceDefinition>, DefinitionError> {
    let (kinds, mut problems) = merged();
    let mut crds = Vec::new();
    for kind in kinds {
        problems.extend(kind.problems);
        crds.push(kind.crd);
    }
    if problems.is_empty() {
        Ok(crds)
    } else {
        Err(DefinitionError::Invalid { problems })
    }
}

/// The CRD of custom resource `K` (any of its versions) exactly as the generator writes it, to
/// install instead of kube-derive's `K::crd()`.
///
/// ```standalone_crate
/// # use kube::CustomResource;
/// # use schemars::JsonSchema;
/// # use serde::{Deserialize, Serialize};
/// #[kube_markers::crd(validation(rule = "self.spec.replicas <= 5 || self.metadata.name.startsWith('big-')"))]
/// #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
/// #[kube(group = "db.example.com", version = "v1", kind = "MyDatabase", namespaced)]
/// pub struct MyDatabaseSpec {
///     pub replicas: i32,
/// }
///
/// # fn main() -> Result<(), kube_markers::crd::DefinitionError> {
/// let crd = kube_markers::crd::definition::<MyDatabase>()?;
/// // Api::<CustomResourceDefinition>::all(client)
/// //     .patch(MyDatabase::crd_name(), &PatchParams::apply("my-operator"), &Patch::Apply(&crd))
/// //     .await?;
/// assert_eq!(crd.metadata.name.as_deref(), Some("mydatabases.db.example.com"));
/// let schema = crd.spec.versions[0].schema.as_ref().unwrap();
/// let root = schema.open_api_v3_schema.as_ref().unwrap();
/// // The root rule, which `MyDatabase::crd()` does not have:
/// assert_eq!(root.x_kubernetes_validations.as_ref().unwrap().len(), 1);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// [`DefinitionError::NotRegistered`] when `K`'s spec has no `#[kube_markers::crd]` (or its
/// crate is not linked); [`DefinitionError::Invalid`] when the types of its kind do not make a
/// valid CRD, or a registered type cannot be built at all (it might be a version of `K`).
pub fn definition<K: kube::CustomResourceExt>() -> Result<CustomResourceDefinition, DefinitionError>
{
    let resource = K::api_resource();
    definition_of(&resource.group, &resource.kind)
}

/// The CRD of `group` and `kind` exactly as the generator writes it; see [`definition`].
///
/// # Errors
///
/// As [`definition`].
pub fn definition_of(group: &str, kind: &str) -> Result<CustomResourceDefinition, DefinitionError> {
    let (kinds, mut problems) = merged();
    let found: Option<MergedKind> = kinds
        .into_iter()
        .find(|k| k.crd.spec.group == group && k.crd.spec.names.kind == kind);
    let Some(found) = found else {
        return Err(if problems.is_empty() {
            DefinitionError::NotRegistered {
                group: group.into(),
                kind: kind.into(),
            }
        } else {
            DefinitionError::Invalid { problems }
        });
    };
    problems.extend(found.problems);
    if problems.is_empty() {
        Ok(found.crd)
    } else {
        Err(DefinitionError::Invalid { problems })
    }
}
