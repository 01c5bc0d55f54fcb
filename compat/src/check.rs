//! The checks, by crdify's names, and what each does by default.

use std::fmt;

/// One check. crdify's checks keep crdify's names; the others name what crdify leaves
/// "unhandled".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The CRD's `scope` changed (crdify `scope`).
    Scope,
    /// A field of a version is gone from the same version (crdify `existingFieldRemoval`).
    ExistingFieldRemoval,
    /// A version in the old `status.storedVersions` is gone from `spec.versions` (crdify
    /// `storedVersionRemoval`).
    StoredVersionRemoval,
    /// An enum constraint added, a value removed, or (when disallowed) a value added.
    Enum,
    /// A default added, removed or changed.
    Default,
    /// `maximum` added or decreased.
    Maximum,
    /// `maxLength` added or decreased.
    MaxLength,
    /// `maxItems` added or decreased.
    MaxItems,
    /// `maxProperties` added or decreased.
    MaxProperties,
    /// `minimum` added or increased.
    Minimum,
    /// `minLength` added or increased.
    MinLength,
    /// `minItems` added or increased.
    MinItems,
    /// `minProperties` added or increased.
    MinProperties,
    /// A property newly required.
    Required,
    /// `type` changed.
    Type,
    /// `pattern` added, changed or removed (crdify after v0.5.0).
    Pattern,
    /// `nullable` added or removed (crdify after v0.5.0).
    Nullable,
    /// `description` changed.
    Description,
    /// Beyond crdify: a CEL rule (`x-kubernetes-validations`) added or changed, or a
    /// transition rule added.
    ValidationRules,
    /// Beyond crdify: `x-kubernetes-list-type` changed.
    ListType,
    /// Beyond crdify: `x-kubernetes-list-map-keys` changed.
    ListMapKeys,
    /// Beyond crdify: `x-kubernetes-map-type` changed.
    MapType,
    /// Beyond crdify: a served version no longer served.
    ServedVersionRemoval,
    /// Beyond crdify: the `Webhook` conversion strategy dropped.
    Conversion,
    /// Any other change to a schema node (`format`, `exclusiveMaximum`, `anyOf`,
    /// `x-kubernetes-preserve-unknown-fields`, …), as crdify's `unhandled`.
    Unhandled,
}

impl Check {
    /// Every check, in the order findings are sorted.
    pub const ALL: [Check; 25] = [
        Check::Scope,
        Check::ExistingFieldRemoval,
        Check::StoredVersionRemoval,
        Check::ServedVersionRemoval,
        Check::Conversion,
        Check::Enum,
        Check::Default,
        Check::Maximum,
        Check::MaxLength,
        Check::MaxItems,
        Check::MaxProperties,
        Check::Minimum,
        Check::MinLength,
        Check::MinItems,
        Check::MinProperties,
        Check::Required,
        Check::Type,
        Check::Pattern,
        Check::Nullable,
        Check::Description,
        Check::ValidationRules,
        Check::ListType,
        Check::ListMapKeys,
        Check::MapType,
        Check::Unhandled,
    ];

    /// Its name: crdify's for crdify's checks.
    pub const fn name(self) -> &'static str {
        match self {
            Check::Scope => "scope",
            Check::ExistingFieldRemoval => "existingFieldRemoval",
            Check::StoredVersionRemoval => "storedVersionRemoval",
            Check::Enum => "enum",
            Check::Default => "default",
            Check::Maximum => "maximum",
            Check::MaxLength => "maxLength",
            Check::MaxItems => "maxItems",
            Check::MaxProperties => "maxProperties",
            Check::Minimum => "minimum",
            Check::MinLength => "minLength",
            Check::MinItems => "minItems",
            Check::MinProperties => "minProperties",
            Check::Required => "required",
            Check::Type => "type",
            Check::Pattern => "pattern",
            Check::Nullable => "nullable",
            Check::Description => "description",
            Check::ValidationRules => "validationRules",
            Check::ListType => "listType",
            Check::ListMapKeys => "listMapKeys",
            Check::MapType => "mapType",
            Check::ServedVersionRemoval => "servedVersionRemoval",
            Check::Conversion => "conversion",
            Check::Unhandled => "unhandled",
        }
    }

    /// The check named `name` (crdify's spelling, exactly).
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether crdify (v0.5.0 and later) has this check; the others are this crate's.
    pub const fn is_crdify(self) -> bool {
        !matches!(
            self,
            Check::ValidationRules
                | Check::ListType
                | Check::ListMapKeys
                | Check::MapType
                | Check::ServedVersionRemoval
                | Check::Conversion
        )
    }

    /// What it is by default: crdify's (every check an error), except that a description
    /// change is allowed (it breaks nothing stored or sent).
    pub const fn default_severity(self) -> Severity {
        match self {
            Check::Description => Severity::Off,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Check {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What a finding of a check does: crdify's `Error`, `Warn` and `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Not reported.
    Off,
    /// Reported; the comparison passes.
    Warn,
    /// Reported; the comparison fails.
    Error,
}

impl Severity {
    /// Its name in configuration: `error`, `warn` or `off`.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Off => "off",
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }

    /// The severity named `name`.
    pub fn from_name(name: &str) -> Option<Severity> {
        [Severity::Off, Severity::Warn, Severity::Error]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
