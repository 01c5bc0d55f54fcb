//! controller-gen's CronJob test type (controller-tools `pkg/crd/testdata`), ported to Rust
//! with `#[k8s]` markers, against the same type in Go (`tests/conformance/cronjob`) run through
//! the pinned controller-gen: the two CRDs must be equal, descriptions and the generator
//! annotation aside, up to the differences listed in [`normalize`] with their reasons.
//!
//! The original Go file and its golden YAML live in a module of their own
//! (`testdata.kubebuilder.io/cronjob`) that the module proxy does not serve, so the Go side is
//! our port too; what makes the comparison meaningful is that controller-gen itself writes the
//! expected CRD. `jobTemplate` is left out (its batch/v1beta1 type is not in k8s-openapi), and
//! so are the fields the research notes list as needing Go-only mechanics (custom JSON
//! marshalers, `Type=` overrides, inline embedding).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use kube_markers::codegen::generate_crds;
use kube_markers::registry::crd_entries;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Command;

/// The desired state of a CronJob.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "testdata.kubebuilder.io",
    version = "v1",
    kind = "CronJob",
    namespaced,
    status = "CronJobStatus",
    singular = "mycronjob",
    // kube-derive pluralizes the singular name when one is given ("mycronjobs"); controller-gen
    // pluralizes the kind. The plural is what clients put in URLs, so it is set, not patched.
    plural = "cronjobs",
    selectable = ".spec.schedule",
    annotation("api-approved.kubernetes.io", "https://github.com/kubernetes-sigs/controller-tools")
)]
#[serde(rename_all = "camelCase")]
#[k8s(validation(
    rule = "has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",
    message = "forbiddenInt is not allowed",
    field_path = ".forbiddenInt",
    reason = "FieldValueForbidden"
))]
pub struct CronJobSpec {
    pub schedule: String,
    #[k8s(minimum = 0)]
    pub starting_deadline_seconds: Option<i64>,
    // `Option`, not `#[serde(default)]`: schemars would write `default: ""`, which is not one
    // of the enum's values (the generator refuses such a CRD; see crd_errors.rs).
    #[k8s(enum = ["Allow", "Forbid", "Replace"])]
    pub concurrency_policy: Option<String>,
    pub suspend: Option<bool>,
    #[k8s(minimum = 0)]
    pub successful_jobs_history_limit: Option<i32>,
    #[k8s(items(enum = [0, 1, 3]))]
    pub enum_slice: Option<Vec<i32>>,
    #[k8s(min_length = 4)]
    pub two_of_a_kind_part0: String,
    #[k8s(pattern = r"^$|^((https):\/\/?)[^\s()<>]+$")]
    pub pattern_object: String,
    #[k8s(minimum = -0.5, maximum = 1.5, multiple_of = 0.5)]
    pub float64_with_validations: f64,
    #[k8s(minimum = -2, maximum = 2, multiple_of = 2)]
    pub int32_with_validations: i32,
    #[k8s(
        max_length = 11,
        min_length = 2,
        pattern = "^((100|[0-9]{1,2})%|[0-9]+)$"
    )]
    pub int_or_string_with_a_pattern: Option<IntOrString>,
    #[k8s(nullable)]
    pub can_be_null: String,
    #[k8s(embedded_resource)]
    pub embedded_resource: Value,
    #[k8s(preserve_unknown_fields)]
    #[serde(rename = "unprunedJSON")]
    pub unpruned_json: NestedObject,
    #[k8s(list_type = "map", list_map_keys = ["name", "secondary"])]
    pub associative_list: Vec<AssociativeType>,
    #[k8s(
        list_type = "set",
        min_items = 1,
        items(
            min_length = 1,
            max_length = 255,
            pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
        )
    )]
    pub hosts: Option<Vec<String>>,
    #[k8s(map_type = "granular")]
    pub map_of_info: BTreeMap<String, String>,
    #[k8s(struct_type = "atomic")]
    pub struct_with_several_fields: NestedObject,
    #[k8s(min_items = 2, max_items = 2)]
    pub string_pair: Vec<String>,
    #[k8s(
        validation(rule = "self.size() % 2 == 0", message = "must have even length"),
        validation(rule = "true")
    )]
    pub string_with_even_length: Option<String>,
    // controller-tools' testdata has `'... but is ' + len(self) + ' instead'` here, which
    // kube-apiserver refuses (CEL has no `len`; `string(int)` would be over the cost budget):
    // `the_testdatas_message_expression_is_refused_as_the_api_server_does` below.
    #[k8s(validation(
        rule = "self.size() % 2 == 0",
        message_expression = "'Length has to be even but is ' + (self.size() % 2 == 0 ? 'even' : 'odd')"
    ))]
    pub string_with_even_length_and_message_expression: Option<String>,
    pub forbidden_int: Option<i32>,
    #[k8s(validation(
        rule = "oldSelf.hasValue() || self == 0",
        message = "must be set to zero on creation. can only be modified after",
        optional_old_self
    ))]
    pub only_allow_setting_on_update: Option<i32>,
    #[k8s(optional)]
    pub explicitly_optional_kubebuilder: Option<String>,
    #[k8s(required)]
    pub explicitly_required_kubebuilder: Option<String>,
    pub min_max_properties: Option<MinMaxObject>,
    pub backend: Option<Backend>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct NestedObject {
    pub foo: String,
    pub bar: bool,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct AssociativeType {
    pub name: String,
    pub secondary: i32,
    pub foo: String,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[k8s(min_properties = 1, max_properties = 2)]
pub struct MinMaxObject {
    pub foo: Option<String>,
    pub bar: Option<String>,
    pub baz: Option<String>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[k8s(exactly_one_of = ["url", "serviceName"], at_most_one_of = ["port", "portName"])]
pub struct Backend {
    pub url: Option<String>,
    pub service_name: Option<String>,
    pub port: Option<i32>,
    pub port_name: Option<String>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    pub last_schedule_time: Option<Time>,
}

fn controller_gen_crd() -> Option<Value> {
    let bin = kube_markers_tests::oracle("controller-gen.sh")?;
    let oracle = kube_markers_tests::oracle("yaml-oracle.sh")?;
    let src = kube_markers_tests::workspace_root().join("tests/conformance/cronjob");
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(bin)
        .arg("crd:allowDangerousTypes=true")
        .arg("paths=./...")
        .arg(format!("output:crd:dir={}", out.path().display()))
        .current_dir(&src)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "controller-gen: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let yaml = std::fs::read(out.path().join("testdata.kubebuilder.io_cronjobs.yaml")).unwrap();
    let mut child = Command::new(oracle)
        .arg("-to-json")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &yaml).unwrap();
    let json = child.wait_with_output().unwrap();
    assert!(json.status.success());
    Some(serde_json::from_slice(&json.stdout).unwrap())
}

fn our_crd() -> Value {
    let entries: Vec<_> = crd_entries()
        .into_iter()
        .filter(|e| e.type_name == "CronJob")
        .collect();
    let crds = generate_crds(&entries).unwrap_or_else(|e| panic!("{e:#?}"));
    crds[0].to_value()
}

/// Makes the two CRDs comparable. Each step is a documented difference:
///
/// 1. descriptions and the generator annotation (`controller-gen.kubebuilder.io/version` vs
///    `kube-markers/version`): the issue sets them aside;
/// 2. kube-derive leaves `apiVersion`, `kind` and `metadata` out of the root schema (the API
///    server validates them itself), adds a root `title`, and always requires `spec`;
/// 3. kube-derive marks every `Option<T>` `nullable: true` (serde writes `None` as `null`
///    unless told otherwise, and the API server must accept it), where controller-gen marks
///    only `+nullable` fields; so `nullable` is compared only where controller-gen has it;
/// 4. schemars writes `format: double` on `f64` (controller-gen writes none for float64);
/// 5. controller-gen spells int-or-string as `anyOf: [{type: integer}, {type: string}]` beside
///    `x-kubernetes-int-or-string: true`; k8s-openapi's `IntOrString` schema has only the
///    extension, which the API server takes to mean the same;
/// 6. `required` lists are sets (controller-gen sorts them, schemars keeps field order), and
///    numbers are compared as numbers (`1` and `1.0`).
fn normalize(value: &mut Value, theirs: Option<&Value>) {
    let Value::Object(map) = value else {
        if let Value::Number(n) = value {
            *value = json!(n.as_f64());
        }
        if let Value::Array(items) = value {
            for (i, item) in items.iter_mut().enumerate() {
                normalize(item, theirs.and_then(|t| t.get(i)));
            }
        }
        return;
    };
    map.remove("description");
    if map.get("format") == Some(&json!("double")) {
        map.remove("format");
    }
    if map.get("nullable") == Some(&json!(true))
        && theirs.is_some_and(|t| t.get("nullable").is_none())
    {
        map.remove("nullable");
    }
    if map.get("x-kubernetes-int-or-string") == Some(&json!(true)) {
        map.remove("anyOf");
    }
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    for (key, child) in map.iter_mut() {
        normalize(child, theirs.and_then(|t| t.get(key)));
    }
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn the_cronjob_crd_matches_controller_gens() {
    let Some(mut theirs) = controller_gen_crd() else {
        return;
    };
    let mut ours = our_crd();

    for crd in [&mut theirs, &mut ours] {
        crd["metadata"]["annotations"]
            .as_object_mut()
            .unwrap()
            .retain(|k, _| !k.ends_with("/version"));
        let root = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        let props = root["properties"].as_object_mut().unwrap();
        for key in ["apiVersion", "kind", "metadata"] {
            props.remove(key);
        }
        root.as_object_mut().unwrap().remove("title");
        root.as_object_mut().unwrap().remove("required");
    }
    let reference = theirs.clone();
    normalize(&mut theirs, None);
    normalize(&mut ours, Some(&reference));

    if ours != theirs {
        let mut diffs = Vec::new();
        diff("", &theirs, &ours, &mut diffs);
        panic!("the CRDs differ:\n{}", diffs.join("\n"));
    }
}

fn diff(path: &str, theirs: &Value, ours: &Value, out: &mut Vec<String>) {
    match (theirs, ours) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let p = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => diff(&p, x, y, out),
                    (Some(x), None) => {
                        out.push(format!("{p}: controller-gen has {x}, we have nothing"))
                    }
                    (None, Some(y)) => {
                        out.push(format!("{p}: we have {y}, controller-gen has nothing"))
                    }
                    (None, None) => {}
                }
            }
        }
        (a, b) if a != b => out.push(format!("{path}: controller-gen {a}, ours {b}")),
        _ => {}
    }
}

/// controller-tools' own testdata rule, kept as it is there.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "testdata.kubebuilder.io",
    version = "v1",
    kind = "EvenLength",
    namespaced
)]
pub struct EvenLengthSpec {
    #[k8s(validation(
        rule = "self.size() % 2 == 0",
        message_expression = "'Length has to be even but is ' + len(self) + ' instead'"
    ))]
    pub string_with_even_length_and_message_expression: Option<String>,
}

#[test]
fn the_testdatas_message_expression_is_refused_as_the_api_server_does() {
    let entries: Vec<_> = crd_entries()
        .into_iter()
        .filter(|e| e.type_name == "EvenLength")
        .collect();
    let problems = generate_crds(&entries).expect_err("kube-apiserver refuses this rule");
    let text = format!("{problems:?}");
    assert!(
        text.contains("messageExpression compilation failed")
            && text.contains("undeclared reference to 'len'"),
        "{text}"
    );
}
