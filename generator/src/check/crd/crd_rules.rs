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
