//! The transformers a kustomization may list that the deploy bundle writes (its
//! `pinned-namespaces/`), and kustomize's `replacements`: the builtin `PatchTransformer` with a
//! JSON 6902 patch, and `ReplacementTransformer`. Objects are selected as kustomize selects
//! them: by kind, group, version, and by any name and namespace they had.

use super::kustomize::{Object, RBAC_KINDS, namespaced};
use super::{ManifestProblem, Origin, read_documents};
use serde_json::Value;
use std::path::Path;

/// The kinds the kustomize reader keeps.
fn kept_kind(kind: &str) -> bool {
    RBAC_KINDS.contains(&kind) || kind == "CustomResourceDefinition"
}

fn problem(path: &Path, what: impl Into<String>) -> ManifestProblem {
    ManifestProblem::Kustomization {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// A kustomize selector (`target` of a patch, `select` of a replacement): which fields it
/// sets, each compared exactly.
fn selects(selector: &Value, object: &Object, by_any_id: bool) -> bool {
    let (group, version) = match object.api_version().split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", object.api_version()),
    };
    let field = |key: &str| selector[key].as_str();
    if field("kind").is_some_and(|k| k != object.kind())
        || field("group").is_some_and(|g| g != group)
        || field("version").is_some_and(|v| v != version)
    {
        return false;
    }
    // A cluster-scoped object is in no namespace; a namespaced one without a namespace is in
    // `default`, for a selector (kustomize's effective namespace).
    let namespace_matches = |ns: &str, want: &str| {
        namespaced(object.kind()) && (ns == want || (ns.is_empty() && want == "default"))
    };
    let id_matches = |(name, namespace): &(String, String)| {
        field("name").is_none_or(|n| n == name)
            && field("namespace").is_none_or(|ns| namespace_matches(namespace, ns))
    };
    if by_any_id {
        object.ids.iter().any(id_matches)
    } else {
        // A patch's target: the original or the current name, and namespace.
        let (original, current) = (object.original(), object.ids.last().unwrap());
        let name_ok = field("name").is_none_or(|n| n == original.0 || n == current.0);
        let namespace_ok = field("namespace").is_none_or(|ns| {
            namespace_matches(&original.1, ns) || namespace_matches(&current.1, ns)
        });
        name_ok && namespace_ok
    }
}

/// Selector fields this reader compares; any other (`labelSelector`, ...) is refused.
fn check_selector(selector: &Value, file: &Path, errors: &mut Vec<ManifestProblem>) -> bool {
    let known = ["group", "version", "kind", "name", "namespace"];
    for key in selector.as_object().into_iter().flat_map(|m| m.keys()) {
        if !known.contains(&key.as_str()) {
            errors.push(problem(
                file,
                format!("selector field `{key}` is not rendered by can-i"),
            ));
            return false;
        }
    }
    for key in ["name", "namespace"] {
        if selector[key]
            .as_str()
            .is_some_and(|v| v.contains(['*', '^', '$', '(', '[', '|', '+', '?']))
        {
            errors.push(problem(
                file,
                format!(
                    "selector `{key}: {}` is a pattern; can-i compares names exactly",
                    selector[key]
                ),
            ));
            return false;
        }
    }
    true
}

/// One transformer configuration of `transformers:`.
pub(super) fn apply(
    config: &Value,
    origin: &Origin,
    dir: &Path,
    objects: &mut [Object],
    errors: &mut Vec<ManifestProblem>,
) {
    let kind = config["kind"].as_str().unwrap_or_default();
    let file = &origin.file;
    if config["apiVersion"] != "builtin" {
        errors.push(problem(
            file,
            format!(
                "transformer {kind:?} ({}) is a plugin: can-i renders only kustomize's builtin \
                 PatchTransformer and ReplacementTransformer",
                config["apiVersion"]
            ),
        ));
        return;
    }
    match kind {
        "PatchTransformer" => patch(config, file, objects, errors),
        "ReplacementTransformer" => {
            replacements(&config["replacements"], file, dir, objects, errors)
        }
        other => errors.push(problem(
            file,
            format!(
                "builtin transformer {other:?} is not rendered by can-i (only PatchTransformer \
                 and ReplacementTransformer are)"
            ),
        )),
    }
}

/// A `PatchTransformer` whose patch is a JSON 6902 list of operations.
fn patch(config: &Value, file: &Path, objects: &mut [Object], errors: &mut Vec<ManifestProblem>) {
    let target = &config["target"];
    if !check_selector(target, file, errors) {
        return;
    }
    let ops: Vec<Value> = match config["patch"]
        .as_str()
        .map(serde_saphyr::from_str::<Value>)
    {
        Some(Ok(Value::Array(ops))) => ops,
        _ => {
            errors.push(problem(
                file,
                "a PatchTransformer's patch is not a JSON 6902 list of operations (strategic \
                 merge patches are not rendered by can-i)",
            ));
            return;
        }
    };
    for object in objects.iter_mut().filter(|o| selects(target, o, false)) {
        for op in &ops {
            if let Err(why) = json6902(&mut object.doc, op) {
                errors.push(problem(
                    file,
                    format!(
                        "patch operation {op} on {} {:?}: {why}",
                        object.kind(),
                        object.name()
                    ),
                ));
                return;
            }
        }
        object.record();
    }
}

/// A JSON pointer's tokens (`~1` is `/`, `~0` is `~`).
fn pointer(path: &str) -> Result<Vec<String>, String> {
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("path {path:?} does not start with /"));
    };
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

/// One JSON 6902 operation (`add`, `replace`, `remove`, `test`).
fn json6902(doc: &mut Value, op: &Value) -> Result<(), String> {
    let tokens = pointer(op["path"].as_str().ok_or("no path")?)?;
    let (last, parents) = tokens.split_last().ok_or("empty path")?;
    let mut node = &mut *doc;
    for t in parents {
        node = match node {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("no {t:?} on the path"))?;
    }
    let name = op["op"].as_str().unwrap_or_default();
    let value = || op.get("value").cloned().ok_or("no value");
    match (name, node) {
        ("add" | "replace", Value::Object(m)) => {
            if name == "replace" && !m.contains_key(last) {
                return Err(format!("nothing at {last:?} to replace"));
            }
            m.insert(last.clone(), value()?);
        }
        ("add", Value::Array(a)) if last == "-" => a.push(value()?),
        ("add" | "replace", Value::Array(a)) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("{last:?} is not an index"))?;
            match name {
                "add" if i <= a.len() => a.insert(i, value()?),
                "replace" if i < a.len() => a[i] = value()?,
                _ => return Err(format!("index {i} is out of range")),
            }
        }
        ("remove", Value::Object(m)) => {
            m.remove(last)
                .ok_or_else(|| format!("nothing at {last:?} to remove"))?;
        }
        ("remove", Value::Array(a)) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("{last:?} is not an index"))?;
            if i >= a.len() {
                return Err(format!("index {i} is out of range"));
            }
            a.remove(i);
        }
        ("test", node) => {
            let found = match node {
                Value::Object(m) => m.get(last),
                Value::Array(a) => last.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            };
            if found != Some(&value()?) {
                return Err("test failed".into());
            }
        }
        (other @ ("add" | "replace" | "remove"), _) => {
            return Err(format!("cannot {other} under a scalar"));
        }
        (other, _) => return Err(format!("operation {other:?} is not rendered by can-i")),
    }
    Ok(())
}

/// A replacement's field path: `a.b`, `a.[k=v].c` (every list item whose `k` is `v`), `a.0`,
/// `a.*`; the segments, split outside brackets.
fn field_path(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                segments.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    segments.push(current);
    segments
}

/// The nodes a field path reaches (creating nothing).
fn reach<'v>(node: &'v mut Value, segments: &[String]) -> Vec<&'v mut Value> {
    let Some((first, rest)) = segments.split_first() else {
        return vec![node];
    };
    let next: Vec<&mut Value> = match node {
        Value::Array(items) => {
            if let Some(filter) = first.strip_prefix('[').and_then(|f| f.strip_suffix(']')) {
                let (key, want) = filter.split_once('=').unwrap_or((filter, ""));
                items
                    .iter_mut()
                    .filter(|item| item[key].as_str() == Some(want))
                    .collect()
            } else if first == "*" {
                items.iter_mut().collect()
            } else {
                first
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get_mut(i))
                    .into_iter()
                    .collect()
            }
        }
        Value::Object(m) => m.get_mut(first.as_str()).into_iter().collect(),
        _ => Vec::new(),
    };
    next.into_iter().flat_map(|n| reach(n, rest)).collect()
}

/// The value at a field path, if it reaches exactly one.
fn value_at(doc: &Value, path: &str) -> Option<Value> {
    let mut copy = doc.clone();
    let found = reach(&mut copy, &field_path(path));
    match found.as_slice() {
        [one] => Some((**one).clone()),
        _ => None,
    }
}

/// `replacements` (of a kustomization, or a `ReplacementTransformer`): each entry inline or
/// `path:` a file of them.
pub(super) fn replacements(
    list: &Value,
    file: &Path,
    dir: &Path,
    objects: &mut [Object],
    errors: &mut Vec<ManifestProblem>,
) {
    for entry in list.as_array().into_iter().flatten() {
        if let Some(path) = entry["path"].as_str() {
            for doc in read_documents(&dir.join(path), errors).unwrap_or_default() {
                let items = doc.as_array().cloned().unwrap_or_else(|| vec![doc]);
                for item in &items {
                    replacement(item, file, objects, errors);
                }
            }
        } else {
            replacement(entry, file, objects, errors);
        }
    }
}

/// One replacement: the source's field copied to the targets' fields.
fn replacement(r: &Value, file: &Path, objects: &mut [Object], errors: &mut Vec<ManifestProblem>) {
    let source = &r["source"];
    let mut selector = source.clone();
    for key in ["fieldPath", "options"] {
        if let Some(m) = selector.as_object_mut() {
            m.remove(key);
        }
    }
    if source.get("options").is_some() || !check_selector(&selector, file, errors) {
        if source.get("options").is_some() {
            errors.push(problem(
                file,
                "replacement source `options` are not rendered by can-i",
            ));
        }
        return;
    }
    let sources: Vec<&Object> = objects
        .iter()
        .filter(|o| selects(&selector, o, true))
        .collect();
    let source_object = match sources.as_slice() {
        [one] => *one,
        [] => {
            // A source of a kind can-i does not read (a ConfigMap, a Deployment): only what
            // it copies into roles, bindings or ServiceAccounts would matter.
            let unread = selector["kind"].as_str().is_some_and(|k| !kept_kind(k));
            if unread {
                let into_rbac = r["targets"].as_array().into_iter().flatten().any(|t| {
                    t["select"]["kind"]
                        .as_str()
                        .is_none_or(|k| RBAC_KINDS.contains(&k))
                });
                if into_rbac {
                    errors.push(problem(
                        file,
                        format!(
                            "a replacement copies from a {} into roles, bindings or \
                             ServiceAccounts, and can-i reads only those kinds",
                            selector["kind"]
                        ),
                    ));
                }
                return;
            }
            errors.push(problem(
                file,
                format!("replacement source {selector} selects nothing"),
            ));
            return;
        }
        _ => {
            errors.push(problem(
                file,
                format!("replacement source {selector} selects several objects"),
            ));
            return;
        }
    };
    let field = source["fieldPath"].as_str().unwrap_or("metadata.name");
    let Some(value) = value_at(&source_object.doc, field) else {
        errors.push(problem(
            file,
            format!("replacement source {selector} has no single `{field}`"),
        ));
        return;
    };
    for target in r["targets"].as_array().into_iter().flatten() {
        if target.get("options").is_some() {
            errors.push(problem(
                file,
                "replacement target `options` are not rendered by can-i",
            ));
            return;
        }
        let select = &target["select"];
        if !check_selector(select, file, errors) {
            return;
        }
        let rejects: Vec<&Value> = target["reject"].as_array().into_iter().flatten().collect();
        for object in objects.iter_mut() {
            if !selects(select, object, true) || rejects.iter().any(|r| selects(r, object, true)) {
                continue;
            }
            for path in target["fieldPaths"].as_array().into_iter().flatten() {
                let path = path.as_str().unwrap_or_default();
                for node in reach(&mut object.doc, &field_path(path)) {
                    *node = value.clone();
                }
            }
            object.record();
        }
    }
}
