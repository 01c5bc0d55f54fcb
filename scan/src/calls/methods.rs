//! `kube::Api<K>`'s request methods (kube-client 5.0.0: `api/core_methods.rs`,
//! `api/subresource.rs`, `api/entry.rs`, `api/util/`) and the RBAC verbs of the requests each
//! sends, as kube-apiserver's `RequestInfo` names them.

/// One method of `Api<K>` that sends requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiMethod {
    /// Its name.
    pub name: &'static str,
    /// The verbs of its requests.
    pub verbs: &'static [&'static str],
    /// Its subresource, when fixed (`status`, `scale`, `log`, ...).
    pub subresource: Option<&'static str>,
    /// The resource, when the method exists for one kind only (`evict` on Pods).
    pub resource: Option<(&'static str, &'static str)>,
    /// Its first argument names the subresource (`get_subresource("x", name)`).
    pub named_subresource: bool,
    /// Its patch argument may be a server-side apply (`Patch::Apply`), which needs `create`
    /// too when it may create the object.
    pub patch_arg: Option<usize>,
    /// Why the verbs are these, when it is not plain.
    pub why: Option<&'static str>,
}

const fn m(name: &'static str, verbs: &'static [&'static str]) -> ApiMethod {
    ApiMethod {
        name,
        verbs,
        subresource: None,
        resource: None,
        named_subresource: false,
        patch_arg: None,
        why: None,
    }
}

const fn sub(name: &'static str, verb: &'static [&'static str], s: &'static str) -> ApiMethod {
    ApiMethod {
        subresource: Some(s),
        ..m(name, verb)
    }
}

const fn pod(name: &'static str, verbs: &'static [&'static str], s: &'static str) -> ApiMethod {
    ApiMethod {
        subresource: Some(s),
        resource: Some(("", "pods")),
        ..m(name, verbs)
    }
}

const fn patch(name: &'static str, s: Option<&'static str>, arg: usize) -> ApiMethod {
    ApiMethod {
        subresource: s,
        patch_arg: Some(arg),
        ..m(name, &["patch"])
    }
}

const GET: &[&str] = &["get"];
const UPDATE: &[&str] = &["update"];
const WS: &str = "a websocket upgrade is a GET, and Kubernetes 1.35+ (AuthorizePodWebsocketUpgradeCreatePermission) also checks create";

/// Every request method of `Api<K>`, with its verbs.
pub const API_METHODS: &[ApiMethod] = &[
    m("get", GET),
    m("get_with", GET),
    m("get_opt", GET),
    m("get_metadata", GET),
    m("get_metadata_with", GET),
    m("get_metadata_opt", GET),
    m("get_metadata_opt_with", GET),
    m("list", &["list"]),
    m("list_metadata", &["list"]),
    m("watch", &["watch"]),
    m("watch_metadata", &["watch"]),
    m("create", &["create"]),
    m("replace", UPDATE),
    patch("patch", None, 2),
    patch("patch_metadata", None, 2),
    m("delete", &["delete"]),
    m("delete_collection", &["deletecollection"]),
    sub("get_status", GET, "status"),
    patch("patch_status", Some("status"), 2),
    sub("replace_status", UPDATE, "status"),
    sub("get_scale", GET, "scale"),
    patch("patch_scale", Some("scale"), 2),
    sub("replace_scale", UPDATE, "scale"),
    ApiMethod {
        named_subresource: true,
        ..m("get_subresource", GET)
    },
    ApiMethod {
        named_subresource: true,
        ..m("create_subresource", &["create"])
    },
    ApiMethod {
        named_subresource: true,
        ..patch("patch_subresource", None, 3)
    },
    ApiMethod {
        named_subresource: true,
        ..m("replace_subresource", UPDATE)
    },
    pod("get_ephemeral_containers", GET, "ephemeralcontainers"),
    pod(
        "patch_ephemeral_containers",
        &["patch"],
        "ephemeralcontainers",
    ),
    pod(
        "replace_ephemeral_containers",
        UPDATE,
        "ephemeralcontainers",
    ),
    pod("get_resize", GET, "resize"),
    pod("patch_resize", &["patch"], "resize"),
    pod("replace_resize", UPDATE, "resize"),
    pod("logs", GET, "log"),
    pod("log_stream", GET, "log"),
    pod("evict", &["create"], "eviction"),
    ApiMethod {
        why: Some(WS),
        ..pod("exec", &["get", "create"], "exec")
    },
    ApiMethod {
        why: Some(WS),
        ..pod("attach", &["get", "create"], "attach")
    },
    ApiMethod {
        why: Some(WS),
        ..pod("portforward", &["get", "create"], "portforward")
    },
    ApiMethod {
        subresource: Some("token"),
        resource: Some(("", "serviceaccounts")),
        ..m("create_token_request", &["create"])
    },
    ApiMethod {
        why: Some("`entry` gets the object; its `commit` creates or replaces it"),
        ..m("entry", &["get", "create", "update"])
    },
    m("restart", &["patch"]),
    ApiMethod {
        resource: Some(("", "nodes")),
        ..m("cordon", &["patch"])
    },
    ApiMethod {
        resource: Some(("", "nodes")),
        ..m("uncordon", &["patch"])
    },
    ApiMethod {
        subresource: Some("approval"),
        resource: Some(("certificates.k8s.io", "certificatesigningrequests")),
        ..m("get_approval", GET)
    },
    ApiMethod {
        subresource: Some("approval"),
        resource: Some(("certificates.k8s.io", "certificatesigningrequests")),
        why: Some(
            "approving also needs `approve` on certificates.k8s.io `signers` named by the signer",
        ),
        ..patch("patch_approval", None, 2)
    },
];

/// The method of this name.
pub(super) fn api_method(name: &str) -> Option<&'static ApiMethod> {
    API_METHODS.iter().find(|m| m.name == name)
}

/// The words a server-side apply adds.
pub(super) const APPLY_CREATES: &str = "a server-side apply (`Patch::Apply`) creates the object when it does not exist, which kube-apiserver authorizes as `create`";
