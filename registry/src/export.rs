//! The registry as data, for a generator split in two: the operator's binary links the
//! registry and renders each `#[kube_markers::crd]` type's CRD with its own types
//! ([`to_json`]); the installed `kube-markers` command, which links the checks and the
//! writing, reads that and [`load`]s it in place of its own (empty) link sections, so the
//! generator's code runs over the same records (`kube_markers::export`, docs/command.md).
//!
//! The export is the registry's own records, serialized: each attribute's record as its macro
//! wrote it (decoded by the same functions as the linked ones), `link!`'s records, and what
//! only the operator's code can compute, each CRD type's `CustomResourceExt::crd` (or the
//! panic kube-derive raised). Functions cannot cross a process: a loaded webhook handler or
//! conversion answers that it is not linked here.

use crate::conversion::ConversionEntry;
use crate::header::Record;
use crate::webhook::{HandlerError, HandlerFn, HandlerFuture};
use crate::{CrdAllow, CrdEntry, GeneratorRecord, Source, WebhookRecord};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    JSONSchemaPropsOrStringArray,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable naming the `kube-markers` command a light generator runs
/// (default: `kube-markers` on `PATH`); `kube-markers generate` sets it to itself.
pub const COMMAND_ENV: &str = "KUBE_MARKERS_COMMAND";

/// The export's format: the command refuses another.
pub const FORMAT: u64 = 1;

/// Set (to anything) in a light generator's environment by the command: print the export on
/// standard output instead of running.
pub const EXPORT_ENV: &str = "KUBE_MARKERS_EXPORT";

/// The command line that installs the `kube-markers` command of this kube-markers: from the
/// checkout this crate was built from when it is one (a path or git dependency: its `cli/`
/// is beside this crate), else from crates.io at this version.
pub fn install_command() -> String {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent();
    match checkout.filter(|c| c.join("cli/Cargo.toml").is_file()) {
        Some(checkout) => format!(
            "cargo install --locked --path {}",
            checkout.join("cli").display()
        ),
        None => format!(
            "cargo install --locked kube-markers-cli@{}",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

/// A CRD as its type rendered it, or the message of the panic that stopped it.
pub(crate) type Rendered = Result<CustomResourceDefinition, String>;

/// What [`load`] installed: the records of another process's link sections.
pub(crate) struct Loaded {
    pub(crate) rbac: &'static [Record],
    pub(crate) webhooks: &'static [WebhookRecord],
    pub(crate) configurations: &'static [Record],
    pub(crate) schema_types: &'static [Record],
    pub(crate) crds: &'static [CrdEntry],
    pub(crate) conversions: &'static [ConversionEntry],
    pub(crate) linked_crates: &'static [&'static str],
    pub(crate) generators: &'static [GeneratorRecord],
}

static LOADED: OnceLock<Loaded> = OnceLock::new();
static BINARY: OnceLock<PathBuf> = OnceLock::new();

/// The generator binary the loaded registry came from (what [`load`] was given), for what is
/// kept beside it; `None` in the generator binary itself.
pub fn binary() -> Option<&'static Path> {
    BINARY.get().map(PathBuf::as_path)
}

/// The records this binary links, and each CRD type's CRD, as JSON.
pub fn to_json() -> String {
    let records = |records: &[Record]| Value::Array(records.iter().map(record_json).collect());
    let export = json!({
        "format": FORMAT,
        "kube-markers": env!("CARGO_PKG_VERSION"),
        // For a command of another version: how to install the generator's.
        "install": install_command(),
        "generators": crate::GENERATOR_RECORDS.iter().map(|g| json!({
            "package": g.package,
            "bin": g.bin,
            "manifest_dir": g.manifest_dir,
        })).collect::<Vec<_>>(),
        "linked_crates": crate::LINKED_CRATES.static_slice(),
        "rbac": records(crate::RBAC_RECORDS.static_slice()),
        "webhooks": crate::WEBHOOK_RECORDS.iter().map(|w| json!({
            "record": record_json(&w.record),
            "handler": w.handler.is_some(),
        })).collect::<Vec<_>>(),
        "webhook_configurations": records(crate::WEBHOOK_CONFIGURATION_RECORDS.static_slice()),
        "schema_types": records(crate::SCHEMA_TYPE_RECORDS.static_slice()),
        "crds": crate::CRD_ENTRIES.iter().map(|c| json!({
            "crd": rendered_json(c.crd),
            "storage": c.storage,
            "root_patch": c.root_patch,
            "type_name": c.type_name,
            "source": source_json(&c.source),
            "allow": c.allow.iter().map(|a| json!({"name": a.name, "reason": a.reason})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "conversions": crate::CONVERSION_ENTRIES.iter().map(|c| json!({
            "spoke": rendered_json(c.spoke),
            "hub": rendered_json(c.hub),
            "spoke_type": c.spoke_type,
            "hub_type": c.hub_type,
            "source": source_json(&c.source),
        })).collect::<Vec<_>>(),
    });
    export.to_string()
}

fn record_json(r: &Record) -> Value {
    json!({
        "data": r.data,
        "file": r.file,
        "line": r.line,
        "column": r.column,
        "module_path": r.module_path,
    })
}

fn source_json(s: &Source) -> Value {
    json!({
        "file": s.file,
        "line": s.line,
        "column": s.column,
        "module_path": s.module_path,
        "item": s.item,
    })
}

/// kube-derive's CRD, or its panic's message (the panic hook has printed it already, as the
/// whole generator's run prints it).
fn rendered_json(crd: fn() -> CustomResourceDefinition) -> Value {
    match std::panic::catch_unwind(crd) {
        Ok(crd) => json!({ "ok": crd }),
        Err(payload) => json!({ "panic": crate::crd::panic_message(&*payload) }),
    }
}

/// Installs the registry `json` ([`to_json`] of the generator binary `binary`) in place of
/// this process's link sections: every accessor of this crate reads it from then on. Call it
/// before anything reads the registry, once.
pub fn load(json: &str, binary: &Path) -> Result<(), String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("not a registry export: {e}"))?;
    let format = v["format"].as_u64();
    let version = v["kube-markers"].as_str().unwrap_or("?");
    if format != Some(FORMAT) || version != env!("CARGO_PKG_VERSION") {
        // An export without its install line (or not a version's): crates.io at its version.
        let install = v["install"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("cargo install --locked kube-markers-cli@{version}"));
        return Err(format!(
            "the generator links kube-markers {version} (export format {}), this command is \
             kube-markers {} (format {FORMAT}): they must be the same.\nInstall the command of \
             the generator's kube-markers:\n    {install}\nor name one of that version with \
             {COMMAND_ENV}=/path/to/kube-markers.",
            format.map_or("?".to_string(), |f| f.to_string()),
            env!("CARGO_PKG_VERSION"),
        ));
    }
    let loaded = Loaded {
        rbac: leak_all(&v["rbac"], record)?,
        webhooks: leak_all(&v["webhooks"], |w| {
            Ok(WebhookRecord {
                record: record(&w["record"])?,
                handler: boolean(&w["handler"])?.then_some(not_linked_handler as HandlerFn),
            })
        })?,
        configurations: leak_all(&v["webhook_configurations"], record)?,
        schema_types: leak_all(&v["schema_types"], record)?,
        crds: leak_all(&v["crds"], |c| {
            let mut entry = CrdEntry::__new(
                not_linked_crd,
                boolean(&c["storage"])?,
                text(&c["root_patch"])?,
                text(&c["type_name"])?,
                source(&c["source"])?,
            )
            .__allow(leak_all(&c["allow"], |a| {
                Ok(CrdAllow::__new(text(&a["name"])?, text(&a["reason"])?))
            })?);
            entry.rendered = Some(rendered(&c["crd"])?);
            Ok(entry)
        })?,
        conversions: leak_all(&v["conversions"], |c| {
            let mut entry = ConversionEntry::__new(
                not_linked_crd,
                not_linked_crd,
                not_linked_conversion,
                not_linked_conversion,
                text(&c["spoke_type"])?,
                text(&c["hub_type"])?,
                source(&c["source"])?,
            );
            entry.rendered = Some((rendered(&c["spoke"])?, rendered(&c["hub"])?));
            Ok(entry)
        })?,
        linked_crates: leak_all(&v["linked_crates"], text)?,
        generators: leak_all(&v["generators"], |g| {
            Ok(GeneratorRecord {
                package: text(&g["package"])?,
                bin: match &g["bin"] {
                    Value::Null => None,
                    bin => Some(text(bin)?),
                },
                manifest_dir: text(&g["manifest_dir"])?,
            })
        })?,
    };
    LOADED
        .set(loaded)
        .map_err(|_| "a registry export was loaded already".to_string())?;
    let _ = BINARY.set(binary.to_path_buf());
    Ok(())
}

fn leak_all<T>(
    v: &Value,
    item: impl Fn(&Value) -> Result<T, String>,
) -> Result<&'static [T], String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("expected a list, found {v}"))?;
    let items: Vec<T> = items.iter().map(item).collect::<Result<_, _>>()?;
    Ok(Vec::leak(items))
}

fn text(v: &Value) -> Result<&'static str, String> {
    v.as_str()
        .map(|s| &*String::leak(s.to_string()))
        .ok_or_else(|| format!("expected a string, found {v}"))
}

fn number(v: &Value) -> Result<u32, String> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("expected a line or column, found {v}"))
}

fn boolean(v: &Value) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("expected true or false, found {v}"))
}

fn record(v: &Value) -> Result<Record, String> {
    Ok(Record {
        data: text(&v["data"])?,
        file: text(&v["file"])?,
        line: number(&v["line"])?,
        column: number(&v["column"])?,
        module_path: text(&v["module_path"])?,
    })
}

fn source(v: &Value) -> Result<Source, String> {
    Ok(Source::__new(
        text(&v["file"])?,
        number(&v["line"])?,
        number(&v["column"])?,
        text(&v["module_path"])?,
        text(&v["item"])?,
    ))
}

fn rendered(v: &Value) -> Result<&'static Rendered, String> {
    let rendered = match (v.get("ok"), v.get("panic")) {
        (Some(json), _) => {
            let mut crd: CustomResourceDefinition = serde_json::from_value(json.clone())
                .map_err(|e| format!("a CRD that does not read back: {e}"))?;
            restore_nulls(&mut crd, json);
            Ok(crd)
        }
        (None, Some(message)) => Err(text(message)?.to_string()),
        (None, None) => return Err(format!("expected a CRD or a panic, found {v}")),
    };
    Ok(Box::leak(Box::new(rendered)))
}

/// serde reads a schema's `"default": null` and `"example": null` as no value (`None`), where
/// the generator binary's CRD held a `null` (`Some`), which the whole generator writes: put
/// back from the JSON.
fn restore_nulls(crd: &mut CustomResourceDefinition, json: &Value) {
    for (i, version) in crd.spec.versions.iter_mut().enumerate() {
        let schema = version
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut());
        if let Some(schema) = schema {
            restore(
                schema,
                &json["spec"]["versions"][i]["schema"]["openAPIV3Schema"],
            );
        }
    }
}

fn restore(schema: &mut JSONSchemaProps, json: &Value) {
    let null = |key: &str| json.get(key).is_some_and(Value::is_null);
    if null("default") {
        schema.default = Some(JSON(Value::Null));
    }
    if null("example") {
        schema.example = Some(JSON(Value::Null));
    }
    for (key, map) in [
        ("properties", &mut schema.properties),
        ("patternProperties", &mut schema.pattern_properties),
        ("definitions", &mut schema.definitions),
    ] {
        for (name, s) in map.iter_mut().flatten() {
            restore(s, &json[key][name]);
        }
    }
    for (key, list) in [
        ("allOf", &mut schema.all_of),
        ("anyOf", &mut schema.any_of),
        ("oneOf", &mut schema.one_of),
    ] {
        for (i, s) in list.iter_mut().flatten().enumerate() {
            restore(s, &json[key][i]);
        }
    }
    if let Some(not) = &mut schema.not {
        restore(not, &json["not"]);
    }
    match &mut schema.items {
        Some(JSONSchemaPropsOrArray::Schema(s)) => restore(s, &json["items"]),
        Some(JSONSchemaPropsOrArray::Schemas(list)) => {
            for (i, s) in list.iter_mut().enumerate() {
                restore(s, &json["items"][i]);
            }
        }
        None => {}
    }
    for (key, or_bool) in [
        ("additionalProperties", &mut schema.additional_properties),
        ("additionalItems", &mut schema.additional_items),
    ] {
        if let Some(JSONSchemaPropsOrBool::Schema(s)) = or_bool {
            restore(s, &json[key]);
        }
    }
    for (name, dependency) in schema.dependencies.iter_mut().flatten() {
        if let JSONSchemaPropsOrStringArray::Schema(s) = dependency {
            restore(s, &json["dependencies"][name]);
        }
    }
}

/// What a loaded entry's functions stand for: the operator's code, linked into the generator
/// binary only. The generator reads CRDs through [`CrdEntry::definition`] and
/// [`ConversionEntry::spoke_definition`], which return the exported ones.
fn not_linked_crd() -> CustomResourceDefinition {
    panic!("this CRD type's code is linked into the generator binary, not into this process")
}

fn not_linked_conversion(_: Value) -> Result<Value, String> {
    Err("this conversion is linked into the generator binary, not into this process".into())
}

fn not_linked_handler(_: Vec<u8>) -> HandlerFuture {
    Box::pin(async {
        Err(HandlerError::Refused(
            "this handler is linked into the generator binary, not into this process".into(),
        ))
    })
}

/// A loaded CRD: a clone of it, or kube-derive's panic again (without the panic hook, which
/// the generator binary ran already).
pub(crate) fn definition(rendered: &Rendered) -> CustomResourceDefinition {
    match rendered {
        Ok(crd) => crd.clone(),
        Err(message) => std::panic::resume_unwind(Box::new(message.clone())),
    }
}

/// The records of a slice, or the loaded ones.
pub(crate) fn or_loaded<T>(
    linked: &'static [T],
    loaded: fn(&'static Loaded) -> &'static [T],
) -> &'static [T] {
    LOADED.get().map_or(linked, loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crd_and_a_panic_read_back() {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Foo", "plural": "foos"},
                     "scope": "Namespaced", "versions": []}
        }))
        .unwrap();
        let back = rendered(&json!({ "ok": crd })).unwrap();
        assert_eq!(back.as_ref().unwrap(), &crd);
        let panic = rendered(&json!({ "panic": "no tagged enums" })).unwrap();
        let caught = std::panic::catch_unwind(|| definition(panic)).unwrap_err();
        assert_eq!(crate::crd::panic_message(&*caught), "no tagged enums");
        assert!(rendered(&json!({})).is_err());
    }

    /// A CRD written to JSON by the generator binary reads back to the value it wrote, `null`s
    /// included (a `default: null` kube-derive keeps is written by the whole generator too).
    #[test]
    fn a_crd_reads_back_to_the_same_json() {
        let json = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Foo", "plural": "foos"},
                     "scope": "Namespaced", "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "a": {"type": "string", "nullable": true, "default": null},
                        "b": {"type": "integer", "default": 0, "maximum": 5.0, "example": null},
                        "c": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        "d": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "e": {"type": "array", "items": {"type": "object", "properties": {
                            "f": {"type": "string", "nullable": true, "default": null}}}}
                    }}
                }}}
            }]}
        });
        let mut crd: CustomResourceDefinition = serde_json::from_value(json).unwrap();
        // What a schema's `"default": null` is in the generator binary's CRD.
        let schema = crd.spec.versions[0].schema.as_mut().unwrap();
        let props = schema
            .open_api_v3_schema
            .as_mut()
            .unwrap()
            .properties
            .as_mut()
            .unwrap();
        let spec = props.get_mut("spec").unwrap().properties.as_mut().unwrap();
        spec.get_mut("a").unwrap().default = Some(JSON(Value::Null));
        spec.get_mut("b").unwrap().example = Some(JSON(Value::Null));
        let Some(JSONSchemaPropsOrArray::Schema(item)) = &mut spec.get_mut("e").unwrap().items
        else {
            panic!("e's items")
        };
        item.properties
            .as_mut()
            .unwrap()
            .get_mut("f")
            .unwrap()
            .default = Some(JSON(Value::Null));
        let exported = json!({ "ok": crd });
        assert_eq!(
            exported["ok"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                ["properties"]["a"]["default"],
            Value::Null
        );
        assert!(exported["ok"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["a"].get("default").is_some());
        let back = rendered(&exported).unwrap().as_ref().unwrap();
        assert_eq!(serde_json::to_value(back).unwrap(), exported["ok"]);
    }
}
