//! The CRD types as the generator sees them: one [`SchemaType`] per `#[kube_markers::crd]` or
//! `#[kube_markers::schema]` item (its fields, their JSON names and `file:line`, and the
//! `#[k8s(allow(...))]` of each), the API-convention lints ([`SchemaLint`]) and the
//! compatibility checks' names ([`COMPAT_CHECKS`]) that `allow(...)` accepts.
//!
//! The macros write a [`SchemaType`] into the registry as one string in `crate::record`'s
//! format ([`SchemaType::encode`]); the registry reads it back ([`SchemaType::decode`]).

use crate::model::{Source, Text};
use crate::record::{Reader, Writer};

/// One API-convention lint, named as kube-api-linter names it. [`SchemaLint::ALL`] lists
/// them in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SchemaLint {
    /// A property name that is not camelCase.
    Jsontags,
    /// An integer that is not `int32` or `int64`.
    Integers,
    /// A floating-point number.
    Nofloats,
    /// A list without `x-kubernetes-list-type`.
    Ssatags,
    /// A status `conditions` that is not a list map of `Condition`s keyed by `type`.
    Conditions,
    /// A `phase` field in status.
    Nophase,
    /// A required status field.
    Statusoptional,
    /// A status field without the status subresource, or the reverse; a `status` in spec.
    Statussubresource,
    /// A string without `maxLength`, a list without `maxItems` (off by default).
    Maxlength,
    /// A boolean (off by default).
    Nobools,
    /// A map other than string to string (off by default).
    Nomaps,
    /// A name with `timestamp` (off by default).
    Notimestamp,
}

impl SchemaLint {
    /// Every lint, in report order.
    pub const ALL: [SchemaLint; 12] = [
        SchemaLint::Jsontags,
        SchemaLint::Integers,
        SchemaLint::Nofloats,
        SchemaLint::Ssatags,
        SchemaLint::Conditions,
        SchemaLint::Nophase,
        SchemaLint::Statusoptional,
        SchemaLint::Statussubresource,
        SchemaLint::Maxlength,
        SchemaLint::Nobools,
        SchemaLint::Nomaps,
        SchemaLint::Notimestamp,
    ];

    /// kube-api-linter's name.
    pub const fn name(self) -> &'static str {
        match self {
            SchemaLint::Jsontags => "jsontags",
            SchemaLint::Integers => "integers",
            SchemaLint::Nofloats => "nofloats",
            SchemaLint::Ssatags => "ssatags",
            SchemaLint::Conditions => "conditions",
            SchemaLint::Nophase => "nophase",
            SchemaLint::Statusoptional => "statusoptional",
            SchemaLint::Statussubresource => "statussubresource",
            SchemaLint::Maxlength => "maxlength",
            SchemaLint::Nobools => "nobools",
            SchemaLint::Nomaps => "nomaps",
            SchemaLint::Notimestamp => "notimestamp",
        }
    }

    /// Whether it runs unless configured otherwise.
    pub const fn on_by_default(self) -> bool {
        !matches!(
            self,
            SchemaLint::Maxlength
                | SchemaLint::Nobools
                | SchemaLint::Nomaps
                | SchemaLint::Notimestamp
        )
    }

    /// Why it matters, in one sentence.
    pub const fn why(self) -> &'static str {
        match self {
            SchemaLint::Jsontags => {
                "Kubernetes API fields are lowerCamelCase; clients and kubectl users expect it"
            }
            SchemaLint::Integers => {
                "only int32 and int64 are portable: unsigned and narrow integers have no OpenAPI format clients honour, and JSON clients (JavaScript) cannot hold integers above 2^53 exactly"
            }
            SchemaLint::Nofloats => {
                "floats are not portable across languages and do not round-trip through JSON and YAML exactly; use integers or a resource.Quantity-style string"
            }
            SchemaLint::Ssatags => {
                "without x-kubernetes-list-type a list is atomic: two server-side appliers overwrite each other's items instead of merging them"
            }
            SchemaLint::Conditions => {
                "conditions are a list of metav1.Condition keyed by `type` (list type map), optional, so that every controller and kubectl reads and patches them the same way"
            }
            SchemaLint::Nophase => {
                "phase is deprecated: a single state machine field cannot say what conditions say, and adding a value breaks clients"
            }
            SchemaLint::Statusoptional => {
                "status is written by the controller after creation: a required status field makes objects invalid until then, and a status update that leaves it out is refused"
            }
            SchemaLint::Statussubresource => {
                "status belongs in the status subresource, so that users cannot write it and controllers cannot change spec while writing it"
            }
            SchemaLint::Maxlength => {
                "unbounded strings and lists make CEL rules costly and objects unbounded in size"
            }
            SchemaLint::Nobools => {
                "a boolean cannot grow a third value; an enum of named values can"
            }
            SchemaLint::Nomaps => {
                "maps are discouraged in APIs: a list of named objects merges under server-side apply and can grow fields"
            }
            SchemaLint::Notimestamp => "time fields are named ...Time, not ...Timestamp",
        }
    }

    /// The public guidance it follows.
    pub const fn source(self) -> &'static str {
        match self {
            SchemaLint::Jsontags | SchemaLint::Notimestamp => {
                "Kubernetes API conventions (Naming conventions)"
            }
            SchemaLint::Integers | SchemaLint::Nofloats => {
                "Kubernetes API conventions (Primitive types)"
            }
            SchemaLint::Ssatags => {
                "Kubernetes API conventions (Lists and Simple kinds); kubernetes.io/docs/reference/using-api/server-side-apply (Merge strategy)"
            }
            SchemaLint::Conditions => "Kubernetes API conventions (Typical status properties)",
            SchemaLint::Nophase => "Kubernetes API conventions (Typical status properties)",
            SchemaLint::Statusoptional | SchemaLint::Statussubresource => {
                "Kubernetes API conventions (Spec and Status)"
            }
            SchemaLint::Maxlength => {
                "kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions (Resource use by validation functions)"
            }
            SchemaLint::Nobools | SchemaLint::Nomaps => {
                "Kubernetes API conventions (Primitive types; Lists of named subobjects preferred over maps)"
            }
        }
    }

    /// The lint of this name (exactly as kube-api-linter spells it).
    pub fn from_name(name: &str) -> Option<SchemaLint> {
        SchemaLint::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for SchemaLint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The upgrade check's names (kube-markers-compat's `Check::ALL`, in its order): crdify's, as
/// crdify spells them, then ours. A breaking change it finds may be accepted with
/// `#[k8s(allow(NAME, reason = "..."))]` on the field or the kind, or
/// `#[kube_markers::crd(allow(NAME, reason = "..."))]` on the kind.
pub const COMPAT_CHECKS: [&str; 25] = [
    "scope",
    "existingFieldRemoval",
    "storedVersionRemoval",
    "servedVersionRemoval",
    "conversion",
    "enum",
    "default",
    "maximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "minimum",
    "minLength",
    "minItems",
    "minProperties",
    "required",
    "type",
    "pattern",
    "nullable",
    "description",
    "validationRules",
    "listType",
    "listMapKeys",
    "mapType",
    "unhandled",
];

/// The names that only make sense on the kind (the `#[kube_markers::crd]` struct): findings
/// about the CRD as a whole. (`statussubresource` also fires on a `status` field of the spec,
/// where it may be allowed.)
pub const KIND_ONLY: [&str; 4] = [
    "scope",
    "storedVersionRemoval",
    "servedVersionRemoval",
    "conversion",
];

/// Every name `#[k8s(allow(...))]` accepts: the lints, then the compatibility checks.
pub fn allow_names() -> Vec<&'static str> {
    SchemaLint::ALL
        .iter()
        .map(|l| l.name())
        .chain(COMPAT_CHECKS)
        .collect()
}

/// One `#[k8s(allow(NAME, reason = "..."))]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaAllow {
    /// A lint's or a compatibility check's name (one of [`allow_names`]).
    pub name: Text,
    /// Why (never empty).
    pub reason: Text,
    /// Where the name is written (line 1-based, column 1-based).
    pub line: u32,
    /// Column of the name.
    pub column: u32,
}

/// What the item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaTypeKind {
    /// The spec struct of a kind: `#[kube_markers::crd]`.
    Crd,
    /// A struct with `#[kube_markers::schema]`.
    Struct,
    /// An enum with `#[kube_markers::schema]`.
    Enum,
}

impl SchemaTypeKind {
    fn code(self) -> &'static str {
        match self {
            SchemaTypeKind::Crd => "crd",
            SchemaTypeKind::Struct => "struct",
            SchemaTypeKind::Enum => "enum",
        }
    }
}

/// One field of a [`SchemaType`] (of an enum: of one of its variants).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaField {
    /// The Rust name (`r#type` as `type`; a tuple field's index).
    pub rust_name: Text,
    /// The property name serde gives it (`rename`, else the container's `rename_all`), for a
    /// named field that is not flattened or skipped.
    pub json_name: Option<Text>,
    /// `#[serde(flatten)]`: its type's properties stand in this object.
    pub flatten: bool,
    /// `#[serde(skip)]`: never in the object.
    pub skip: bool,
    /// The type as written (tokens joined by spaces).
    pub ty: Text,
    /// The last path segment of the type inside `Option`, `Box`, lists and maps (`Port` for
    /// `Option<Vec<Port>>`): the name the generator looks the field's own type up by.
    pub inner: Text,
    /// The enum variant the field belongs to, for an enum's field.
    pub variant: Option<Text>,
    /// Line of the field (1-based), in the item's file.
    pub line: u32,
    /// Column of the field (1-based).
    pub column: u32,
    /// Its `#[k8s(allow(...))]`s.
    pub allows: Vec<SchemaAllow>,
}

/// One `#[kube_markers::crd]` or `#[kube_markers::schema]` item.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaType {
    /// What it is.
    pub kind: SchemaTypeKind,
    /// Where the type's name stands (`item` is the Rust type name).
    pub source: Source,
    /// For [`SchemaTypeKind::Crd`]: the status type of `#[kube(status = "...")]`, as written.
    pub status: Option<Text>,
    /// The type's own `#[k8s(allow(...))]`s.
    pub allows: Vec<SchemaAllow>,
    /// Its fields, in order.
    pub fields: Vec<SchemaField>,
}

fn push_allows(items: &mut Vec<String>, allows: &[SchemaAllow]) {
    for a in allows {
        items.extend([
            a.name.to_string(),
            a.reason.to_string(),
            a.line.to_string(),
            a.column.to_string(),
        ]);
    }
}

fn read_allows(items: &[&'static str]) -> Option<Vec<SchemaAllow>> {
    if !items.len().is_multiple_of(4) {
        return None;
    }
    items
        .chunks(4)
        .map(|c| {
            Some(SchemaAllow {
                name: c[0].into(),
                reason: c[1].into(),
                line: c[2].parse().ok()?,
                column: c[3].parse().ok()?,
            })
        })
        .collect()
}

impl SchemaType {
    /// The record string, without the file and module path (the record's own fields).
    ///
    /// Lists: `[kind, type name, line, column, status?]`, the type's allows (`name, reason,
    /// line, column` each), the field count, then per field `[rust name, JSON name or "",
    /// flags ("f" flatten, "s" skip), type, inner, variant or "", line, column]` and its
    /// allows.
    pub fn encode(&self) -> String {
        let mut w = Writer::default();
        let mut head = vec![
            self.kind.code().to_string(),
            self.source.item.to_string(),
            self.source.line.to_string(),
            self.source.column.to_string(),
        ];
        head.extend(self.status.iter().map(|s| s.to_string()));
        w.list(head.iter());
        let mut allows = Vec::new();
        push_allows(&mut allows, &self.allows);
        w.list(allows.iter());
        w.list(std::iter::once(self.fields.len().to_string()));
        for f in &self.fields {
            let mut flags = String::new();
            if f.flatten {
                flags.push('f');
            }
            if f.skip {
                flags.push('s');
            }
            w.list(
                [
                    f.rust_name.to_string(),
                    f.json_name.as_deref().unwrap_or_default().to_string(),
                    flags,
                    f.ty.to_string(),
                    f.inner.to_string(),
                    f.variant.as_deref().unwrap_or_default().to_string(),
                    f.line.to_string(),
                    f.column.to_string(),
                ]
                .iter(),
            );
            let mut allows = Vec::new();
            push_allows(&mut allows, &f.allows);
            w.list(allows.iter());
        }
        w.finish()
    }

    /// The type a record stands for; `None` for a string in another format. `file` and
    /// `module_path` are the record's (`file!()` and `module_path!()` at the attribute).
    pub fn decode(
        data: &'static str,
        file: &'static str,
        module_path: &'static str,
    ) -> Option<SchemaType> {
        let mut r = Reader::new(data);
        let head = r.list()?;
        let (kind, name, line, column, status) = match head.as_slice() {
            [kind, name, line, column, rest @ ..] if rest.len() <= 1 => {
                (*kind, *name, *line, *column, rest.first().copied())
            }
            _ => return None,
        };
        let kind = match kind {
            "crd" => SchemaTypeKind::Crd,
            "struct" => SchemaTypeKind::Struct,
            "enum" => SchemaTypeKind::Enum,
            _ => return None,
        };
        let allows = read_allows(&r.list()?)?;
        let count: usize = r.one()?.parse().ok()?;
        let mut fields = Vec::with_capacity(count);
        for _ in 0..count {
            let f = r.list()?;
            let [
                rust_name,
                json_name,
                flags,
                ty,
                inner,
                variant,
                line,
                column,
            ] = f.as_slice()
            else {
                return None;
            };
            let nonempty = |s: &'static str| (!s.is_empty()).then(|| Text::from(s));
            fields.push(SchemaField {
                rust_name: (*rust_name).into(),
                json_name: nonempty(json_name),
                flatten: flags.contains('f'),
                skip: flags.contains('s'),
                ty: (*ty).into(),
                inner: (*inner).into(),
                variant: nonempty(variant),
                line: line.parse().ok()?,
                column: column.parse().ok()?,
                allows: read_allows(&r.list()?)?,
            });
        }
        if !r.is_empty() {
            return None;
        }
        Some(SchemaType {
            kind,
            source: Source::new(
                file,
                line.parse().ok()?,
                column.parse().ok()?,
                module_path,
                name,
            ),
            status: status.map(Text::from),
            allows,
            fields,
        })
    }

    /// Where a field stands: the type's file, the field's line and column, `Type.field`.
    pub fn field_source(&self, field: &SchemaField) -> Source {
        let item = match &field.variant {
            Some(v) => format!("{}::{v}.{}", self.source.item, field.rust_name),
            None => format!("{}.{}", self.source.item, field.rust_name),
        };
        Source::new(
            self.source.file.clone(),
            field.line,
            field.column,
            self.source.module_path.clone(),
            item,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_known() {
        let names = allow_names();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
        }
        for lint in SchemaLint::ALL {
            assert_eq!(SchemaLint::from_name(lint.name()), Some(lint));
        }
        // `maxlength` (the lint) and `maxLength` (crdify's check) are two names.
        assert_eq!(SchemaLint::from_name("maxLength"), None);
        for kind_only in KIND_ONLY {
            assert!(names.contains(&kind_only), "{kind_only}");
        }
    }

    #[test]
    fn a_type_round_trips() {
        let allow = |name: &'static str, line| SchemaAllow {
            name: name.into(),
            reason: "because: \"quoted\"; 3:4".into(),
            line,
            column: 7,
        };
        let ty = SchemaType {
            kind: SchemaTypeKind::Crd,
            source: Source::new("src/lib.rs", 10, 12, "op::api", "FooSpec"),
            status: Some("FooStatus".into()),
            allows: vec![allow("scope", 9)],
            fields: vec![
                SchemaField {
                    rust_name: "type".into(),
                    json_name: Some("type".into()),
                    flatten: false,
                    skip: false,
                    ty: "Option < Vec < Port > >".into(),
                    inner: "Port".into(),
                    variant: None,
                    line: 12,
                    column: 5,
                    allows: vec![allow("integers", 11), allow("maxLength", 11)],
                },
                SchemaField {
                    rust_name: "0".into(),
                    json_name: None,
                    flatten: true,
                    skip: true,
                    ty: "Extra".into(),
                    inner: "Extra".into(),
                    variant: Some("A".into()),
                    line: 13,
                    column: 5,
                    allows: vec![],
                },
            ],
        };
        let data: &'static str = Box::leak(ty.encode().into_boxed_str());
        assert_eq!(SchemaType::decode(data, "src/lib.rs", "op::api"), Some(ty));
        assert_eq!(SchemaType::decode("1:3:crd", "f", "m"), None);
    }
}
