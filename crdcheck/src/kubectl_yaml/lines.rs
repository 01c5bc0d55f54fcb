//! Where each node of a document is: the line and column of each mapping key (and sequence
//! item), by the JSON pointer of its value, for findings that name their line.

use super::resolve::{key_text, scalar};
use super::{MAX_DEPTH, Node, is_merge};
use std::collections::HashMap;

/// Where one document's nodes are in its file: 1-based lines and columns.
#[derive(Debug, Default, Clone)]
pub(crate) struct Lines {
    /// The document's first line.
    pub start: usize,
    /// The line and column of each mapping key (of its value, for a sequence's item), by the
    /// JSON pointer of its value (`/spec/versions/0/name`). Empty for a JSON document.
    pub at: HashMap<String, (usize, usize)>,
}

impl Lines {
    /// The line of the node at `pointer`, or of the nearest node above it that has one, or the
    /// document's first line.
    pub fn of(&self, pointer: &str) -> usize {
        self.place(pointer).0
    }

    /// [`Lines::of`], with the column of the key (or item) found; none for the document's
    /// first line.
    pub fn place(&self, pointer: &str) -> (usize, Option<usize>) {
        let mut pointer = pointer;
        loop {
            if let Some((line, col)) = self.at.get(pointer) {
                return (*line, Some(*col));
            }
            match pointer.rfind('/') {
                Some(i) => pointer = &pointer[..i],
                None => return (self.start, None),
            }
        }
    }
}

/// Where `node` starts: its line and column; none for a sequence (its items have their own).
fn node_place(node: &Node) -> Option<(usize, usize)> {
    match node {
        Node::Scalar { line, col, .. } | Node::Map { line, col, .. } => Some((*line, *col)),
        Node::Alias { target, .. } => node_place(target),
        Node::Seq { .. } => None,
    }
}

/// Notes the line of each key under `node` (at `pointer`) in `at`. Aliases are not followed
/// (what is under one is placed at the alias), and a merged mapping's keys count only where
/// the mapping itself sets none of them.
pub(super) fn locate(
    node: &Node,
    pointer: &str,
    depth: usize,
    at: &mut HashMap<String, (usize, usize)>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match node {
        Node::Map { pairs, line, col } => {
            for (key_node, value_node) in pairs {
                if is_merge(key_node) {
                    let maps: Vec<&Node> = match &**value_node {
                        Node::Seq { items } => items.iter().map(|n| &**n).collect(),
                        other => vec![other],
                    };
                    for map in maps {
                        let mut merged = HashMap::new();
                        locate(map, pointer, depth + 1, &mut merged);
                        for (k, v) in merged {
                            at.entry(k).or_insert(v);
                        }
                    }
                    continue;
                }
                let Node::Scalar {
                    value, plain, tag, ..
                } = &**key_node
                else {
                    continue;
                };
                let Some(key) = scalar(value, *plain, tag.as_deref())
                    .ok()
                    .and_then(|k| key_text(&k))
                else {
                    continue;
                };
                let child = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                at.insert(child.clone(), node_place(key_node).unwrap_or((*line, *col)));
                locate(value_node, &child, depth + 1, at);
            }
        }
        Node::Seq { items } => {
            for (i, item) in items.iter().enumerate() {
                let child = format!("{pointer}/{i}");
                if let Some(place) = node_place(item) {
                    at.insert(child.clone(), place);
                }
                locate(item, &child, depth + 1, at);
            }
        }
        Node::Scalar { .. } | Node::Alias { .. } => {}
    }
}
