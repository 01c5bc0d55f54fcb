//! Objects as Helm templates: the object is written by the YAML writer with placeholder words
//! in the places a template action goes, and the placeholders are then replaced by the
//! actions in the text. The writer quotes, orders and indents the object as it writes every
//! other file; a placeholder is a plain word ([`crate::output::yaml::is_plain_word`]), which
//! the writer never quotes or folds, so the action lands where the word was.

use crate::output::yaml::render_yaml;
use serde_json::{Map, Value, json};

/// Stands for the name prefix (`{{ include "<chart>.namePrefix" . }}`) inside a string.
pub(super) const PREFIX: &str = "kmxPREFIXxmk";
/// Stands for the operator's namespace (`{{ include "<chart>.namespace" . }}`) inside a string.
pub(super) const NAMESPACE: &str = "kmxNAMESPACExmk";
/// Stands for the manager's image.
pub(super) const IMAGE: &str = "kmxIMAGExmk";
/// Stands for the Deployment's replicas.
pub(super) const REPLICAS: &str = "kmxREPLICASxmk";

const BLOCK: &str = "kmxBLOCK";
const BLOCK_END: &str = "xmk";

/// What replaces a line whose key or value is a block placeholder.
#[derive(Debug, Clone)]
pub(super) enum Block {
    /// A map entry whose key is the placeholder: the named template's lines (the labels).
    Include(String),
    /// `key:` with the value of `expr` as YAML, only when it is not empty.
    With(String),
    /// The entries of the map (or the items of the list) `expr`, where the placeholder is a
    /// map key (or a list item), only when it is not empty: a user's additions to the
    /// generator's own entries.
    Merge(String),
    /// `key:` with the value of `expr` as YAML.
    ToYaml(String),
    /// The entry (the key is the placeholder: each entry of `body`, a map; else `key: body`)
    /// only when `cond` holds.
    If { cond: String, body: Value },
}

/// The placeholders of one chart and what they stand for.
pub(super) struct Template {
    chart: String,
    blocks: Vec<Block>,
}

impl Template {
    /// Templates of the chart `chart` (the prefix of its named templates).
    pub(super) fn new(chart: &str) -> Self {
        Template {
            chart: chart.to_string(),
            blocks: Vec::new(),
        }
    }

    /// A placeholder word for `block`, to put as a map key or value.
    pub(super) fn block(&mut self, block: Block) -> String {
        self.blocks.push(block);
        format!("{BLOCK}{}{BLOCK_END}", self.blocks.len() - 1)
    }

    /// `{{ include "<chart>.<name>" . }}`.
    pub(super) fn include(&self, name: &str) -> String {
        format!("{{{{ include \"{}.{name}\" . }}}}", self.chart)
    }

    /// The objects as one template file: `header`, then each object, the ones with a
    /// condition inside `{{- if cond }}` … `{{- end }}`.
    pub(super) fn render(&self, header: &str, docs: &[(Option<String>, Value)]) -> String {
        let mut out = String::from(header);
        for (cond, doc) in docs {
            if let Some(cond) = cond {
                out.push_str(&format!("{{{{- if {cond} }}}}\n"));
            }
            out.push_str("---\n");
            out.push_str(&self.expand(&render_yaml(doc)));
            if cond.is_some() {
                out.push_str("{{- end }}\n");
            }
        }
        out
    }

    /// The writer's text with every placeholder replaced; literal `{{` escaped, so that no text
    /// of the object (a CRD's description, say) is read as an action.
    fn expand(&self, yaml: &str) -> String {
        let escaped = escape(yaml);
        let mut out = String::new();
        for line in escaped.lines() {
            match self.block_of(line) {
                Some((indent, key, block)) => out.push_str(&self.expand_block(indent, key, block)),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        out.replace(PREFIX, &self.include("namePrefix"))
            .replace(NAMESPACE, &self.include("namespace"))
            .replace(
                IMAGE,
                "{{ .Values.image.repository }}{{ with .Values.image.tag }}:{{ . }}{{ end }}",
            )
            .replace(REPLICAS, "{{ .Values.replicas }}")
    }

    /// The line's indentation, its key (`None` when the key is the placeholder) and block.
    fn block_of<'l>(&self, line: &'l str) -> Option<(usize, Option<&'l str>, &Block)> {
        let start = line.find(BLOCK)?;
        let digits = &line[start + BLOCK.len()..];
        let end = digits.find(BLOCK_END)?;
        let block = self.blocks.get(digits[..end].parse::<usize>().ok()?)?;
        let indent = line.len() - line.trim_start().len();
        let before = &line[indent..start];
        let after = &digits[end + BLOCK_END.len()..];
        let key = match before.strip_suffix(": ") {
            Some(key) => Some(key),
            // The placeholder is the key of a sequence item's first entry: the dash is kept.
            None if before == "- " && after.starts_with(':') => Some("- "),
            None => None,
        };
        Some((indent, key, block))
    }

    fn expand_block(&self, indent: usize, key: Option<&str>, block: &Block) -> String {
        // The first entry of a sequence's map: the `-` on a line of its own, so that a block
        // left out does not take the item's dash with it.
        if let Some(rest) = key.and_then(|k| k.strip_prefix("- ")) {
            let pad = " ".repeat(indent);
            return format!(
                "{pad}-\n{}",
                self.expand_block(indent + 2, Some(rest), block)
            );
        }
        let pad = " ".repeat(indent);
        let key = key.unwrap_or_default();
        match block {
            Block::Include(name) => format!(
                "{pad}{{{{- include \"{}.{name}\" . | nindent {indent} }}}}\n",
                self.chart
            ),
            Block::With(expr) => format!(
                "{{{{- with {expr} }}}}\n{pad}{key}: {{{{- toYaml . | nindent {} }}}}\n{{{{- end }}}}\n",
                indent + 2
            ),
            Block::Merge(expr) => format!(
                "{{{{- with {expr} }}}}\n{pad}{{{{- toYaml . | nindent {indent} }}}}\n{{{{- end }}}}\n"
            ),
            Block::ToYaml(expr) => format!(
                "{pad}{key}: {{{{- toYaml {expr} | nindent {} }}}}\n",
                indent + 2
            ),
            Block::If { cond, body } => {
                let fragment = if key.is_empty() {
                    body.clone()
                } else {
                    let mut entry = Map::new();
                    entry.insert(key.to_string(), body.clone());
                    Value::Object(entry)
                };
                let mut out = format!("{{{{- if {cond} }}}}\n");
                for line in self.expand(&render_yaml(&fragment)).lines() {
                    out.push_str(&format!("{pad}{line}\n"));
                }
                out.push_str("{{- end }}\n");
                out
            }
        }
    }
}

/// `text` as a template whose output is `text`: every `{{` an action printing it.
pub(super) fn escape(text: &str) -> String {
    text.replace("{{", "{{ \"{{\" }}")
}

/// `{"key": value}`.
pub(super) fn entry(key: &str, value: Value) -> Value {
    json!({ key: value })
}
