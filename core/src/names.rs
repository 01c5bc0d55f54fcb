//! Names: Kubernetes' rules for the names of RBAC objects (here), and the JSON names of the
//! fields of CRD types ([`fields`]).
//!
//! Each check returns `Err(reason)` with a sentence that completes "… is not valid: ".

pub mod fields;

/// Verbs the API server itself checks on resources (RequestInfo verbs and the special
/// verbs of RBAC, PodSecurityPolicy, CSRs and ValidatingAdmissionPolicy bindings).
pub const RESOURCE_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "escalate",
    "bind",
    "impersonate",
    "use",
    "approve",
    "sign",
    "attest",
];

/// Verbs of non-resource requests: the request's HTTP method, lowercased.
pub const URL_VERBS: &[&str] = &[
    "get", "head", "post", "put", "patch", "delete", "options", "connect", "trace",
];

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;

fn is_label_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

/// A DNS-1035 label, as Kubernetes names Services: a DNS-1123 label that starts with a
/// letter.
pub fn dns1035_label(s: &str) -> Result<(), String> {
    dns1123_label(s)?;
    if !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err("it must start with a letter".into());
    }
    Ok(())
}

/// RFC 1123 label: lowercase alphanumerics and `-`, starting and ending alphanumeric, ≤ 63.
pub fn dns1123_label(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("it is empty".into());
    }
    if s.len() > DNS1123_LABEL_MAX {
        return Err(format!(
            "it is {} characters long, more than {DNS1123_LABEL_MAX}",
            s.len()
        ));
    }
    if let Some(c) = s.chars().find(|c| !is_label_char(*c)) {
        let hint = if c.is_ascii_uppercase() {
            " (names are lowercase)"
        } else {
            ""
        };
        return Err(format!(
            "it contains `{c}`; only lowercase letters, digits and `-` are allowed{hint}"
        ));
    }
    if s.starts_with('-') || s.ends_with('-') {
        return Err("it must start and end with a letter or digit".into());
    }
    Ok(())
}

/// RFC 1123 subdomain: dot-separated labels, ≤ 253 characters in all.
pub fn dns1123_subdomain(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("it is empty".into());
    }
    if s.len() > DNS1123_SUBDOMAIN_MAX {
        return Err(format!(
            "it is {} characters long, more than {DNS1123_SUBDOMAIN_MAX}",
            s.len()
        ));
    }
    for label in s.split('.') {
        if label.is_empty() {
            return Err("it has an empty part between dots".into());
        }
        dns1123_label(label)?;
    }
    Ok(())
}

/// A CRD's `spec.group`: a DNS-1123 subdomain with at least one dot (the API server's
/// `ValidateCustomResourceDefinitionSpec`; a group without one would be a built-in group's).
pub fn crd_group(s: &str) -> Result<(), String> {
    dns1123_subdomain(s)?;
    if s.contains('.') {
        Ok(())
    } else {
        Err("it has no dot".into())
    }
}

/// A CRD's `spec.names.plural`: a DNS-1035 label (the API server's
/// `ValidateCustomResourceDefinitionNames`).
pub fn crd_plural(s: &str) -> Result<(), String> {
    dns1035_label(s)
}

/// Whether a webhook's `name` has the three dot-separated segments (at least) that the API
/// server requires of it (`vmydatabase.example.com`).
pub fn webhook_name_has_three_segments(s: &str) -> bool {
    s.split('.').count() >= 3
}

/// An API group as a rule names it: `""` or `core` (the core group), `*`, or a DNS subdomain.
pub fn api_group(s: &str) -> Result<(), String> {
    match s {
        "" | "core" | "*" => Ok(()),
        _ => dns1123_subdomain(s),
    }
}

/// A resource as a rule names it: `*`, `plural`, `plural/subresource` or `*/subresource`.
///
/// RBAC has no other globbing: `pods/*` would only match a subresource literally named `*`.
pub fn resource(s: &str) -> Result<(), String> {
    if s == "*" {
        return Ok(());
    }
    let mut parts = s.split('/');
    let plural = parts.next().unwrap_or_default();
    let sub = parts.next();
    if parts.next().is_some() {
        return Err("it has more than one `/`; write `resource` or `resource/subresource`".into());
    }
    if sub == Some("*") {
        return Err(format!(
            "`{plural}/*` is not a wildcard: RBAC matches it literally and it never grants \
             anything; list the subresources (e.g. `{plural}/status`) or use `*/subresource`"
        ));
    }
    resource_segment(plural, "resource")?;
    if let Some(sub) = sub {
        if sub.is_empty() {
            return Err("the subresource after `/` is empty".into());
        }
        resource_segment(sub, "subresource")?;
    }
    Ok(())
}

fn resource_segment(s: &str, what: &str) -> Result<(), String> {
    if s == "*" {
        return if what == "resource" {
            Ok(())
        } else {
            Err("a `*` subresource is not a wildcard".into())
        };
    }
    if s.is_empty() {
        return Err(format!("the {what} name is empty"));
    }
    if s.contains('*') {
        return Err(format!(
            "`*` only stands alone (`*` or `*/subresource`), not inside a {what} name"
        ));
    }
    let ok = s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
    if !ok || s.starts_with(['-', '.']) || s.ends_with(['-', '.']) {
        return Err(format!(
            "the {what} name `{s}` must be lowercase letters, digits, `-` and `.`"
        ));
    }
    Ok(())
}

/// An object name in `resourceNames`: what the API server accepts as one path segment.
///
/// `signers` (certificates.k8s.io) is the exception: its names are signer names such as
/// `example.com/my-signer` or `example.com/*`, checked by the API server itself rather than
/// taken from a URL, so `/` is allowed there (`signer_names`).
pub fn resource_name(s: &str, signer_names: bool) -> Result<(), String> {
    match s {
        "" => Err("it is empty".into()),
        "." | ".." => Err("`.` and `..` are not object names".into()),
        _ if signer_names => Ok(()),
        _ if s.contains(['/', '%']) => Err(
            "object names cannot contain `/` or `%`, so the API server never sees such a name \
             (signer names like `example.com/signer` are only valid for the `signers` resource)"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// A non-resource URL: an absolute path, `*`, or a path ending in `*` (a prefix match).
pub fn non_resource_url(s: &str) -> Result<(), String> {
    if s == "*" {
        return Ok(());
    }
    if !s.starts_with('/') {
        return Err("non-resource URLs are absolute paths starting with `/` (or `*`)".into());
    }
    let stem = s.trim_end_matches('*');
    if stem.contains('*') {
        return Err(
            "`*` only works at the end of a URL (a prefix match); elsewhere it is literal".into(),
        );
    }
    if let Some(c) = s
        .chars()
        .find(|c| c.is_whitespace() || *c == '?' || *c == '#')
    {
        return Err(format!(
            "it contains {c:?}; RBAC matches the bare path, without query or fragment"
        ));
    }
    Ok(())
}

/// A verb that is not one of the built-in ones but could name a custom verb of an aggregated
/// API: lowercase, no spaces.
pub fn custom_verb(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("it is empty".into());
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | ':' | '_')))
    {
        return Err(format!("it contains {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_subdomains() {
        assert!(dns1123_label("my-ns").is_ok());
        assert!(dns1123_label("a").is_ok());
        assert!(dns1123_label("-a").is_err());
        assert!(dns1123_label("a-").is_err());
        assert!(dns1123_label("My").unwrap_err().contains("lowercase"));
        assert!(dns1123_label(&"a".repeat(63)).is_ok());
        assert!(dns1123_label(&"a".repeat(64)).is_err());
        assert!(dns1123_subdomain("batch.io").is_ok());
        assert!(dns1123_subdomain("a..b").is_err());
        assert!(dns1123_subdomain("a_b").is_err());
        let long = format!("{}.{}", "a".repeat(63), "b".repeat(190));
        assert!(dns1123_subdomain(&long).is_err());
    }

    #[test]
    fn groups() {
        for ok in ["", "core", "*", "apps", "rbac.authorization.k8s.io"] {
            assert!(api_group(ok).is_ok(), "{ok}");
        }
        for bad in ["Apps", "apps/v1", " apps", "apps."] {
            assert!(api_group(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resources() {
        for ok in [
            "*",
            "pods",
            "pods/status",
            "*/scale",
            "serviceaccounts/token",
            "a.b-c",
        ] {
            assert!(resource(ok).is_ok(), "{ok}");
        }
        for bad in [
            "pods/*",
            "Pods",
            "pods/",
            "/pods",
            "a/b/c",
            "po*ds",
            "*/*",
            "pods/Status",
        ] {
            assert!(resource(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn urls() {
        for ok in ["*", "/metrics", "/healthz*", "/apis/*", "/"] {
            assert!(non_resource_url(ok).is_ok(), "{ok}");
        }
        for bad in ["metrics", "/foo/*/bar", "", "/a b", "/x?y=1"] {
            assert!(non_resource_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_and_custom_verbs() {
        assert!(resource_name("my-config", false).is_ok());
        assert!(resource_name("a/b", false).is_err());
        assert!(resource_name("..", false).is_err());
        assert!(resource_name("example.com/*", true).is_ok());
        assert!(custom_verb("frobnicate").is_ok());
        assert!(custom_verb("impersonate:user-info").is_ok());
        assert!(custom_verb("Frob").is_err());
        assert!(custom_verb("a b").is_err());
    }
}
