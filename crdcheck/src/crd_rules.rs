//! Rules of a CRD file's `metadata` and `spec` beyond its schemas, as kube-apiserver 1.37's
//! CRD validation applies them (each pinned by a file of `tests/check_crds/kubectl_cases/` that
//! the API server refused): labels, annotations, finalizers, owner references, `generateName`,
//! the protected groups,
//! `preserveUnknownFields`, a conversion webhook's client config, and each version's
//! `deprecationWarning`, selectable fields and scale subresource.

use serde_json::Value;

/// The most bytes an object's annotations, keys and values, may hold.
const ANNOTATIONS_SIZE: usize = 256 * 1024;

/// The problems of `crd`, each as `location: message`.
pub(super) fn problems(crd: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let meta = &crd["metadata"];
    if let Some(labels) = meta["labels"].as_object() {
        out.extend(label_problems(labels, "metadata.labels"));
    }
    if let Some(annotations) = meta["annotations"].as_object() {
        let mut size = 0;
        for (key, value) in annotations {
            // The API server checks the key in lower case.
            if let Err(why) = qualified_name(&key.to_lowercase()) {
                out.push(format!("metadata.annotations: key `{key}`: {why}"));
            }
            size += key.len() + value.as_str().map_or(0, str::len);
        }
        if size > ANNOTATIONS_SIZE {
            out.push(format!(
                "metadata.annotations: {size} bytes of keys and values, more than the \
                 {ANNOTATIONS_SIZE} the API server takes"
            ));
        }
    }
    let finalizers: Vec<&str> = meta["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for name in &finalizers {
        if let Err(why) = qualified_name(name) {
            out.push(format!("metadata.finalizers: `{name}`: {why}"));
        }
    }
    if finalizers.contains(&"orphan") && finalizers.contains(&"foregroundDeletion") {
        out.push(
            "metadata.finalizers: `orphan` and `foregroundDeletion` cannot both be set".into(),
        );
    }
    let owners = meta["ownerReferences"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    for (i, owner) in owners.iter().enumerate() {
        for key in ["apiVersion", "kind", "name", "uid"] {
            if owner[key].as_str().is_none_or(str::is_empty) {
                out.push(format!("metadata.ownerReferences[{i}].{key}: required"));
            }
        }
    }
    if owners.iter().filter(|o| o["controller"] == true).count() > 1 {
        out.push("metadata.ownerReferences: only one may have `controller: true`".into());
    }
    if meta.get("generateName").is_some_and(|g| !g.is_null()) {
        out.push(
            "metadata.generateName: a CRD's name must be given in full (<plural>.<group>)".into(),
        );
    }
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    if (group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io"))
        && meta["annotations"]["api-approved.kubernetes.io"]
            .as_str()
            .is_none_or(str::is_empty)
    {
        out.push(format!(
            "metadata.annotations[api-approved.kubernetes.io]: required for the protected group \
             `{group}` (the URL of the approving pull request, or \"unapproved, ...\")"
        ));
    }
    if spec["preserveUnknownFields"] == Value::Bool(true) {
        out.push("spec.preserveUnknownFields: must be false in apiextensions.k8s.io/v1".into());
    }
    webhook_problems(&spec["conversion"]["webhook"], &mut out);
    for (i, version) in spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        version_problems(version, &format!("spec.versions[{i}]"), &mut out);
    }
    out
}

fn webhook_problems(webhook: &Value, out: &mut Vec<String>) {
    let at = "spec.conversion.webhook";
    let versions: Vec<&str> = webhook["conversionReviewVersions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (i, v) in versions.iter().enumerate() {
        if versions[..i].contains(v) {
            out.push(format!(
                "{at}.conversionReviewVersions: `{v}` given twice (it must not hold duplicates)"
            ));
        }
    }
    let client = &webhook["clientConfig"];
    if let Some(url) = client["url"].as_str() {
        let why = if !url.starts_with("https://") {
            Some("must use the https scheme")
        } else if url.contains('?') {
            Some("must not hold a query")
        } else if url.contains('#') {
            Some("must not hold a fragment")
        } else if url["https://".len()..]
            .split('/')
            .next()
            .is_some_and(|h| h.contains('@'))
        {
            Some("must not hold user information")
        } else {
            None
        };
        if let Some(why) = why {
            out.push(format!("{at}.clientConfig.url `{url}`: {why}"));
        }
    }
    let service = &client["service"];
    if let Some(port) = service["port"].as_i64()
        && !(1..=65535).contains(&port)
    {
        out.push(format!(
            "{at}.clientConfig.service.port {port}: must be between 1 and 65535"
        ));
    }
    if let Some(path) = service["path"].as_str()
        && !path.is_empty()
        && !path.starts_with('/')
    {
        out.push(format!(
            "{at}.clientConfig.service.path `{path}`: must start with a '/'"
        ));
    }
}

fn version_problems(version: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(warning) = version["deprecationWarning"].as_str() {
        if version["deprecated"] != Value::Bool(true) {
            out.push(format!(
                "{at}.deprecationWarning: may only be set when deprecated is true"
            ));
        }
        if warning.chars().count() > 256 {
            out.push(format!(
                "{at}.deprecationWarning: must be at most 256 characters"
            ));
        }
        if warning.chars().any(|c| c.is_control()) {
            out.push(format!(
                "{at}.deprecationWarning: must be printable (no control characters)"
            ));
        }
    }
    let fields: Vec<&str> = version["selectableFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["jsonPath"].as_str())
        .collect();
    if fields.len() > 8 {
        out.push(format!(
            "{at}.selectableFields: {} of them, at most 8",
            fields.len()
        ));
    }
    for (i, path) in fields.iter().enumerate() {
        if fields[..i].contains(path) {
            out.push(format!(
                "{at}.selectableFields[{i}].jsonPath `{path}`: given twice"
            ));
        }
        if path.starts_with(".metadata") {
            out.push(format!(
                "{at}.selectableFields[{i}].jsonPath `{path}`: must not point into metadata \
                 (`metadata.name` and `metadata.namespace` are selectable already)"
            ));
        }
    }
    let scale = &version["subresources"]["scale"];
    if scale.is_object() {
        for key in ["specReplicasPath", "statusReplicasPath"] {
            if scale[key].as_str().is_none_or(str::is_empty) {
                out.push(format!("{at}.subresources.scale.{key}: required"));
            }
        }
    }
}

/// `ValidateCustomResourceDefinitionNames`: DNS-1035 labels (`kind` and `listKind` in any
/// case, `singular` lower case), and a `listKind` other than `kind`.
pub(super) fn names_problems(names: &Value, problems: &mut Vec<String>) {
    use kube_markers_core::names::dns1035_label;
    // The API server defaults `listKind` to the kind + "List" before it validates the names.
    let default_list_kind = names["kind"]
        .as_str()
        .filter(|k| !k.is_empty())
        .map(|kind| format!("{kind}List"));
    for key in ["singular", "kind", "listKind"] {
        let given = names[key].as_str().filter(|n| !n.is_empty());
        let defaulted = (key == "listKind")
            .then_some(default_list_kind.as_deref())
            .flatten();
        let Some(name) = given.or(defaulted) else {
            continue;
        };
        let checked = if key == "singular" {
            name.to_string()
        } else {
            name.to_lowercase()
        };
        if let Err(why) = dns1035_label(&checked) {
            problems.push(format!("spec.names.{key} `{name}`: {why}"));
        }
    }
    for key in ["shortNames", "categories"] {
        for (i, name) in names[key].as_array().into_iter().flatten().enumerate() {
            let name = name.as_str().unwrap_or_default();
            if let Err(why) = dns1035_label(name) {
                problems.push(format!("spec.names.{key}[{i}] `{name}`: {why}"));
            }
        }
    }
    if let Some(kind) = names["kind"].as_str().filter(|k| !k.is_empty())
        && names["listKind"].as_str() == Some(kind)
    {
        problems.push(format!(
            "spec.names.listKind `{kind}`: kind and listKind may not be the same"
        ));
    }
}

/// `validateCustomResourceConversion`: a `Webhook` strategy needs `webhook.clientConfig` (one
/// of `url` and `service`) and `webhook.conversionReviewVersions`; `None` (the default)
/// takes neither.
pub(super) fn conversion_problems(conversion: &Value, problems: &mut Vec<String>) {
    if conversion.is_null() {
        return;
    }
    let webhook = &conversion["webhook"];
    let client = &webhook["clientConfig"];
    let versions = webhook["conversionReviewVersions"].as_array();
    match conversion["strategy"].as_str().unwrap_or("None") {
        "Webhook" => {
            if client.is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: required when strategy is set to \
                     Webhook"
                        .into(),
                );
            } else if client["url"].is_null() == client["service"].is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: exactly one of url or service is \
                     required"
                        .into(),
                );
            }
            let versions: Vec<&str> = versions
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if versions.is_empty() {
                problems.push("spec.conversion.webhook.conversionReviewVersions: required".into());
            } else if !versions.iter().any(|v| matches!(*v, "v1" | "v1beta1")) {
                problems.push(
                    "spec.conversion.webhook.conversionReviewVersions: must include at least \
                     one of v1, v1beta1"
                        .into(),
                );
            }
        }
        "None" => {
            if !client.is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: should not be set when strategy is \
                     not set to Webhook"
                        .into(),
                );
            }
            if versions.is_some_and(|v| !v.is_empty()) {
                problems.push(
                    "spec.conversion.webhook.conversionReviewVersions: should not be set when \
                     strategy is not set to Webhook"
                        .into(),
                );
            }
        }
        other => problems.push(format!(
            "spec.conversion.strategy `{other}`: must be `None` or `Webhook`"
        )),
    }
}

/// `ValidateCustomResourceColumnDefinition`: a name, a type and format kubectl knows, a path
/// starting with `.` (where it leads is the generator's check, a warning here).
pub(super) fn printer_column_problems(version: &Value, index: usize, problems: &mut Vec<String>) {
    const TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
    const FORMATS: [&str; 8] = [
        "byte",
        "date",
        "date-time",
        "double",
        "float",
        "int32",
        "int64",
        "password",
    ];
    for (i, column) in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("spec.versions[{index}].additionalPrinterColumns[{i}]");
        if column["name"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("{at}.name: required"));
        }
        let ty = column["type"].as_str().unwrap_or_default();
        if !TYPES.contains(&ty) {
            problems.push(format!(
                "{at}.type `{ty}`: must be one of {}",
                TYPES.join(",")
            ));
        }
        if let Some(format) = column["format"].as_str().filter(|f| !f.is_empty())
            && !FORMATS.contains(&format)
        {
            problems.push(format!(
                "{at}.format `{format}`: must be one of {}",
                FORMATS.join(",")
            ));
        }
        let path = column["jsonPath"].as_str().unwrap_or_default();
        if !path.starts_with('.') {
            problems.push(format!(
                "{at}.jsonPath `{path}`: must be a simple json path starting with ."
            ));
        }
    }
}

/// What the API server refuses of an object's labels (at `at`): each key a qualified name,
/// each value a label value.
pub(super) fn label_problems(labels: &serde_json::Map<String, Value>, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (key, value) in labels {
        if let Err(why) = qualified_name(key) {
            out.push(format!("{at}: key `{key}`: {why}"));
        }
        if let Some(value) = value.as_str()
            && let Err(why) = label_value(value)
        {
            out.push(format!("{at}[{key}]: value `{value}`: {why}"));
        }
    }
    out
}

/// A label key: `[prefix/]name`, the prefix a DNS subdomain, the name at most 63 characters of
/// letters, digits, `-`, `_` and `.`, beginning and ending with a letter or digit.
fn qualified_name(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        kube_markers_core::names::dns1123_subdomain(prefix)
            .map_err(|why| format!("its prefix `{prefix}`: {why}"))?;
    }
    if name.is_empty() || name.len() > 63 || !label_shaped(name) {
        return Err(
            "a name must be at most 63 letters, digits, '-', '_' or '.', beginning and ending \
             with a letter or digit"
                .into(),
        );
    }
    Ok(())
}

/// A label value: empty, or as a qualified name's name part.
fn label_value(value: &str) -> Result<(), String> {
    if value.is_empty() || (value.len() <= 63 && label_shaped(value)) {
        Ok(())
    } else {
        Err(
            "must be at most 63 letters, digits, '-', '_' or '.', beginning and ending with a \
             letter or digit"
                .into(),
        )
    }
}

fn label_shaped(s: &str) -> bool {
    let alnum = |c: char| c.is_ascii_alphanumeric();
    s.starts_with(alnum)
        && s.ends_with(alnum)
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// kube-apiserver 1.37.2 takes 262,144 bytes of annotation keys and values, not one more
    /// (a key `k` with a value of 262,143 and of 262,144 bytes, tried on the server).
    #[test]
    fn annotations_up_to_256_kib() {
        let crd = |len: usize| json!({"metadata": {"annotations": {"k": "x".repeat(len)}}});
        assert!(problems(&crd(262_143)).is_empty());
        let over = problems(&crd(262_144));
        assert_eq!(over.len(), 1, "{over:?}");
        assert!(
            over[0].starts_with("metadata.annotations: 262145 bytes"),
            "{over:?}"
        );
    }
}
