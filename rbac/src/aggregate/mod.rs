//! RBAC aggregation: attributes → merged, deduplicated ClusterRoles and Roles, exactly as
//! controller-gen's `pkg/rbac` produces them.
//!
//! The path of the data: [`RbacMarker`]s (one per attribute) are grouped by [`RoleKey`]
//! (namespace and effective role name), split into one [`Rule`] per resource, merged by
//! [`normalize`], and turned into k8s-openapi objects by [`GeneratedRole::to_object`].
//! [`policy_rule`] is one attribute as one rule, unmerged (what lints and audits check).

mod normalize;

pub use normalize::{Origins, Rule, normalize, normalize_counting};

pub use normalize::{IdMap, WordHasher};
use normalize::{Interner, Provenance, RuleIds, Sources, normalize_ids};

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule, Role};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_markers_core::model::{Text, api_group};

/// controller-gen's default role name (`rbac:roleName=manager-role` in kubebuilder projects).
pub const DEFAULT_ROLE_NAME: &str = "manager-role";

/// One `#[rbac]` attribute, owned: the input of the aggregation. The same type the macros'
/// parser produces and the workspace scan compares with the registry.
pub use kube_markers_core::model::{Allow, RbacMarker};

/// One attribute as one policy rule, as written (`core` read as `""`, nothing merged or
/// split): what a role holds for it before controller-gen's merge, and what the lints, the
/// audit and `can-i` check. Empty lists are left out, as Go's `omitempty`.
pub fn policy_rule(marker: &RbacMarker) -> PolicyRule {
    let owned = |list: &[Text]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let list = |l: &[Text]| (!l.is_empty()).then(|| owned(l));
    PolicyRule {
        api_groups: (!marker.groups.is_empty()).then(|| {
            marker
                .groups
                .iter()
                .map(|g| api_group(g).to_string())
                .collect()
        }),
        resources: list(&marker.resources),
        resource_names: list(&marker.resource_names),
        non_resource_urls: list(&marker.urls),
        verbs: owned(&marker.verbs),
    }
}

/// Which object a rule lands in. Ordered as controller-gen orders its output: by namespace
/// (the ClusterRole's empty namespace first), then by name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RoleKey {
    /// `""` for a ClusterRole.
    pub namespace: String,
    /// The (Cluster)Role's name.
    pub name: String,
}

/// One generated ClusterRole (empty namespace) or Role, with its normalized rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedRole {
    /// Namespace and name.
    pub key: RoleKey,
    /// Rules in controller-gen's order.
    pub rules: Vec<Rule>,
}

/// A generated object, as the Kubernetes API types.
#[derive(Debug, Clone, PartialEq)]
pub enum RoleObject {
    /// No namespace was given.
    ClusterRole(ClusterRole),
    /// The rules had a namespace.
    Role(Role),
}

impl RoleObject {
    /// The object as JSON, ready for the generator's YAML writer.
    pub fn to_value(&self) -> serde_json::Value {
        let value = match self {
            RoleObject::ClusterRole(r) => serde_json::to_value(r),
            RoleObject::Role(r) => serde_json::to_value(r),
        };
        // k8s-openapi types are plain data; serializing them to a Value cannot fail.
        value.expect("k8s-openapi RBAC objects serialize to JSON")
    }
}

impl GeneratedRole {
    /// `true` for a ClusterRole.
    pub fn is_cluster_role(&self) -> bool {
        self.key.namespace.is_empty()
    }

    /// The rules as k8s-openapi `PolicyRule`s; empty lists are left out, as Go's `omitempty`.
    pub fn policy_rules(&self) -> Vec<PolicyRule> {
        self.rules.iter().map(PolicyRule::from).collect()
    }

    /// The ClusterRole or Role object.
    pub fn to_object(&self) -> RoleObject {
        let mut metadata = ObjectMeta {
            name: Some(self.key.name.clone()),
            ..ObjectMeta::default()
        };
        if self.is_cluster_role() {
            RoleObject::ClusterRole(ClusterRole {
                metadata,
                rules: Some(self.policy_rules()),
                ..ClusterRole::default()
            })
        } else {
            metadata.namespace = Some(self.key.namespace.clone());
            RoleObject::Role(Role {
                metadata,
                rules: Some(self.policy_rules()),
            })
        }
    }
}

/// Groups markers by role, splits them per resource and normalizes each role's rules:
/// controller-gen's `GenerateRoles`. Roles without rules are left out.
pub fn generate_roles<'a>(
    markers: impl IntoIterator<Item = &'a RbacMarker>,
    default_role_name: &str,
) -> Vec<GeneratedRole> {
    generate_roles_counting(markers, default_role_name).0
}

/// How many rule merges for these markers collide (see [`normalize_counting`]): when this is
/// not zero, controller-gen's output for the same markers depends on Go's map order and can
/// lack permissions that ours keeps.
pub fn merge_collisions<'a>(
    markers: impl IntoIterator<Item = &'a RbacMarker>,
    default_role_name: &str,
) -> usize {
    generate_roles_counting(markers, default_role_name).1
}

/// [`generate_roles`] and [`merge_collisions`] from one aggregation.
pub fn generate_roles_counting<'a>(
    markers: impl IntoIterator<Item = &'a RbacMarker>,
    default_role_name: &str,
) -> (Vec<GeneratedRole>, usize) {
    roles_of(markers, default_role_name)
}

fn roles_of<'a>(
    attributes: impl IntoIterator<Item = &'a RbacMarker>,
    default_role_name: &str,
) -> (Vec<GeneratedRole>, usize) {
    let (roles, collisions) =
        aggregate::<()>(attributes.into_iter().map(|m| (m, ())), default_role_name);
    let roles = roles
        .into_iter()
        .map(|(key, rules)| GeneratedRole {
            key,
            rules: rules.into_iter().map(|(rule, ())| rule).collect(),
        })
        .collect();
    (roles, collisions)
}

/// A generated role with, for each rule, the attributes behind each of its values.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExplainedRole {
    /// The role, exactly as [`generate_roles`] makes it.
    pub role: GeneratedRole,
    /// `origins[i]` are the sources of `role.rules[i]`, as indices into the markers given to
    /// [`generate_roles_explained`].
    pub origins: Vec<Origins>,
}

/// [`generate_roles`], the same aggregation, keeping track of which marker (by its index in
/// `markers`) produced each group, resource, resource name, URL and verb of each rule.
pub fn generate_roles_explained<'a>(
    markers: impl IntoIterator<Item = &'a RbacMarker>,
    default_role_name: &str,
) -> Vec<ExplainedRole> {
    aggregate::<Sources>(markers.into_iter().zip(0..), default_role_name)
        .0
        .into_iter()
        .map(|(key, rules)| {
            let (rules, origins) = rules.into_iter().unzip();
            ExplainedRole {
                role: GeneratedRole { key, rules },
                origins,
            }
        })
        .collect()
}

/// Groups markers by role, splits them per resource and normalizes each role's rules:
/// controller-gen's `GenerateRoles`, carrying `P` through the merge. Roles without rules are
/// left out.
#[allow(clippy::type_complexity)]
fn aggregate<'a, P: Provenance>(
    markers: impl IntoIterator<Item = (&'a RbacMarker, P::Tag)>,
    default_role_name: &str,
) -> (Vec<(RoleKey, Vec<(Rule, P::Output)>)>, usize) {
    let mut strings = Interner::default();
    let mut collisions = 0;
    let mut roles: Vec<(RoleKey, Vec<(Rule, P::Output)>)> =
        group_by_role::<P>(markers, default_role_name, &mut strings)
            .into_iter()
            .map(|((namespace, name), rules)| {
                let (rules, collided) = normalize_ids::<P>(rules, &mut strings);
                collisions += collided;
                let key = RoleKey {
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                };
                (key, rules)
            })
            .filter(|(_, rules)| !rules.is_empty())
            .collect();
    roles.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    (roles, collisions)
}

/// Splits markers into one rule per resource, grouped by the role (namespace, name) they land
/// in, in the order each role first appears; each rule carries its marker's provenance.
#[allow(clippy::type_complexity)]
fn group_by_role<'a, 'n, P: Provenance>(
    markers: impl IntoIterator<Item = (&'a RbacMarker, P::Tag)>,
    default_role_name: &'n str,
    strings: &mut Interner<'a>,
) -> Vec<((&'n str, &'n str), Vec<(RuleIds, P)>)>
where
    'a: 'n,
{
    let mut roles: Vec<((&'n str, &'n str), Vec<(RuleIds, P)>)> = Vec::new();
    let mut role_of: IdMap<(&'n str, &'n str), usize> = IdMap::default();
    for (m, tag) in markers {
        let key = (
            m.namespace.as_deref().unwrap_or(""),
            m.role_name.as_deref().unwrap_or(default_role_name),
        );
        let role = *role_of.entry(key).or_insert_with(|| {
            roles.push((key, Vec::new()));
            roles.len() - 1
        });
        let groups = strings.spelled_groups(&m.groups);
        let names = strings.spelled(&m.resource_names);
        let urls = strings.spelled(&m.urls);
        let verbs = strings.spelled(&m.verbs);
        // One rule per resource; a rule without resources (URLs) once.
        for i in 0..m.resources.len().max(1) {
            let resources = match m.resources.get(i) {
                Some(resource) => strings.single(resource),
                None => strings.list([]),
            };
            let rule = RuleIds {
                target: [groups, resources, names, urls],
                verbs,
            };
            let origin = P::of(&rule, strings, tag.clone());
            roles[role].1.push((rule, origin));
        }
    }
    roles
}

#[cfg(test)]
mod tests;
