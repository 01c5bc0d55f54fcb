//! The walk over one CRD version's schema: each property found as a field of a recorded type,
//! each node checked by the lints that apply to it, and each `allow(...)` placed at the paths
//! where its field or type stands.

use super::{LintLevels, SchemaLintWarning};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_core::model::Source;
use kube_markers_core::schema_types::{
    SchemaAllow, SchemaField, SchemaLint, SchemaType, SchemaTypeKind,
};
use kube_markers_registry::CrdEntry;
use serde_json::{Map, Value};

/// One `#[k8s(allow(...))]` at the place of a CRD it applies to: what the compatibility checks
/// read to let a user accept a breaking change on a field or a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AllowAt {
    /// The CRD version whose schema the path is in.
    pub version: String,
    /// The node's path (`spec.ports[*].name`, `spec.labels.*`); `None` for the whole kind (an
    /// allow on the `#[kube_markers::crd]` struct itself).
    pub path: Option<String>,
    /// A lint's or a compatibility check's name.
    pub name: String,
    /// Why.
    pub reason: String,
    /// Where the allow is written (`file:line:column` of its name; `item` is `Type` or
    /// `Type.field`).
    pub source: Source,
}

/// Every `allow(...)` of the types of `entry`'s CRD, placed: the kind's own with no path, a
/// field's at the field's path, a schema type's at each path the type stands at. Sorted by
/// version, path and name.
pub fn crd_allows(entry: &CrdEntry, types: &[&SchemaType]) -> Vec<AllowAt> {
    crd_places(entry, types).0
}

/// A schema node that is a recorded type's field, and that field's place.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldAt {
    /// The CRD version whose schema the path is in.
    pub version: String,
    /// The node's path (`spec.ports[*].name`).
    pub path: String,
    /// The field's `file:line:column`, `item` being `Type.field`.
    pub source: Source,
}

/// Every `allow(...)` of the types of `entry`'s CRD, and every schema node that is a recorded
/// type's field, placed: what the compatibility checks read to accept a finding and to name
/// the field it is about.
pub fn crd_places(entry: &CrdEntry, types: &[&SchemaType]) -> (Vec<AllowAt>, Vec<FieldAt>) {
    let crd = entry.definition();
    let mut walker = Walker::new(types, None);
    walker.crd(entry, &crd);
    let mut allows = walker.allows;
    allows.sort_by(|a, b| {
        (&a.version, &a.path, &a.name, &a.source).cmp(&(&b.version, &b.path, &b.name, &b.source))
    });
    allows.dedup();
    let mut fields = walker.fields;
    fields.sort_by(|a, b| (&a.version, &a.path).cmp(&(&b.version, &b.path)));
    fields.dedup_by(|a, b| a.version == b.version && a.path == b.path);
    (allows, fields)
}

/// Lints one CRD (every version) into `warnings`.
pub(super) fn lint_crd(
    entry: &CrdEntry,
    crd: &CustomResourceDefinition,
    types: &[&SchemaType],
    levels: &LintLevels,
    warnings: &mut Vec<SchemaLintWarning>,
) {
    let mut walker = Walker::new(types, Some(levels));
    walker.crd(entry, crd);
    warnings.append(&mut walker.warnings);
}

/// Who a node belongs to: a recorded type, and the field of it the node is (or is inside).
#[derive(Clone, Copy)]
struct Owner<'t> {
    ty: &'t SchemaType,
    field: Option<&'t SchemaField>,
    /// The recorded enum the field's value is, at the node of that value: its allows count.
    value_enum: Option<&'t SchemaType>,
}

impl<'t> Owner<'t> {
    fn source(&self) -> Source {
        match self.field {
            Some(f) => self.ty.field_source(f),
            None => self.ty.source.clone(),
        }
    }

    fn allows(&self, lint: SchemaLint) -> bool {
        let named = |allows: &[SchemaAllow]| allows.iter().any(|a| a.name == lint.name());
        named(&self.ty.allows)
            || self.field.is_some_and(|f| named(&f.allows))
            || self.value_enum.is_some_and(|e| named(&e.allows))
    }
}

pub(super) struct Walker<'t> {
    types: &'t [&'t SchemaType],
    /// `None`: collecting allows only.
    levels: Option<&'t LintLevels>,
    crd: String,
    version: String,
    /// The kind's record: its allows cover every node of the CRD.
    kind: Option<&'t SchemaType>,
    warnings: Vec<SchemaLintWarning>,
    pub(super) allows: Vec<AllowAt>,
    /// Collected with the allows only (`levels` is `None`).
    pub(super) fields: Vec<FieldAt>,
}

impl<'t> Walker<'t> {
    pub(super) fn new(types: &'t [&'t SchemaType], levels: Option<&'t LintLevels>) -> Self {
        Walker {
            types,
            levels,
            crd: String::new(),
            version: String::new(),
            kind: None,
            warnings: Vec::new(),
            allows: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// The record of `entry`'s spec struct: the `crd` record written by the same attribute.
    fn kind_record(&self, entry: &CrdEntry) -> Option<&'t SchemaType> {
        self.types.iter().copied().find(|t| {
            t.kind == SchemaTypeKind::Crd
                && t.source.file == entry.source.file
                && t.source.module_path == entry.source.module_path
                && t.source.item == entry.source.item
        })
    }

    pub(super) fn crd(&mut self, entry: &CrdEntry, crd: &CustomResourceDefinition) {
        self.crd = crd.metadata.name.clone().unwrap_or_default();
        let Some(kind) = self.kind_record(entry) else {
            return;
        };
        self.kind = Some(kind);
        for version in &crd.spec.versions {
            self.version = version.name.clone();
            for allow in &kind.allows {
                self.allows.push(AllowAt {
                    version: self.version.clone(),
                    path: None,
                    name: allow.name.to_string(),
                    reason: allow.reason.to_string(),
                    source: allow_source(kind, None, allow),
                });
            }
            let schema = version
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .and_then(|s| serde_json::to_value(s).ok())
                .unwrap_or(Value::Null);
            let root = properties(&schema);
            let kind_owner = Owner {
                ty: kind,
                field: None,
                value_enum: None,
            };
            let status_subresource = version
                .subresources
                .as_ref()
                .is_some_and(|s| s.status.is_some());
            match (
                root.and_then(|r| r.get("status")).is_some(),
                status_subresource,
            ) {
                (true, false) => self.warn(
                    SchemaLint::Statussubresource,
                    kind_owner,
                    "status",
                    "the schema has a status but the CRD no status subresource".into(),
                ),
                (false, true) => self.warn(
                    SchemaLint::Statussubresource,
                    kind_owner,
                    "status",
                    "the CRD has a status subresource but its schema no status".into(),
                ),
                _ => {}
            }
            if let Some(spec) = root.and_then(|r| r.get("spec")) {
                self.object(spec, "spec", kind, false);
                if properties(spec).is_some_and(|p| p.contains_key("status")) {
                    let owner = self.property_owner(kind, "status").unwrap_or(kind_owner);
                    self.warn(
                        SchemaLint::Statussubresource,
                        owner,
                        "spec.status",
                        "a `status` field in spec is part of the spec, not the status \
                         subresource: declare the status type with #[kube(status = \"...\")]"
                            .into(),
                    );
                }
            }
            if let Some(status) = root.and_then(|r| r.get("status")) {
                let record = kind
                    .status
                    .as_deref()
                    .and_then(|name| self.resolve(last_segment(name), kind, status));
                match (record, kind.status.as_deref()) {
                    (Some(record), _) => self.object(status, "status", record, true),
                    // Unrecorded: its direct properties still get the status lints, at the kind.
                    (None, status_type) => self.status_children(
                        status,
                        "status",
                        kind_owner,
                        last_segment(status_type.unwrap_or("the status type")),
                    ),
                }
            }
        }
    }

    /// A node of a recorded struct: each property at its field.
    fn object(&mut self, node: &Value, path: &str, ty: &'t SchemaType, status: bool) {
        self.type_allows(ty, path);
        let Some(props) = properties(node) else {
            return;
        };
        let required = required(node);
        for (name, child) in props {
            let owner = self.property_owner(ty, name).unwrap_or(Owner {
                ty,
                field: None,
                value_enum: None,
            });
            let child_path = format!("{path}.{name}");
            if let Some(field) = owner.field {
                if self.levels.is_none() {
                    self.fields.push(FieldAt {
                        version: self.version.clone(),
                        path: child_path.clone(),
                        source: owner.ty.field_source(field),
                    });
                }
                for allow in &field.allows {
                    self.allows.push(AllowAt {
                        version: self.version.clone(),
                        path: Some(child_path.clone()),
                        name: allow.name.to_string(),
                        reason: allow.reason.to_string(),
                        source: allow_source(owner.ty, Some(field), allow),
                    });
                }
            }
            self.property(name, &child_path, owner);
            if status {
                self.status_child(
                    name,
                    child,
                    &child_path,
                    required.contains(&name.as_str()),
                    owner,
                );
            }
            self.value(child, &child_path, owner);
        }
    }

    /// The direct properties of a status whose type, `status_type`, has no record: their
    /// warnings stand at the kind, and say how to have them at the field.
    fn status_children(&mut self, node: &Value, path: &str, owner: Owner<'t>, status_type: &str) {
        let required = required(node);
        let before = self.warnings.len();
        for (name, child) in properties(node).into_iter().flatten() {
            let child_path = format!("{path}.{name}");
            self.status_child(
                name,
                child,
                &child_path,
                required.contains(&name.as_str()),
                owner,
            );
            for warning in &mut self.warnings[before..] {
                if warning.path == child_path {
                    warning.finding.push_str(&format!(
                        " (`{status_type}` has no #[kube_markers::schema], so this warning \
                         stands at the kind: put #[kube_markers::schema] above the derive of \
                         `{status_type}` to have it at its field, where \
                         #[k8s(allow(...))] accepts it for that field alone)"
                    ));
                }
            }
        }
    }

    /// The field of `ty` (or of a type it flattens) whose property `name` is.
    fn property_owner(&self, ty: &'t SchemaType, name: &str) -> Option<Owner<'t>> {
        self.property_owner_depth(ty, name, 0)
    }

    fn property_owner_depth(
        &self,
        ty: &'t SchemaType,
        name: &str,
        depth: usize,
    ) -> Option<Owner<'t>> {
        if let Some(field) = ty
            .fields
            .iter()
            .find(|f| !f.skip && f.json_name.as_deref() == Some(name))
        {
            return Some(Owner {
                ty,
                field: Some(field),
                value_enum: None,
            });
        }
        if depth > 8 {
            return None;
        }
        ty.fields
            .iter()
            .filter(|f| f.flatten)
            .filter_map(|f| self.by_name(&f.inner, ty))
            .find_map(|inner| self.property_owner_depth(inner, name, depth + 1))
    }

    /// A type's allows, at the path where it stands.
    fn type_allows(&mut self, ty: &'t SchemaType, path: &str) {
        if ty.kind == SchemaTypeKind::Crd {
            return; // the kind's: no path
        }
        for allow in &ty.allows {
            self.allows.push(AllowAt {
                version: self.version.clone(),
                path: Some(path.to_string()),
                name: allow.name.to_string(),
                reason: allow.reason.to_string(),
                source: allow_source(ty, None, allow),
            });
        }
    }

    /// The checks of a property's name.
    fn property(&mut self, name: &str, path: &str, owner: Owner<'t>) {
        if !is_camel_case(name) {
            self.warn(
                SchemaLint::Jsontags,
                owner,
                path,
                format!(
                    "property `{name}` is not camelCase: add #[serde(rename_all = \
                     \"camelCase\")] to the struct, or #[serde(rename = \"...\")] to the field"
                ),
            );
        }
        let lower = name.to_ascii_lowercase();
        if lower.contains("phase") {
            self.warn(
                SchemaLint::Nophase,
                owner,
                path,
                format!("property `{name}` is a phase: report conditions instead"),
            );
        }
        if lower.contains("timestamp") {
            self.warn(
                SchemaLint::Notimestamp,
                owner,
                path,
                format!(
                    "property `{name}`: name it `{}`",
                    name.replace("Timestamp", "Time")
                        .replace("timestamp", "time")
                ),
            );
        }
    }

    /// The status lints on a direct property of the status.
    fn status_child(
        &mut self,
        name: &str,
        node: &Value,
        path: &str,
        required: bool,
        owner: Owner<'t>,
    ) {
        if required {
            self.warn(
                SchemaLint::Statusoptional,
                owner,
                path,
                format!(
                    "status property `{name}` is required: make the field `Option<T>` or \
                     #[serde(default)]"
                ),
            );
        }
        if name == "conditions" {
            let problems = condition_problems(node, required);
            if !problems.is_empty() {
                self.warn(
                    SchemaLint::Conditions,
                    owner,
                    path,
                    format!(
                        "{}: write `Vec<Condition>` (k8s_openapi's metav1 Condition) with \
                         #[k8s(list_type = \"map\", list_map_keys = [\"type\"])], optional",
                        problems.join("; ")
                    ),
                );
            }
        }
    }

    /// The checks of a node's value, then its items, map values and (for a recorded type)
    /// its properties.
    fn value(&mut self, node: &Value, path: &str, mut owner: Owner<'t>) {
        let innermost = !node.get("items").is_some_and(Value::is_object)
            && !node
                .get("additionalProperties")
                .is_some_and(Value::is_object);
        if innermost
            && let Some(field) = owner.field
            && let Some(enum_ty) = self.enum_named(&field.inner, owner.ty)
        {
            // An enum's allows stand where its values are (`enum`: a value removed).
            self.type_allows(enum_ty, path);
            owner.value_enum = Some(enum_ty);
        }
        let ty = node.get("type").and_then(Value::as_str);
        let int_or_string = node.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        match ty {
            Some("integer") if !int_or_string => {
                let format = node.get("format").and_then(Value::as_str);
                if !matches!(format, Some("int32" | "int64")) {
                    let what = match format {
                        Some(f) => format!("an integer of format `{f}`{}", rust_integer(f)),
                        None => "an integer without a format".to_string(),
                    };
                    self.warn(
                        SchemaLint::Integers,
                        owner,
                        path,
                        format!("{what}: use i32 or i64"),
                    );
                }
            }
            Some("number") => self.warn(
                SchemaLint::Nofloats,
                owner,
                path,
                "a floating-point number: use an integer, or a Quantity-style string".into(),
            ),
            Some("boolean") => self.warn(
                SchemaLint::Nobools,
                owner,
                path,
                "a boolean: use an enum of named values".into(),
            ),
            Some("string") if node.get("maxLength").is_none() && node.get("enum").is_none() => {
                self.warn(
                    SchemaLint::Maxlength,
                    owner,
                    path,
                    "a string without maxLength: add #[k8s(max_length = N)]".into(),
                );
            }
            Some("array") => {
                if node.get("x-kubernetes-list-type").is_none() {
                    self.warn(
                        SchemaLint::Ssatags,
                        owner,
                        path,
                        "a list without a list type: add #[k8s(list_type = \"atomic\")], \
                         \"set\" (scalars) or \"map\" with list_map_keys"
                            .into(),
                    );
                }
                if node.get("maxItems").is_none() {
                    self.warn(
                        SchemaLint::Maxlength,
                        owner,
                        path,
                        "a list without maxItems: add #[k8s(max_items = N)]".into(),
                    );
                }
            }
            _ => {}
        }
        if let Some(items) = node.get("items").filter(|i| i.is_object()) {
            self.value(items, &format!("{path}[*]"), owner);
        }
        if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
            if values.get("type").and_then(Value::as_str) != Some("string") {
                self.warn(
                    SchemaLint::Nomaps,
                    owner,
                    path,
                    "a map whose values are not strings: use a list of named objects".into(),
                );
            }
            self.value(values, &format!("{path}.*"), owner);
        }
        if properties(node).is_some() {
            // Properties are a type's: the field's own type, when it has a record.
            let inner = owner.field.map(|f| &*f.inner);
            if let Some(record) = inner.and_then(|name| self.resolve(name, owner.ty, node)) {
                self.object(node, path, record, false);
            }
        }
    }

    /// The recorded type named `name`, as seen from `from`, whose fields are `node`'s
    /// properties: of `from`'s crate first, then any; of `from`'s module when several fit.
    fn resolve(&self, name: &str, from: &'t SchemaType, node: &Value) -> Option<&'t SchemaType> {
        let props = properties(node)?;
        let fits = |t: &&SchemaType| {
            t.source.item == name
                && t.kind != SchemaTypeKind::Enum
                && t.fields
                    .iter()
                    .filter_map(|f| f.json_name.as_deref().filter(|_| !f.skip))
                    .all(|n| props.contains_key(n))
                && (t.fields.iter().any(|f| f.flatten)
                    || props.keys().all(|k| {
                        t.fields
                            .iter()
                            .any(|f| !f.skip && f.json_name.as_deref() == Some(k))
                    }))
        };
        let candidates: Vec<&'t SchemaType> = self.types.iter().copied().filter(fits).collect();
        let crate_of = |t: &SchemaType| t.source.crate_name().to_string();
        let same_crate: Vec<&'t SchemaType> = candidates
            .iter()
            .copied()
            .filter(|t| crate_of(t) == crate_of(from))
            .collect();
        let pool = if same_crate.is_empty() {
            candidates
        } else {
            same_crate
        };
        match pool.as_slice() {
            [one] => Some(one),
            [] => None,
            several => several
                .iter()
                .copied()
                .find(|t| t.source.module_path == from.source.module_path),
        }
    }

    /// The recorded enum named `name`, as seen from `from` (its crate's first).
    fn enum_named(&self, name: &str, from: &'t SchemaType) -> Option<&'t SchemaType> {
        let named: Vec<&'t SchemaType> = self
            .types
            .iter()
            .copied()
            .filter(|t| t.kind == SchemaTypeKind::Enum && t.source.item == name)
            .collect();
        let crate_of = |t: &SchemaType| t.source.crate_name().to_string();
        match named.as_slice() {
            [one] => Some(one),
            several => several
                .iter()
                .copied()
                .find(|t| t.source.module_path == from.source.module_path)
                .or_else(|| {
                    let mut same = several
                        .iter()
                        .copied()
                        .filter(|t| crate_of(t) == crate_of(from));
                    let first = same.next();
                    first.filter(|_| same.next().is_none())
                }),
        }
    }

    /// The recorded type named `name`, by name alone (for flattened fields, whose properties
    /// are mixed with the parent's).
    fn by_name(&self, name: &str, from: &'t SchemaType) -> Option<&'t SchemaType> {
        let mut named = self
            .types
            .iter()
            .copied()
            .filter(|t| t.source.item == name && t.kind != SchemaTypeKind::Enum);
        let first = named.next()?;
        let rest: Vec<_> = named.collect();
        if rest.is_empty() {
            return Some(first);
        }
        std::iter::once(first)
            .chain(rest)
            .find(|t| t.source.module_path == from.source.module_path)
    }

    fn warn(&mut self, lint: SchemaLint, owner: Owner<'t>, path: &str, finding: String) {
        let Some(levels) = self.levels else {
            return;
        };
        let kind_allows = self
            .kind
            .is_some_and(|k| k.allows.iter().any(|a| a.name == lint.name()));
        if !levels.is_on(lint) || owner.allows(lint) || kind_allows {
            return;
        }
        self.warnings.push(SchemaLintWarning {
            lint,
            source: owner.source(),
            crd: self.crd.clone(),
            version: self.version.clone(),
            path: path.to_string(),
            finding,
        });
    }
}

fn allow_source(ty: &SchemaType, field: Option<&SchemaField>, allow: &SchemaAllow) -> Source {
    let item = match field {
        Some(f) => ty.field_source(f).item,
        None => ty.source.item.clone(),
    };
    Source::new(
        ty.source.file.clone(),
        allow.line,
        allow.column,
        ty.source.module_path.clone(),
        item,
    )
}

fn properties(node: &Value) -> Option<&Map<String, Value>> {
    node.get("properties").and_then(Value::as_object)
}

fn required(node: &Value) -> Vec<&str> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn last_segment(path: &str) -> &str {
    let path = path.split('<').next().unwrap_or(path);
    path.rsplit("::").next().unwrap_or(path).trim()
}

/// kube-api-linter's JSON name rule: `^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$` (consecutive
/// capitals allowed, for acronyms: `requestTTL`).
fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// The Rust type schemars writes an integer format for, for the message.
fn rust_integer(format: &str) -> &'static str {
    match format {
        "uint8" => " (u8)",
        "uint16" => " (u16)",
        "uint32" => " (u32)",
        "uint64" => " (u64)",
        "uint" => " (usize)",
        "int8" => " (i8)",
        "int16" => " (i16)",
        "int" => " (isize)",
        _ => "",
    }
}

/// What makes a status `conditions` other than kube-api-linter's: a list map of metav1
/// Conditions keyed by `type`, optional.
fn condition_problems(node: &Value, required: bool) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if node.get("type").and_then(Value::as_str) != Some("array") {
        problems.push("it is not a list");
        return problems;
    }
    let condition = node.get("items").and_then(properties).is_some_and(|p| {
        ["type", "status", "lastTransitionTime", "reason", "message"]
            .iter()
            .all(|k| p.contains_key(*k))
    });
    if !condition {
        problems.push(
            "its items are not Conditions (type, status, lastTransitionTime, reason, message)",
        );
    }
    if node.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
        problems.push("its list type is not `map`");
    }
    if node.get("x-kubernetes-list-map-keys") != Some(&serde_json::json!(["type"])) {
        problems.push("it is not keyed by `type`");
    }
    if required {
        problems.push("it is required");
    }
    problems
}
