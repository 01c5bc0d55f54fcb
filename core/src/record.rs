//! The registry's record of one attribute: the validated attribute as one string, written by
//! the macro and read back by the registry (`kube_markers::registry::rbac_entries` and its
//! siblings) as the [`Attribute`] it stands for.
//!
//! Why one string: a registry `static` per attribute is compiled in the user's crate, and what
//! rustc spends on it grows with its shape. A string and the call site (`file!()`, `line!()`,
//! ...) is the cheapest shape measured (BENCHMARKS.md, "Compile-time cost"), far cheaper than
//! a struct of slices of strings built by nested `const fn` calls; decoding is done once per
//! process.
//!
//! The format is lists of strings, each list as its length and each string as its byte length,
//! then `:` and its bytes (`2:4:apps0:` is `["apps", ""]`), so any text round-trips, `;` and
//! `:` included. [`RbacRecordData`] fixes the order of the lists of an `#[rbac]`: add a field
//! there, in both [`RbacRecordData::encode`] and [`RbacRecordData::decode`];
//! [`encode_webhook`] and [`decode_webhook`] (and their `_configuration` siblings) do the
//! same for the webhook attributes.

use crate::model::{
    Allow, Attribute, RbacMarker, Source, Text, WebhookClient, WebhookConfigurationMarker,
    WebhookMarker,
};
use std::borrow::Cow;

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
        let strs = |v: &'a [crate::model::Text]| v.iter().map(|s| s.as_ref()).collect();
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
                .map(|Allow { lint, reason }| (lint.as_ref(), reason.as_ref()))
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

impl RbacRecordData<'static> {
    /// The attribute this record of the registry stands for, at the place the expansion
    /// recorded (`file!()`, `line!()`, `column!()`, `module_path!()`); its strings are the
    /// record's own, borrowed.
    pub fn into_attribute(
        self,
        file: &'static str,
        line: u32,
        column: u32,
        module_path: &'static str,
    ) -> Attribute<RbacMarker> {
        let list = |v: Vec<&'static str>| v.into_iter().map(Cow::Borrowed).collect();
        let marker = RbacMarker {
            groups: list(self.groups),
            resources: list(self.resources),
            resource_names: list(self.resource_names),
            verbs: list(self.verbs),
            urls: list(self.urls),
            namespace: self.namespace.map(Cow::Borrowed),
            role_name: self.role_name.map(Cow::Borrowed),
            allow: self
                .allow
                .into_iter()
                .map(|(lint, reason)| Allow {
                    lint: Cow::Borrowed(lint),
                    reason: Cow::Borrowed(reason),
                })
                .collect(),
        };
        Attribute {
            marker,
            source: Source::__new(file, line, column, module_path, self.item),
            args: Cow::Borrowed(self.args),
        }
    }
}

/// The record's string of a validated `#[webhook]` on the item `item`, its arguments written
/// `args`.
pub fn encode_webhook(m: &WebhookMarker, item: &str, args: &str) -> String {
    let flag = |b: bool| if b { "true" } else { "false" };
    let number = |n: Option<i32>| n.map(|n| n.to_string());
    let (path, url, service_name, service_namespace, service_port) = match &m.client {
        WebhookClient::Service {
            name,
            namespace,
            port,
            path,
        } => (Some(path), None, name.as_ref(), namespace.as_ref(), *port),
        WebhookClient::Url(url) => (None, Some(url), None, None, None),
    };
    let mut w = Writer::default();
    w.list(std::iter::once(m.name.as_ref()))
        .list(std::iter::once(flag(m.mutating)))
        .list(std::iter::once(m.failure_policy.as_ref()))
        .list(m.match_policy.iter())
        .list(m.side_effects.iter())
        .list(number(m.timeout_seconds).iter())
        .list(m.groups.iter())
        .list(m.resources.iter())
        .list(m.verbs.iter())
        .list(m.versions.iter())
        .list(path.into_iter())
        .list(url.into_iter())
        .list(service_name.into_iter())
        .list(service_namespace.into_iter())
        .list(number(service_port).iter())
        .list(m.admission_review_versions.iter())
        .list(m.reinvocation_policy.iter())
        .list(m.patch.iter())
        .list(std::iter::once(item))
        .list(std::iter::once(args));
    w.finish()
}

/// Reads a record [`encode_webhook`] wrote: the marker, the item's name and the arguments'
/// text, borrowed from `data`; `None` for anything else.
pub fn decode_webhook(data: &'static str) -> Option<(WebhookMarker, &'static str, &'static str)> {
    let mut r = Reader::new(data);
    let text = |s: &'static str| Text::Borrowed(s);
    let list = |v: Vec<&'static str>| v.into_iter().map(Text::Borrowed).collect::<Vec<_>>();
    let number = |s: Option<&str>| -> Option<Option<i32>> {
        match s {
            None => Some(None),
            Some(s) => s.parse().ok().map(Some),
        }
    };
    let name = r.one()?;
    let mutating = match r.one()? {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    let failure_policy = r.one()?;
    let match_policy = r.optional()?;
    let side_effects = r.optional()?;
    let timeout_seconds = number(r.optional()?)?;
    let groups = r.list()?;
    let resources = r.list()?;
    let verbs = r.list()?;
    let versions = r.list()?;
    let path = r.optional()?;
    let url = r.optional()?;
    let service_name = r.optional()?;
    let service_namespace = r.optional()?;
    let service_port = number(r.optional()?)?;
    let admission_review_versions = r.list()?;
    let reinvocation_policy = r.optional()?;
    let patch = r.optional()?;
    let item = r.one()?;
    let args = r.one()?;
    if !r.is_empty() {
        return None;
    }
    let client = match (path, url) {
        (Some(path), None) => WebhookClient::Service {
            name: service_name.map(text),
            namespace: service_namespace.map(text),
            port: service_port,
            path: text(path),
        },
        (None, Some(url)) if service_name.is_none() && service_namespace.is_none() => {
            WebhookClient::Url(text(url))
        }
        _ => return None,
    };
    let marker = WebhookMarker {
        name: text(name),
        mutating,
        failure_policy: text(failure_policy),
        match_policy: match_policy.map(text),
        side_effects: side_effects.map(text),
        timeout_seconds,
        groups: list(groups),
        resources: list(resources),
        verbs: list(verbs),
        versions: list(versions),
        client,
        admission_review_versions: list(admission_review_versions),
        reinvocation_policy: reinvocation_policy.map(text),
        patch: patch.map(text),
    };
    Some((marker, item, args))
}

/// The record's string of a validated `#[webhook_configuration]` on the item `item`.
pub fn encode_webhook_configuration(
    m: &WebhookConfigurationMarker,
    item: &str,
    args: &str,
) -> String {
    let mut w = Writer::default();
    w.list(std::iter::once(if m.mutating { "true" } else { "false" }))
        .list(m.name.iter())
        .list(std::iter::once(item))
        .list(std::iter::once(args));
    w.finish()
}

/// Reads a record [`encode_webhook_configuration`] wrote; `None` for anything else.
pub fn decode_webhook_configuration(
    data: &'static str,
) -> Option<(WebhookConfigurationMarker, &'static str, &'static str)> {
    let mut r = Reader::new(data);
    let mutating = match r.one()? {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    let name = r.optional()?;
    let item = r.one()?;
    let args = r.one()?;
    if !r.is_empty() {
        return None;
    }
    let marker = WebhookConfigurationMarker {
        mutating,
        name: name.map(Text::Borrowed),
    };
    Some((marker, item, args))
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

    #[test]
    fn webhook_records_round_trip() {
        let service = WebhookMarker {
            name: "v.example.com".into(),
            mutating: false,
            failure_policy: "Fail".into(),
            match_policy: Some("Exact".into()),
            side_effects: None,
            timeout_seconds: Some(10),
            groups: vec!["".into(), "apps".into()],
            resources: vec!["deployments".into()],
            verbs: vec!["CREATE".into()],
            versions: vec!["v1".into()],
            client: WebhookClient::Service {
                name: None,
                namespace: Some("ns:1;".into()),
                port: Some(8443),
                path: "/validate".into(),
            },
            admission_review_versions: vec!["v1".into()],
            reinvocation_policy: None,
            patch: Some("{\"x\": 1}".into()),
        };
        let url = WebhookMarker {
            client: WebhookClient::Url("https://h:1/p".into()),
            mutating: true,
            timeout_seconds: None,
            ..service.clone()
        };
        for marker in [service, url] {
            let data: &'static str = Box::leak(encode_webhook(&marker, "f", "a = 1").into());
            assert_eq!(decode_webhook(data), Some((marker, "f", "a = 1")));
        }
        let configuration = WebhookConfigurationMarker {
            mutating: true,
            name: Some("n".into()),
        };
        let data: &'static str =
            Box::leak(encode_webhook_configuration(&configuration, "C", "").into());
        assert_eq!(
            decode_webhook_configuration(data),
            Some((configuration, "C", ""))
        );
        for bad in ["", "1:1:x", "1:4:true1:0:"] {
            assert_eq!(decode_webhook(bad), None, "{bad:?}");
            assert_eq!(decode_webhook_configuration(bad), None, "{bad:?}");
        }
    }
}
