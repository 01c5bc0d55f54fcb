//! HTTP request → authorization attributes, as kube-apiserver's `RequestInfoFactory` derives
//! them (k8s.io/apiserver `pkg/endpoints/request/requestinfo.go`, with `APIPrefixes` `api`,
//! `apis` and `GrouplessAPIPrefixes` `api`, as kube-apiserver configures it).

use super::selectors::{
    field_selector_exact_match, is_valid_path_segment_name, label_selector_is_valid,
};
use serde::Serialize;

/// What the API server knows about a request before authorizing it.
///
/// Serializes with the field names kube-apiserver's tests use (`isResourceRequest`, `verb`,
/// `apiPrefix`, …). Text that is not UTF-8 after percent-decoding is kept with U+FFFD in its
/// place, as Go's JSON encoding of the same struct shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestInfo {
    /// `true` for `/api/...` and `/apis/...` paths long enough to name a resource.
    pub is_resource_request: bool,
    /// The percent-decoded URL path, without the query.
    pub path: String,
    /// The Kubernetes verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`, `proxy`) of a resource request; the lowercased HTTP method otherwise.
    pub verb: String,
    /// `api` or `apis` (also set on some non-resource requests, as upstream does).
    pub api_prefix: String,
    /// The API group; `""` for the core group.
    pub api_group: String,
    /// The API version.
    pub api_version: String,
    /// The namespace; `""` for cluster-scoped and all-namespace requests. For
    /// `/api/v1/namespaces/NAME` it is `NAME` itself.
    pub namespace: String,
    /// The plural resource (`pods`), as written in the URL.
    pub resource: String,
    /// The subresource (`status`, `scale`, `log`, `exec`, …).
    pub subresource: String,
    /// The object name; from a `metadata.name=` field selector for list and watch.
    pub name: String,
    /// The path segments from the resource on (`[pods, foo, status]`).
    pub parts: Vec<String>,
    /// The raw `fieldSelector` of a list, watch or deletecollection (RBAC ignores it).
    pub field_selector: String,
    /// The raw `labelSelector` of a list, watch or deletecollection (RBAC ignores it).
    pub label_selector: String,
    /// Why the API server would fail this request before authorizing it (it answers 500 for a
    /// verb path without a resource, such as `/api/v1/watch`, and 400 for a malformed percent
    /// escape). The other fields hold what was known at that point.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_error"
    )]
    pub error: Option<RequestError>,
}

/// Why the API server fails a request before authorizing it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// A `%` in the path that does not start a two-digit hex escape (HTTP 400).
    #[error("malformed URL path `{path}`: invalid URL escape `{escape}`")]
    MalformedPath {
        /// The raw path.
        path: String,
        /// The bad escape (`%zz`, or what is left of it at the end of the path).
        escape: String,
    },
    /// `/watch/` or `/proxy/` with nothing after it to name a resource (HTTP 500).
    #[error("unable to determine kind and namespace from url `{url}`")]
    NoResource {
        /// The request's URL.
        url: String,
    },
}

/// The error as its message, as kube-apiserver's tests show it.
fn serialize_error<S: serde::Serializer>(
    error: &Option<RequestError>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match error {
        Some(error) => serializer.collect_str(error),
        None => serializer.serialize_none(),
    }
}

/// The request attributes kube-apiserver derives from an HTTP method and URL.
///
/// `url` is a request target as sent on the wire (`/apis/apps/v1/namespaces/ns/deployments?watch=1`)
/// or an absolute URL (its scheme and authority are ignored).
///
/// ```
/// let info = kube_markers_rbac::authorize::request_info("GET", "/api/v1/namespaces/ns/pods?watch=true");
/// assert_eq!((info.verb.as_str(), info.namespace.as_str(), info.resource.as_str()), ("watch", "ns", "pods"));
///
/// let info = kube_markers_rbac::authorize::request_info("POST", "/api/v1/namespaces/ns/pods/web-0/eviction");
/// assert_eq!((info.verb.as_str(), info.name.as_str(), info.subresource.as_str()), ("create", "web-0", "eviction"));
/// ```
pub fn request_info(method: &str, url: &str) -> RequestInfo {
    let target = strip_scheme_and_authority(url);
    let (raw_path, raw_query) = match target.split_once('?') {
        Some((path, query)) => (path, query),
        None => (target, ""),
    };
    let mut info = RequestInfo {
        verb: method.to_lowercase(),
        ..RequestInfo::default()
    };
    match percent_decode(raw_path, false) {
        Ok(path) => info.path = path,
        Err(escape) => {
            info.path = raw_path.to_string();
            info.error = Some(RequestError::MalformedPath {
                path: raw_path.to_string(),
                escape,
            });
            return info;
        }
    }
    let query = Query::parse(raw_query);

    let path = info.path.clone();
    let trimmed = path.trim_matches('/');
    let segments: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    // Non-resource until proven otherwise.
    if segments.len() < 3 || !matches!(segments[0], "api" | "apis") {
        return info;
    }
    info.api_prefix = segments[0].to_string();
    let mut rest = &segments[1..];
    if info.api_prefix == "apis" {
        if rest.len() < 3 {
            return info;
        }
        info.api_group = rest[0].to_string();
        rest = &rest[1..];
    }
    info.is_resource_request = true;
    info.api_version = rest[0].to_string();
    rest = &rest[1..];

    // The deprecated verb-in-path forms `/watch/...` and `/proxy/...`.
    let verb_in_path = matches!(rest[0], "watch" | "proxy");
    if verb_in_path {
        if rest.len() < 2 {
            info.error = Some(RequestError::NoResource {
                url: url.to_string(),
            });
            return info;
        }
        info.verb = rest[0].to_string();
        rest = &rest[1..];
    } else {
        info.verb = match method {
            "POST" => "create",
            "GET" | "HEAD" => "get",
            "PUT" => "update",
            "PATCH" => "patch",
            "DELETE" => "delete",
            _ => "",
        }
        .to_string();
    }

    if rest[0] == "namespaces" && rest.len() > 1 {
        info.namespace = rest[1].to_string();
        // `/namespaces/NS/status` and `/finalize` are subresources of the Namespace object;
        // anything else after the name is a resource in that namespace.
        if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
            rest = &rest[2..];
        }
    }
    info.parts = rest.iter().map(|s| s.to_string()).collect();
    if rest.len() >= 3 && info.verb != "proxy" {
        info.subresource = rest[2].to_string();
    }
    if rest.len() >= 2 {
        info.name = rest[1].to_string();
    }
    info.resource = rest[0].to_string();

    // A GET without a name is a list, or a watch.
    if info.name.is_empty() && info.verb == "get" {
        match ListOptions::decode(&query) {
            Ok(opts) => {
                info.verb = if opts.watch { "watch" } else { "list" }.to_string();
                if let Some(name) = opts.field_selector_name
                    && is_valid_path_segment_name(&name)
                {
                    info.name = name;
                }
            }
            // A malformed list option loses them all except `watch`, read more leniently.
            Err(()) => {
                let watch = query
                    .first("watch")
                    .is_some_and(|v| !(v == "0" || v.to_lowercase() == "false"));
                info.verb = if watch { "watch" } else { "list" }.to_string();
            }
        }
    }
    if info.name.is_empty() && info.verb == "delete" {
        info.verb = "deletecollection".to_string();
    }

    // Selectors are recorded for authorization (AuthorizeWithSelectors, on by default since
    // 1.32 and locked on since 1.34), but not for the verb-in-path forms.
    if !verb_in_path && matches!(info.verb.as_str(), "list" | "watch" | "deletecollection") {
        info.field_selector = query.first("fieldSelector").unwrap_or_default().to_string();
        info.label_selector = query.first("labelSelector").unwrap_or_default().to_string();
    }
    info
}

/// `scheme://authority/rest` → `/rest`; a request target is returned as it is.
fn strip_scheme_and_authority(url: &str) -> &str {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url;
    };
    let is_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme {
        return url;
    }
    match rest.find(['/', '?']) {
        Some(i) => &rest[i..],
        None => "",
    }
}

/// Go's `url.PathUnescape` (`query == false`: `+` stays) or `url.QueryUnescape` (`+` is a
/// space). Every `%` must start a two-digit hex escape: the error is the one that does not.
fn percent_decode(s: &str, query: bool) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                let Some(hex) = hex else {
                    let end = (i + 3).min(bytes.len());
                    return Err(String::from_utf8_lossy(&bytes[i..end]).into_owned());
                };
                let digit = |h: u8| (h as char).to_digit(16).unwrap_or(0) as u8;
                out.push(digit(hex[0]) << 4 | digit(hex[1]));
                i += 3;
            }
            b'+' if query => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `url.ParseQuery`, errors ignored as `URL.Query()` ignores them: pairs split on `&`,
/// pairs with `;` or a bad escape dropped, every value of a repeated key kept.
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(raw: &str) -> Query {
        let mut pairs = Vec::new();
        for pair in raw.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if let (Ok(key), Ok(value)) = (percent_decode(key, true), percent_decode(value, true)) {
                pairs.push((key, value));
            }
        }
        Query(pairs)
    }

    /// The first value of `key`, the only one the API server reads.
    fn first(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The list options that matter here, decoded as `metainternalversion.ListOptions` is from a
/// query: every option must decode, or none does.
struct ListOptions {
    watch: bool,
    field_selector_name: Option<String>,
}

impl ListOptions {
    fn decode(query: &Query) -> Result<ListOptions, ()> {
        for integer in ["limit", "timeoutSeconds"] {
            if let Some(v) = query.first(integer)
                && v.parse::<i64>().is_err()
            {
                return Err(());
            }
        }
        let field_selector_name = match query.first("fieldSelector") {
            Some(selector) => {
                field_selector_exact_match(selector, "metadata.name").map_err(|_| ())?
            }
            None => None,
        };
        if let Some(selector) = query.first("labelSelector")
            && !label_selector_is_valid(selector)
        {
            return Err(());
        }
        // runtime.Convert_Slice_string_To_bool: false only for `0` and (case-folded) `false`,
        // where Go's case folding also maps `ſ` (U+017F) to `s`.
        let watch = query
            .first("watch")
            .is_some_and(|v| !(v == "0" || v.replace('ſ', "s").eq_ignore_ascii_case("false")));
        Ok(ListOptions {
            watch,
            field_selector_name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(method: &str, url: &str) -> RequestInfo {
        request_info(method, url)
    }

    #[test]
    fn verb_in_path_without_a_resource_is_an_error() {
        let i = info("GET", "/api/v1/watch");
        assert_eq!(
            i.error,
            Some(RequestError::NoResource {
                url: "/api/v1/watch".into()
            })
        );
        assert_eq!(
            i.error.unwrap().to_string(),
            "unable to determine kind and namespace from url `/api/v1/watch`"
        );
        assert_eq!((i.is_resource_request, i.verb.as_str()), (true, "get"));
        assert!(i.parts.is_empty());
    }

    #[test]
    fn malformed_escapes_are_errors_and_valid_ones_are_decoded() {
        let i = info("GET", "/api/v1/namespaces/a%zz/pods");
        assert_eq!(
            i.error,
            Some(RequestError::MalformedPath {
                path: "/api/v1/namespaces/a%zz/pods".into(),
                escape: "%zz".into()
            })
        );
        let i = info("GET", "/api/v1/namespaces/a%2Fb/pods");
        // Decoded before splitting: the encoded slash shifts the parts, as upstream.
        assert_eq!((i.namespace.as_str(), i.resource.as_str()), ("a", "b"));
        assert_eq!(i.path, "/api/v1/namespaces/a/b/pods");
        let i = info("GET", "/api/v1/namespaces/a+b/pods");
        assert_eq!(i.namespace, "a+b");
    }

    #[test]
    fn absolute_urls_lose_scheme_and_authority() {
        let i = info(
            "GET",
            "https://10.0.0.1:6443/apis/apps/v1/deployments?limit=5",
        );
        assert_eq!((i.api_group.as_str(), i.verb.as_str()), ("apps", "list"));
        assert_eq!(i.path, "/apis/apps/v1/deployments");
    }

    #[test]
    fn list_options_that_do_not_decode_lose_the_name_but_not_watch() {
        let url =
            |q: &str| format!("/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dweb&{q}");
        let i = info("GET", &url("limit=10"));
        assert_eq!((i.verb.as_str(), i.name.as_str()), ("list", "web"));
        for bad in ["limit=ten", "timeoutSeconds=", "labelSelector=a%3Db%3Dc"] {
            let i = info("GET", &url(bad));
            assert_eq!((i.verb.as_str(), i.name.as_str()), ("list", ""), "{bad}");
            let i = info("GET", &url(&format!("{bad}&watch=TRUE")));
            assert_eq!((i.verb.as_str(), i.name.as_str()), ("watch", ""), "{bad}");
        }
        // Only the first value of a repeated option is read.
        let i = info("GET", &url("limit=1&limit=x"));
        assert_eq!(i.name, "web");
    }

    #[test]
    fn watch_is_false_only_for_0_and_false() {
        for (v, verb) in [
            ("false", "list"),
            ("FaLsE", "list"),
            ("fal%C5%BFe", "list"),
            ("0", "list"),
            ("", "watch"),
            ("1", "watch"),
            ("no", "watch"),
            ("00", "watch"),
        ] {
            let i = info("GET", &format!("/api/v1/pods?watch={v}"));
            assert_eq!(i.verb, verb, "watch={v}");
        }
        // With a malformed option the lenient reading lowercases instead of folding case.
        let i = info("GET", "/api/v1/pods?limit=x&watch=fal%C5%BFe");
        assert_eq!(i.verb, "watch");
    }

    #[test]
    fn field_selector_names_must_be_path_segments() {
        for (selector, name) in [
            ("metadata.name%3D..", ""),
            ("metadata.name%3Da%252Fb", ""),
            ("metadata.name%3Dweb", "web"),
            ("metadata.name%21%3Dweb", ""),
            ("metadata.namespace%3Dweb", ""),
        ] {
            let i = info("GET", &format!("/api/v1/pods?fieldSelector={selector}"));
            assert_eq!(i.name, name, "{selector}");
        }
        // deletecollection never takes a name from the selector.
        let i = info(
            "DELETE",
            "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dweb",
        );
        assert_eq!((i.verb.as_str(), i.name.as_str()), ("deletecollection", ""));
        assert_eq!(i.field_selector, "metadata.name=web");
    }

    #[test]
    fn query_pairs_with_semicolons_or_bad_escapes_are_dropped() {
        let i = info("GET", "/api/v1/pods?watch=1;x=y");
        assert_eq!(i.verb, "list");
        let i = info("GET", "/api/v1/pods?watch=%zz&watch=1");
        assert_eq!(i.verb, "watch");
        let i = info("GET", "/api/v1/pods?labelSelector=a+in+(b)");
        assert_eq!(i.label_selector, "a in (b)");
    }

    #[test]
    fn non_resource_requests_keep_the_lowercased_method() {
        let i = info("HEAD", "/healthz");
        assert_eq!((i.is_resource_request, i.verb.as_str()), (false, "head"));
        let i = info("OPTIONS", "/api/v1/pods");
        assert_eq!((i.is_resource_request, i.verb.as_str()), (true, ""));
    }
}
