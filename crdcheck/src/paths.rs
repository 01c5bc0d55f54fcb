//! JSON paths (printer columns, selectable fields, the scale subresource) resolved in a schema.

use serde_json::Value;

/// Why a JSON path does not lead anywhere in a schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path does not start with `.`.
    #[error("`{path}` must start with `.`")]
    NotFromRoot {
        /// The path.
        path: String,
    },
    /// A step names no property (and there are no `additionalProperties` to take it).
    #[error("no property `{name}` under `{under}`")]
    NoProperty {
        /// The step.
        name: String,
        /// The path walked so far (`.` for the root).
        under: String,
    },
    /// `[...]` after something that is not a list.
    #[error("`{path}` is not a list")]
    NotAList {
        /// The path walked so far.
        path: String,
    },
}

/// Resolves a simple JSON path (`.spec.replicas`, `.status.conditions[?(@.type=="Ready")].status`)
/// against the schema. Returns the node it ends at, or why it does not resolve.
pub fn resolve<'a>(root: &'a Value, json_path: &str) -> Result<&'a Value, PathError> {
    let Some(rest) = json_path.strip_prefix('.') else {
        return Err(PathError::NotFromRoot {
            path: json_path.to_string(),
        });
    };
    let mut node = root;
    let mut walked = String::new();
    for segment in split_path(rest) {
        let (name, brackets) = match segment.find('[') {
            Some(i) => (&segment[..i], segment[i..].matches('[').count()),
            None => (segment, 0),
        };
        if walked.is_empty() && name == "metadata" {
            // ObjectMeta is the API server's; any path below it is its business.
            return Ok(&Value::Null);
        }
        if node["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true)
            && node.get("properties").is_none()
        {
            return Ok(node);
        }
        if !name.is_empty() {
            node = match node["properties"].get(name) {
                Some(child) => child,
                None => match node.get("additionalProperties") {
                    Some(extra) if extra.is_object() => extra,
                    _ => {
                        return Err(PathError::NoProperty {
                            name: name.to_string(),
                            under: if walked.is_empty() { "." } else { &walked }.to_string(),
                        });
                    }
                },
            };
            walked.push('.');
            walked.push_str(name);
        }
        for _ in 0..brackets {
            node = match node.get("items") {
                Some(items) => items,
                None => return Err(PathError::NotAList { path: walked }),
            };
        }
    }
    Ok(node)
}

/// Splits on dots outside brackets (filters may contain dots: `[?(@.type=="Ready")]`).
fn split_path(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in path.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 => {
                out.push(&path[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&path[start..]);
    out
}
