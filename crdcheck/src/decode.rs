//! A CRD file's object decoded as the API server decodes it, into its typed
//! `CustomResourceDefinition`, before any validation.
//!
//! A field of the wrong type (`maxLength: "5"`) fails the decode: the API server answers 400,
//! whatever the client. A field the type does not have (`maxLenght: 5`, a misplaced
//! `x-kubernetes-list-type`) is refused by strict field validation, which `kubectl apply` asks
//! for by default (`--validate=strict`), and by any server-side apply (the applied object must
//! fit the type's schema); a create or update without strict validation drops it, with a
//! warning, and the schema loses what its author meant it to say.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

/// What decoding one CRD found.
#[derive(Debug, Default, PartialEq)]
pub struct Decoded {
    /// Why the decode failed (the API server's 400), with the field's path.
    pub type_error: Option<String>,
    /// The paths of the fields the type does not have, in document order.
    pub unknown_fields: Vec<String>,
}

/// Decodes `crd` (a document whose `kind` and `apiVersion` are the v1 CRD's).
pub fn decode(crd: &Value) -> Decoded {
    let mut unknown_fields = Vec::new();
    let mut record = |path: serde_ignored::Path<'_>| unknown_fields.push(render(&path));
    let ignoring = serde_ignored::Deserializer::new(crd, &mut record);
    let type_error = match serde_path_to_error::deserialize::<_, CustomResourceDefinition>(ignoring)
    {
        Ok(_) => None,
        Err(e) => Some(format!("{}: {}", e.path(), e.inner())),
    };
    Decoded {
        type_error,
        unknown_fields,
    }
}

/// `spec.versions[0].schema.openAPIV3Schema.properties.spec.maxLenght`, as the other checks
/// write paths.
fn render(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", render(parent)),
        Path::Map { parent, key } => match render(parent) {
            parent if parent.is_empty() => key.clone(),
            parent => format!("{parent}.{key}"),
        },
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => render(parent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com", "creationTimestamp": null},
            "spec": {
                "group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema}}]
            },
            "status": {"acceptedNames": {"kind": "", "plural": ""}, "storedVersions": []}
        })
    }

    #[test]
    fn a_well_formed_crd_decodes_with_nothing_to_say() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object", "maxProperties": 3,
            "x-kubernetes-validations": [{"rule": "true", "optionalOldSelf": true}],
            "properties": {
                "xs": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                "any": {"x-kubernetes-preserve-unknown-fields": true, "default": {"a": [1]}},
                "n": {"type": "integer", "maximum": 5.5, "enum": [1, 2]}
            }
        }}});
        assert_eq!(decode(&crd(schema)), Decoded::default());
    }

    #[test]
    fn unknown_fields_are_named_by_path() {
        let mut doc = crd(json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"xs": {"type": "array", "maxLenght": 5, "items": {"type": "string", "bogus": 1}}}
        }}}));
        doc["spec"]["preserveUnknownFields"] = json!(false);
        doc["spec"]["extra"] = json!(1);
        let decoded = decode(&doc);
        assert_eq!(decoded.type_error, None);
        assert_eq!(
            decoded.unknown_fields,
            [
                "spec.extra",
                "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.xs.items.bogus",
                "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.xs.maxLenght",
            ]
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_fails_the_decode_naming_it() {
        let decoded = decode(&crd(json!({"type": "object", "properties": {"spec": {
            "type": "object", "properties": {"s": {"type": "string", "maxLength": "5"}}
        }}})));
        let error = decoded.type_error.unwrap();
        assert!(
            error.starts_with(
                "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.s.maxLength: \
                 invalid type: string \"5\""
            ),
            "{error}"
        );
        let decoded = decode(&json!({"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": "x", "labels": {"a": 1}},
            "spec": {}}));
        assert!(
            decoded
                .type_error
                .unwrap()
                .starts_with("metadata.labels.a: invalid type: integer"),
        );
    }
}
