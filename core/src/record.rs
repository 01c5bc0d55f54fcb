//! The registry's record of one `#[rbac]`: the validated attribute as one string, written by the
//! macro and read back by the registry (`kube_markers::registry::rbac_entries`).
//!
//! Why one string: a registry `static` per attribute is compiled in the user's crate, and what
//! rustc spends on it grows with its shape. A string and the call site (`file!()`, `line!()`,
//! ...) is the cheapest shape measured (BENCHMARKS.md, "Compile-time cost"), far cheaper than
//! a struct of slices of strings built by nested `const fn` calls; decoding is done once per
//! process.
//!
//! The format is lists of strings, each list as its length and each string as its byte length,
//! then `:` and its bytes (`2:4:apps0:` is `["apps", ""]`), so any text round-trips, `;` and
//! `:` included. [`RbacRecordData`] fixes the order of the lists: add a field there, in both
//! [`RbacRecordData::encode`] and [`RbacRecordData::decode`].

use crate::model::{Allow, RbacMarker};

/// Writes lists of strings in the record format.
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
}

impl Writer {
    /// Appends one list.
    pub fn list<S: AsRef<str>>(&mut self, items: impl ExactSizeIterator<Item = S>) -> &mut Self {
        self.number(items.len());
        for item in items {
            let item = item.as_ref();
            self.number(item.len());
            self.out.push_str(item);
        }
        self
    }

    fn number(&mut self, n: usize) {
        self.out.push_str(&n.to_string());
        self.out.push(':');
    }

    /// The record.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Reads lists of strings in the record format; `None` for anything else.
#[derive(Debug)]
pub struct Reader<'a> {
    rest: &'a str,
}

impl<'a> Reader<'a> {
    /// Reads `data`.
    pub fn new(data: &'a str) -> Self {
        Reader { rest: data }
    }

    /// The next list.
    pub fn list(&mut self) -> Option<Vec<&'a str>> {
        let len = self.number()?;
        let mut items = Vec::with_capacity(len);
        for _ in 0..len {
            let n = self.number()?;
            let item = self.rest.get(..n)?;
            self.rest = &self.rest[n..];
            items.push(item);
        }
        Some(items)
    }

    /// The next list, which holds at most one string.
    pub fn optional(&mut self) -> Option<Option<&'a str>> {
        match self.list()?.as_slice() {
            [] => Some(None),
            [one] => Some(Some(one)),
            _ => None,
        }
    }

    /// The next list, which holds exactly one string.
    pub fn one(&mut self) -> Option<&'a str> {
        self.optional()?
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    fn number(&mut self) -> Option<usize> {
        let (digits, rest) = self.rest.split_once(':')?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        self.rest = rest;
        digits.parse().ok()
    }
}

/// The fields of an `#[rbac]` record, borrowed from the record's string when read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RbacRecordData<'a> {
    /// `groups`, as written.
    pub groups: Vec<&'a str>,
    /// `resources`.
    pub resources: Vec<&'a str>,
    /// `resource_names`.
    pub resource_names: Vec<&'a str>,
    /// `verbs`.
    pub verbs: Vec<&'a str>,
    /// `urls`.
    pub urls: Vec<&'a str>,
    /// `namespace`.
    pub namespace: Option<&'a str>,
    /// `role_name`.
    pub role_name: Option<&'a str>,
    /// `allow(...)`: (lint, reason).
    pub allow: Vec<(&'a str, &'a str)>,
    /// The annotated item's name.
    pub item: &'a str,
    /// The arguments as the macro received them, tokens joined by one space
    /// (`scan::normalized_tokens`): the cross-check's "same attribute" test.
    pub args: &'a str,
}

impl<'a> RbacRecordData<'a> {
    /// The fields of a validated attribute on the item `item`.
    pub fn new(marker: &'a RbacMarker, item: &'a str, args: &'a str) -> Self {
        let strs = |v: &'a [String]| v.iter().map(String::as_str).collect();
        RbacRecordData {
            groups: strs(&marker.groups),
            resources: strs(&marker.resources),
            resource_names: strs(&marker.resource_names),
            verbs: strs(&marker.verbs),
            urls: strs(&marker.urls),
            namespace: marker.namespace.as_deref(),
            role_name: marker.role_name.as_deref(),
            allow: marker
                .allow
                .iter()
                .map(|Allow { lint, reason }| (lint.as_str(), reason.as_str()))
                .collect(),
            item,
            args,
        }
    }

    /// The record's string.
    pub fn encode(&self) -> String {
        let mut w = Writer::default();
        w.list(self.groups.iter())
            .list(self.resources.iter())
            .list(self.resource_names.iter())
            .list(self.verbs.iter())
            .list(self.urls.iter())
            .list(self.namespace.iter())
            .list(self.role_name.iter())
            .list(self.allow.iter().map(|(lint, _)| lint))
            .list(self.allow.iter().map(|(_, reason)| reason))
            .list(std::iter::once(self.item))
            .list(std::iter::once(self.args));
        w.finish()
    }

    /// Reads a record's string; `None` if it is not one [`RbacRecordData::encode`] wrote.
    pub fn decode(data: &'a str) -> Option<Self> {
        let mut r = Reader::new(data);
        let groups = r.list()?;
        let resources = r.list()?;
        let resource_names = r.list()?;
        let verbs = r.list()?;
        let urls = r.list()?;
        let namespace = r.optional()?;
        let role_name = r.optional()?;
        let lints = r.list()?;
        let reasons = r.list()?;
        let item = r.one()?;
        let args = r.one()?;
        if lints.len() != reasons.len() || !r.is_empty() {
            return None;
        }
        Some(RbacRecordData {
            groups,
            resources,
            resource_names,
            verbs,
            urls,
            namespace,
            role_name,
            allow: lints.into_iter().zip(reasons).collect(),
            item,
            args,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_text_round_trips() {
        let marker = RbacMarker {
            groups: vec!["".into(), "apps".into(), "ünïcode.example.com".into()],
            resources: vec!["pods/status".into()],
            resource_names: vec![],
            verbs: vec!["get".into(), "list".into()],
            urls: vec![],
            namespace: Some("tenant".into()),
            role_name: None,
            allow: vec![Allow {
                lint: "cluster-secrets-read".into(),
                reason: "12:3:a;b\0 \"quoted\" 0:".into(),
            }],
        };
        let data =
            RbacRecordData::new(&marker, "impl Reconcile<T> for Foo", "verbs = \"get;list\"");
        let encoded = data.encode();
        assert_eq!(RbacRecordData::decode(&encoded), Some(data));
    }

    #[test]
    fn the_format_is_lengths_and_bytes() {
        let marker = RbacMarker {
            groups: vec!["apps".into(), "".into()],
            verbs: vec!["get".into()],
            ..RbacMarker::default()
        };
        assert_eq!(
            RbacRecordData::new(&marker, "f", "verbs = \"get\"").encode(),
            "2:4:apps0:0:0:1:3:get0:0:0:0:0:1:1:f1:13:verbs = \"get\""
        );
    }

    #[test]
    fn anything_else_is_refused() {
        let marker = RbacMarker {
            verbs: vec!["get".into()],
            ..RbacMarker::default()
        };
        let good = RbacRecordData::new(&marker, "f", "").encode();
        for bad in [
            "",
            "x",
            &good[..good.len() - 1],
            &format!("{good}1:"),
            "0:0:0:0:0:2:1:a1:b0:0:0:1:1:f",
            "0:0:0:0:0:0:0:1:1:a0:1:1:f",
            "9999:",
            "0:0:0:0:0:0:0:0:0:0:",
            // A record of the format before the arguments' text was kept.
            "0:0:0:1:3:get0:0:0:0:0:1:1:f",
        ] {
            assert_eq!(RbacRecordData::decode(bad), None, "{bad:?}");
        }
    }
}
