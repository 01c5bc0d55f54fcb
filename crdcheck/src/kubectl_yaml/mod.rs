//! A file's objects as `kubectl create -f` reads them (kubectl 1.37), step by step:
//!
//! 1. The bytes ([`decode_bytes`]): a UTF-16 file with a byte order mark is decoded, a UTF-8
//!    byte order mark dropped, and every byte that is not UTF-8 becomes U+FFFD (cli-runtime's
//!    `FileVisitor` reads through `unicode.BOMOverride(unicode.UTF8.NewDecoder())`).
//! 2. JSON or YAML ([`read_stream`], apimachinery's `YAMLOrJSONDecoder`): text whose first
//!    4096 bytes start, after white space, with `{` is a stream of JSON values (`{..}{..}`);
//!    when the first or second of them is not JSON, the rest is read as YAML.
//! 3. YAML documents: the text is cut at each line starting with `---` (a line with more
//!    than a comment after it is an error), and each piece is one document for go-yaml v2.
//! 4. Each document as go-yaml v2 unmarshals it into `interface{}`: a plain scalar is
//!    resolved by its YAML 1.1 table (`y`, `on`, `0755`, `0x1F`, `1_000`, ...), a quoted or
//!    block one is a string, `!!int`-like tags are checked, anchors are expanded and merge
//!    keys (`<<`) set their keys over the ones before them.
//! 5. sigs.k8s.io/yaml's JSON conversion: a key that go-yaml read as a boolean or number
//!    becomes its text (`y` → `"true"`, `0x10` → `"16"`, `1.5` → `"1.5"` as a float32
//!    prints), a null or too large key is an error, as is a NaN or infinite value.
//!
//! Written from the behaviour of those libraries; none of their code is copied.

mod bytes;
mod lines;
mod resolve;

pub(crate) use bytes::decode_bytes;
use bytes::utf8_lossy_per_byte;
pub(crate) use lines::Lines;
use lines::locate;
pub use resolve::is_yaml_float;

use resolve::{key_text, scalar};
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

/// The most YAML nodes read from one file, and the deepest nesting.
const MAX_NODES: usize = 20_000_000;
const MAX_DEPTH: usize = 256;

/// The documents of a text (after [`decode_bytes`]) as JSON values, as kubectl sends them,
/// and warnings: keys given twice (kubectl keeps the last), keys kubectl renames.
pub(crate) fn read_stream(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    let reader = Reader::read(text, false)?;
    Ok((reader.docs, reader.warnings))
}

/// Documents, each with where its nodes are, and the reader's warnings.
pub(crate) type Located = (Vec<(Value, Lines)>, Vec<String>);

/// [`read_stream`], with where each document's nodes are ([`Lines`]).
pub(crate) fn read_stream_located(text: &str) -> Result<Located, String> {
    let reader = Reader::read(text, true)?;
    Ok((
        reader.docs.into_iter().zip(reader.lines).collect(),
        reader.warnings,
    ))
}

#[derive(Default)]
struct Reader {
    docs: Vec<Value>,
    warnings: Vec<String>,
    nodes: usize,
    /// Whether to note where each node is, in `lines` (one per document).
    locate: bool,
    lines: Vec<Lines>,
}

impl Reader {
    fn read(text: &str, locate: bool) -> Result<Reader, String> {
        let mut reader = Reader {
            locate,
            ..Reader::default()
        };
        let head = &text.as_bytes()[..text.len().min(4096)];
        let head = String::from_utf8_lossy(head);
        if head.trim_start().starts_with('{') {
            reader.json_stream(text)?;
        } else {
            reader.yaml_stream(text, 0)?;
        }
        Ok(reader)
    }

    /// Go's `json.Decoder` over the stream: values one after another; after a value that is
    /// not JSON, when at most one was, the rest is YAML (from the line after the last value).
    fn json_stream(&mut self, text: &str) -> Result<(), String> {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        let mut consumed = 0;
        let mut count = 0;
        loop {
            match values.next() {
                None => return Ok(()),
                Some(Ok(value)) => {
                    if self.locate {
                        // The value starts at the first character after the last one.
                        let before = &text[..consumed];
                        let gap = &text[consumed..];
                        let lead = gap.len() - gap.trim_start().len();
                        let start =
                            before.matches('\n').count() + gap[..lead].matches('\n').count() + 1;
                        self.lines.push(Lines {
                            start,
                            at: HashMap::new(),
                        });
                    }
                    self.docs.push(as_go_json(value));
                    consumed = values.byte_offset();
                    count += 1;
                }
                Some(Err(e)) => {
                    let json_error = format!("json: {e}");
                    if count > 1 {
                        return Err(json_error);
                    }
                    // The white space after the last value, up to and including a newline.
                    let mut rest = &text[consumed..];
                    for (i, c) in rest.char_indices() {
                        if !c.is_whitespace() {
                            rest = &rest[i..];
                            break;
                        }
                        if c == '\n' || i + c.len_utf8() == rest.len() {
                            rest = &rest[i + c.len_utf8()..];
                            break;
                        }
                    }
                    let line = text[..text.len() - rest.len()].matches('\n').count();
                    return self
                        .yaml_stream(rest, line)
                        .map_err(|yaml| format!("{json_error} (and as YAML: {yaml})"));
                }
            }
        }
    }

    /// apimachinery's `YAMLReader`: one document per piece between lines starting with
    /// `---`; `line` is the number of lines of the file before `text`.
    fn yaml_stream(&mut self, text: &str, line: usize) -> Result<(), String> {
        let mut piece = String::new();
        let mut piece_line = line;
        for (i, raw) in text.split_inclusive('\n').enumerate() {
            let content = match raw.strip_suffix('\n') {
                Some(l) => l.strip_suffix('\r').unwrap_or(l),
                None => raw,
            };
            if let Some(rest) = content.strip_prefix("---") {
                let rest = rest.trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    return Err(format!(
                        "line {}: invalid Yaml document separator: {rest} (kubectl takes only \
                         a comment after `---`)",
                        line + i + 1
                    ));
                }
                if !piece.is_empty() {
                    self.document(&std::mem::take(&mut piece), piece_line)?;
                    continue;
                }
            }
            if piece.is_empty() {
                piece_line = line + i;
            }
            piece.push_str(content);
            piece.push('\n');
        }
        if !piece.is_empty() {
            self.document(&piece, piece_line)?;
        }
        Ok(())
    }

    /// The first YAML document of `text` as go-yaml v2 and sigs.k8s.io/yaml make it.
    fn document(&mut self, text: &str, line: usize) -> Result<(), String> {
        let at = |l: usize| line + l;
        for (n, l) in text.lines().enumerate() {
            if let Some(c) = l.chars().find(|&c| !go_yaml_character(c)) {
                return Err(format!(
                    "line {}: control characters are not allowed (U+{:04X}; go-yaml refuses \
                     it)",
                    at(n + 1),
                    c as u32
                ));
            }
        }
        // go-yaml v2 (YAML 1.1) reads U+0085 as a line break, and a line break as `\n`.
        let mut text = if text.contains('\u{85}') {
            std::borrow::Cow::Owned(text.replace('\u{85}', "\n"))
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        let nodes = self.nodes;
        let root = loop {
            match self.parse(&text, line) {
                Ok(root) => break root,
                // go-yaml v2 takes `\'` in a double-quoted scalar (YAML 1.1 has it, 1.2 not):
                // read as the `\x27` it means.
                Err((_, Some(at))) if let Some(fixed) = quote_escape(&text, at) => {
                    self.nodes = nodes;
                    text = std::borrow::Cow::Owned(fixed);
                }
                Err((message, _)) => return Err(message),
            }
        };
        let Some(root) = root else {
            self.docs.push(Value::Null);
            if self.locate {
                self.lines.push(Lines {
                    start: line + 1,
                    at: HashMap::new(),
                });
            }
            return Ok(());
        };
        let mut decoder = Decoder {
            count: 0,
            alias_count: 0,
            alias_depth: 0,
            line,
            warnings: &mut self.warnings,
        };
        let go = decoder.decode(&root)?;
        let value = to_json(go, &mut self.warnings)?;
        self.docs.push(value);
        if self.locate {
            let mut lines = Lines {
                start: line + 1,
                at: HashMap::new(),
            };
            locate(&root, "", 0, &mut lines.at);
            self.lines.push(lines);
        }
        Ok(())
    }

    /// The node tree of the first document of `text`, aliases pointing at their anchors'
    /// nodes; `None` when the text holds no document.
    /// Errors: the message, and where a quoted scalar with an unknown escape starts.
    fn parse(
        &mut self,
        text: &str,
        line: usize,
    ) -> Result<Option<Rc<Node>>, (String, Option<usize>)> {
        use granit_parser::{Event, Options, Parser};
        let mut options = Options::default();
        options.emit_anchor_events = true;
        // go-yaml v2 reads a byte order mark inside a document as a character.
        options.bom_inside_document_as_content = true;
        options.flow_nesting_limit = MAX_DEPTH;
        options.block_nesting_limit = MAX_DEPTH;
        let mut parser = Parser::new_from_str_with_options(text, options);
        let error = |e: granit_parser::ScanError| {
            let escape = matches!(
                e.kind(),
                granit_parser::ErrorKind::UnknownQuotedScalarEscape
            );
            (
                format!("line {}: {}", line + e.marker().line(), e.info()),
                escape.then(|| e.marker().byte_offset()).flatten(),
            )
        };
        // Open collections: the node's kind, anchor id, line and column, and children so far.
        type Open = (bool, usize, (usize, usize), Vec<Rc<Node>>);
        let mut open: Vec<Open> = Vec::new();
        let mut anchors: HashMap<usize, Rc<Node>> = HashMap::new();
        let mut names: HashMap<usize, String> = HashMap::new();
        let mut root = None;
        let mut started = false;
        while let Some(event) = parser.next_event() {
            let (event, span) = event.map_err(error)?;
            let (node_line, col) = (line + span.start.line(), span.start.col() + 1);
            let node = match event {
                Event::DocumentStart(..) => {
                    if started {
                        break;
                    }
                    started = true;
                    continue;
                }
                Event::DocumentEnd => {
                    if started {
                        break;
                    }
                    continue;
                }
                Event::Anchor(id, name) => {
                    names.insert(id, name.into_owned());
                    continue;
                }
                Event::Alias(id) => {
                    let name = names.get(&id).cloned().unwrap_or_default();
                    let Some(target) = anchors.get(&id) else {
                        return Err((
                            format!("line {node_line}: anchor '{name}' value contains itself"),
                            None,
                        ));
                    };
                    Rc::new(Node::Alias {
                        target: target.clone(),
                    })
                }
                Event::Scalar(value, style, anchor, tag) => {
                    if style == granit_parser::ScalarStyle::DoubleQuoted
                        && let Some(source) = span.slice(text)
                        && slash_escape(source)
                    {
                        return Err((
                            format!(
                                "line {node_line}: found unknown escape character while parsing \
                                 a quoted scalar (`\\/`: go-yaml reads YAML 1.1, which has no \
                                 such escape)"
                            ),
                            None,
                        ));
                    }
                    let node = Rc::new(Node::Scalar {
                        value: value.into_owned(),
                        plain: style == granit_parser::ScalarStyle::Plain,
                        tag: tag.map(|t| t.to_string()),
                        line: node_line,
                        col,
                    });
                    if anchor != 0 {
                        anchors.insert(anchor, node.clone());
                    }
                    node
                }
                Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                    let map = matches!(event, Event::MappingStart(..));
                    self.count_node().map_err(|e| (e, None))?;
                    open.push((map, anchor, (node_line, col), Vec::new()));
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let (map, anchor, (line, col), children) = open
                        .pop()
                        .ok_or(("unbalanced YAML events".to_string(), None))?;
                    let node = Rc::new(if map {
                        let mut pairs = Vec::with_capacity(children.len() / 2);
                        let mut children = children.into_iter();
                        while let (Some(k), Some(v)) = (children.next(), children.next()) {
                            pairs.push((k, v));
                        }
                        Node::Map { pairs, line, col }
                    } else {
                        Node::Seq { items: children }
                    });
                    if anchor != 0 {
                        anchors.insert(anchor, node.clone());
                    }
                    node
                }
                Event::StreamEnd => break,
                _ => continue,
            };
            self.count_node().map_err(|e| (e, None))?;
            match open.last_mut() {
                Some((.., children)) => children.push(node),
                None => root = Some(node),
            }
        }
        Ok(root)
    }

    fn count_node(&mut self) -> Result<(), String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!("more than {MAX_NODES} YAML nodes"));
        }
        Ok(())
    }
}

/// The text with the first `\'` of the double-quoted scalar starting at or after byte `at`
/// written `\x27`; `None` when it has none.
fn quote_escape(text: &str, at: usize) -> Option<String> {
    let start = at + text.get(at..)?.find('"')? + 1;
    let mut chars = text[start..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                if let Some((_, '\'')) = chars.next() {
                    let i = start + i;
                    return Some(format!("{}\\x27{}", &text[..i], &text[i + 2..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a double-quoted scalar's source holds the escape `\/` (YAML 1.2 only).
fn slash_escape(source: &str) -> bool {
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.next() == Some('/') {
            return true;
        }
    }
    false
}

/// The characters go-yaml v2's reader takes.
fn go_yaml_character(c: char) -> bool {
    matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD)
        || c as u32 >= 0x10000
}

/// A YAML node as go-yaml's parser keeps it.
enum Node {
    Scalar {
        value: String,
        /// Plain, as opposed to quoted, literal or folded.
        plain: bool,
        /// The tag, in full (`tag:yaml.org,2002:int`, `!local`, `!`).
        tag: Option<String>,
        line: usize,
        /// 1-based, in characters.
        col: usize,
    },
    Seq {
        items: Vec<Rc<Node>>,
    },
    Map {
        pairs: Vec<(Rc<Node>, Rc<Node>)>,
        line: usize,
        col: usize,
    },
    Alias {
        target: Rc<Node>,
    },
}

/// A value as go-yaml v2 unmarshals it into `interface{}`.
#[derive(Debug, Clone)]
pub(super) enum Go {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Go>),
    /// Keys in the order first set; a key set again keeps its place.
    Map(Vec<(Go, Go)>),
}

/// A map key as Go compares interface values (same type and value; `-0.0` equals `0.0`; a NaN
/// equals nothing, so it has none).
#[derive(PartialEq, Eq, Hash, Clone)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
}

impl Go {
    fn key_id(&self) -> Option<KeyId> {
        Some(match self {
            Go::Null => KeyId::Null,
            Go::Bool(b) => KeyId::Bool(*b),
            Go::Int(i) => KeyId::Int(*i),
            Go::Uint(u) => KeyId::Uint(*u),
            Go::Float(f) if f.is_nan() => return None,
            Go::Float(f) => KeyId::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
            Go::Str(s) => KeyId::Str(s.clone()),
            Go::Seq(_) | Go::Map(_) => return None,
        })
    }
}

/// A Go map being decoded: its entries in the order first set, and where each key is.
#[derive(Default)]
struct GoMap {
    entries: Vec<(Go, Go)>,
    index: HashMap<KeyId, usize>,
}

impl GoMap {
    fn set(&mut self, key: Go, value: Go) {
        match key.key_id() {
            Some(id) => match self.index.get(&id) {
                Some(&i) => self.entries[i].1 = value,
                None => {
                    self.index.insert(id, self.entries.len());
                    self.entries.push((key, value));
                }
            },
            None => self.entries.push((key, value)),
        }
    }
}

struct Decoder<'w> {
    /// go-yaml's count of nodes decoded, and of those decoded through an alias.
    count: usize,
    alias_count: usize,
    alias_depth: usize,
    line: usize,
    warnings: &'w mut Vec<String>,
}

impl Decoder<'_> {
    /// One node, counted as go-yaml counts them to refuse excessive aliasing.
    fn decode(&mut self, node: &Node) -> Result<Go, String> {
        self.count_one()?;
        match node {
            Node::Alias { target, .. } => {
                self.alias_depth += 1;
                let value = self.decode(target);
                self.alias_depth -= 1;
                value
            }
            Node::Scalar {
                value,
                plain,
                tag,
                line,
                ..
            } => scalar(value, *plain, tag.as_deref()).map_err(|e| format!("line {line}: {e}")),
            Node::Seq { items } => items
                .iter()
                .map(|n| self.decode(n))
                .collect::<Result<_, _>>()
                .map(Go::Seq),
            Node::Map { pairs, line, .. } => {
                let mut map = GoMap::default();
                self.mapping(pairs, *line, &mut map)?;
                Ok(Go::Map(map.entries))
            }
        }
    }

    fn count_one(&mut self) -> Result<(), String> {
        self.count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        let ratio = match self.count {
            0..=400_000 => 0.99,
            4_000_000.. => 0.10,
            n => 0.99 - 0.89 * ((n - 400_000) as f64 / 3_600_000.0),
        };
        if self.alias_count > 100
            && self.count > 1000
            && self.alias_count as f64 / self.count as f64 > ratio
        {
            return Err(format!(
                "line {}: document contains excessive aliasing (go-yaml refuses it)",
                self.line + 1
            ));
        }
        Ok(())
    }

    /// A mapping's pairs set into `map` in order: a merge key sets the merged mappings'
    /// keys over those before it, a key given again replaces its value.
    fn mapping(
        &mut self,
        pairs: &[(Rc<Node>, Rc<Node>)],
        line: usize,
        map: &mut GoMap,
    ) -> Result<(), String> {
        let mut given = std::collections::HashSet::new();
        for (key_node, value_node) in pairs {
            if is_merge(key_node) {
                self.merge(value_node, line, map)?;
                continue;
            }
            let key = self.decode(key_node)?;
            if matches!(key, Go::Seq(_) | Go::Map(_)) {
                return Err(format!(
                    "line {}: invalid map key: a {} (kubectl takes only scalar keys)",
                    node_line(key_node).unwrap_or(line),
                    if matches!(key, Go::Seq(_)) {
                        "sequence"
                    } else {
                        "mapping"
                    }
                ));
            }
            let value = self.decode(value_node)?;
            self.key_warnings(key_node, &key);
            let id = key.key_id();
            if id.as_ref().is_some_and(|id| given.contains(id)) {
                let warning = format!(
                    "line {}: duplicate mapping key: {}: kubectl keeps the last value of a key \
                     given twice",
                    node_line(key_node).unwrap_or(line),
                    key_text(&key).unwrap_or_else(|| "null".into())
                );
                if !self.warnings.contains(&warning) {
                    self.warnings.push(warning);
                }
            } else if let Some(id) = id {
                given.insert(id);
            }
            map.set(key, value);
        }
        Ok(())
    }

    /// A merge key's value: a mapping, an alias of one, or a sequence of those, the first of
    /// which wins (set last).
    fn merge(&mut self, node: &Node, line: usize, map: &mut GoMap) -> Result<(), String> {
        let want_map =
            || format!("line {line}: map merge requires map or sequence of maps as the value");
        let mapping = |n: &Node| match n {
            Node::Map { .. } => true,
            Node::Alias { target, .. } => matches!(**target, Node::Map { .. }),
            _ => false,
        };
        match node {
            Node::Map { .. } | Node::Alias { .. } if mapping(node) => self.merge_one(node, map),
            Node::Seq { items } => {
                for item in items.iter().rev() {
                    if !mapping(item) {
                        return Err(want_map());
                    }
                    self.merge_one(item, map)?;
                }
                Ok(())
            }
            _ => Err(want_map()),
        }
    }

    fn merge_one(&mut self, node: &Node, map: &mut GoMap) -> Result<(), String> {
        self.count_one()?;
        match node {
            Node::Alias { target, .. } => {
                self.alias_depth += 1;
                let result = self.merge_one(target, map);
                self.alias_depth -= 1;
                result
            }
            Node::Map { pairs, line, .. } => self.mapping(pairs, *line, map),
            _ => Ok(()),
        }
    }

    /// A plain key that kubectl sends under another name (`y` as `true`, `0x10` as `16`).
    fn key_warnings(&mut self, node: &Node, key: &Go) {
        let Node::Scalar {
            value, line, tag, ..
        } = node
        else {
            return;
        };
        let (kind, Some(sent)) = (
            match key {
                Go::Bool(_) => "the boolean",
                Go::Int(_) | Go::Uint(_) | Go::Float(_) => "the number",
                _ => return,
            },
            key_text(key),
        ) else {
            return;
        };
        if tag.is_none() && *value != sent {
            let warning = format!(
                "line {line}: kubectl reads the key `{value}` as {kind} {sent} (YAML 1.1) and \
                 sends the property `{sent}`; quote it (\"{value}\") to keep the name"
            );
            if !self.warnings.contains(&warning) {
                self.warnings.push(warning);
            }
        }
    }
}

fn node_line(node: &Node) -> Option<usize> {
    match node {
        Node::Scalar { line, .. } | Node::Map { line, .. } => Some(*line),
        Node::Alias { target, .. } => node_line(target),
        Node::Seq { .. } => None,
    }
}

fn is_merge(node: &Node) -> bool {
    match node {
        Node::Scalar {
            value, plain, tag, ..
        } => {
            value == "<<"
                && match tag.as_deref() {
                    None => *plain,
                    Some(tag) => tag == "!" || tag == "tag:yaml.org,2002:merge",
                }
        }
        _ => false,
    }
}

/// sigs.k8s.io/yaml's conversion and Go's JSON encoder: keys become text, NaN and
/// infinities are refused, and a whole float reads back as the integer Go writes.
fn to_json(go: Go, warnings: &mut Vec<String>) -> Result<Value, String> {
    Ok(match go {
        Go::Null => Value::Null,
        Go::Bool(b) => Value::Bool(b),
        Go::Int(i) => Value::from(i),
        Go::Uint(u) => as_go_json(Value::from(u)),
        Go::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => as_go_json(Value::Number(n)),
            None => {
                let name = if f.is_nan() {
                    "NaN"
                } else if f > 0.0 {
                    "+Inf"
                } else {
                    "-Inf"
                };
                return Err(format!(
                    "json: unsupported value: {name} (kubectl cannot send a NaN or infinite \
                     number)"
                ));
            }
        },
        Go::Str(s) => Value::String(s),
        Go::Seq(items) => Value::Array(
            items
                .into_iter()
                .map(|v| to_json(v, warnings))
                .collect::<Result<_, _>>()?,
        ),
        Go::Map(pairs) => {
            let mut map = serde_json::Map::new();
            for (key, value) in pairs {
                let Some(text) = key_text(&key) else {
                    let kind = match key {
                        Go::Null => "<nil>".to_string(),
                        Go::Uint(u) => format!("uint64, key: {u}"),
                        _ => "a collection".to_string(),
                    };
                    return Err(format!(
                        "unsupported map key of type: {kind} (kubectl cannot convert it to JSON)"
                    ));
                };
                let value = to_json(value, warnings)?;
                if map.insert(text.clone(), value).is_some() {
                    warnings.push(format!(
                        "the key `{text}` is given twice in one mapping as different YAML types \
                         (a string and a number or boolean): which value kubectl sends varies \
                         from run to run; this reader keeps the last"
                    ));
                }
            }
            Value::Object(map)
        }
    })
}

/// A value as kubectl sends it: its unstructured decoding keeps a number as an int64 when it
/// is one and a float64 otherwise (an integer above i64 too), which Go's encoding/json writes,
/// read back: a float without a fraction below 1e21 is written in full without a decimal point
/// (its shortest digits, then zeros: `-9223372036854776000`), which reads back as an integer
/// where one holds it.
pub(crate) fn as_go_json(value: Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() || n.as_i64().is_none() => {
            let f = n.as_f64().unwrap_or_default();
            // Go writes -0 for a negative zero, which reads back as the integer 0.
            if f.fract() == 0.0 && f.abs() < 1e21 {
                let shortest = format!("{:e}", f.abs());
                let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
                let digits = mantissa.replace('.', "");
                // Whole, so the exponent covers every digit after the point.
                let exponent: usize = exponent.parse().unwrap_or(0);
                let zeros = (exponent + 1).saturating_sub(digits.len());
                let sign = if f < 0.0 { "-" } else { "" };
                let text = format!("{sign}{digits}{}", "0".repeat(zeros));
                if let Ok(number) = serde_json::from_str::<Value>(&text) {
                    return number;
                }
            }
            Value::Number(n)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(as_go_json).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, as_go_json(v))).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests;
