//! Helpers shared by kube-markers' integration tests (the tests themselves are in `tests/`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds (or reuses) a reference oracle with one of the repository's pinned build scripts
/// (`scripts/<script>`) and returns the binary's path.
///
/// A failed build fails the test, so a missing Go never passes for a green run. Tests that
/// call this carry `#[cfg_attr(skip_oracle, ignore = ...)]`: with `KUBE_MARKERS_SKIP_ORACLE=1`
/// (see `build.rs`) they are reported as ignored. Run anyway (`--include-ignored`) with that
/// variable set, this returns `None` and says so.
pub fn oracle(script: &str) -> Option<PathBuf> {
    if cfg!(skip_oracle) || std::env::var_os("KUBE_MARKERS_SKIP_ORACLE").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED: KUBE_MARKERS_SKIP_ORACLE=1, test against scripts/{script} not run");
        return None;
    }
    let out = Command::new("bash")
        .arg(workspace_root().join("scripts").join(script))
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/{script}: {e}"));
    assert!(
        out.status.success(),
        "scripts/{script} failed (Go is needed; KUBE_MARKERS_SKIP_ORACLE=1 skips the oracle tests):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
}

/// A small deterministic generator (xorshift64*), so a failing corpus reproduces.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Validates `object` against a CRD version's `openAPIV3Schema` the way the API server's
/// OpenAPI validation would, using a JSON Schema (draft 4) validator: `nullable` becomes a
/// `null` type, and `x-kubernetes-int-or-string` an integer-or-string. Returns the messages.
pub fn openapi_errors(schema: &serde_json::Value, object: &serde_json::Value) -> Vec<String> {
    let converted = to_json_schema(schema);
    let validator = jsonschema::draft4::new(&converted).expect("the converted schema compiles");
    validator
        .iter_errors(object)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn to_json_schema(node: &serde_json::Value) -> serde_json::Value {
    use serde_json::{Value, json};
    match node {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let v = match k.as_str() {
                    // Values, not schemas: keep them as they are.
                    "enum" | "default" | "example" | "required" | "x-kubernetes-validations" => {
                        v.clone()
                    }
                    _ => to_json_schema(v),
                };
                out.insert(k.clone(), v);
            }
            if out.get("nullable") == Some(&json!(true))
                && let Some(Value::String(t)) = out.get("type").cloned()
            {
                out.insert("type".into(), json!([t, "null"]));
                if let Some(Value::Array(values)) = out.get_mut("enum") {
                    values.push(Value::Null);
                }
            }
            if out.get("x-kubernetes-int-or-string") == Some(&json!(true))
                && !out.contains_key("type")
            {
                out.insert("type".into(), json!(["integer", "string"]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(to_json_schema).collect()),
        other => other.clone(),
    }
}

/// Evaluates the schema's CEL rules (`x-kubernetes-validations`, transition rules included when
/// `old` is given) with kube-cel, as the API server would. Returns the messages.
pub fn cel_errors(
    schema: &serde_json::Value,
    object: &serde_json::Value,
    old: Option<&serde_json::Value>,
) -> Vec<String> {
    match kube_cel::Validator::new().validate(schema, object, old) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.into_vec().iter().map(|e| e.to_string()).collect(),
    }
}

/// Writing one rule set twice: as controller-gen's Go markers and as `#[rbac]` attributes
/// (the differential tests and `scripts/bench-vs-controller-gen.sh` share these).
pub mod markers {
    use kube_markers::registry::{RbacMarker, Text};

    /// The marker as controller-gen reads it (`""` quoted, lists joined by `;`).
    pub fn go_marker(m: &RbacMarker) -> String {
        let mut parts = Vec::new();
        for (key, list) in [
            ("groups", &m.groups),
            ("resources", &m.resources),
            ("resourceNames", &m.resource_names),
            ("urls", &m.urls),
        ] {
            if !list.is_empty() {
                parts.push(format!("{key}={}", go_list(list)));
            }
        }
        parts.push(format!("verbs={}", go_list(&m.verbs)));
        if let Some(ns) = &m.namespace {
            parts.push(format!("namespace={ns}"));
        }
        if let Some(r) = &m.role_name {
            parts.push(format!("roleName={r}"));
        }
        format!("// +kubebuilder:rbac:{}", parts.join(","))
    }

    fn go_list(v: &[Text]) -> String {
        v.iter()
            .map(|s| if s.is_empty() { "\"\"" } else { s.as_ref() })
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The same marker as `#[rbac(...)]`, lists as arrays (which also name the core group
    /// `""` among others).
    pub fn rust_attribute(m: &RbacMarker) -> String {
        let mut parts = Vec::new();
        for (key, list) in [
            ("groups", &m.groups),
            ("resources", &m.resources),
            ("resource_names", &m.resource_names),
            ("urls", &m.urls),
            ("verbs", &m.verbs),
        ] {
            if !list.is_empty() {
                parts.push(format!("{key} = {list:?}"));
            }
        }
        if let Some(ns) = &m.namespace {
            parts.push(format!("namespace = {ns:?}"));
        }
        if let Some(r) = &m.role_name {
            parts.push(format!("role_name = {r:?}"));
        }
        format!("#[rbac({})]", parts.join(", "))
    }
}
