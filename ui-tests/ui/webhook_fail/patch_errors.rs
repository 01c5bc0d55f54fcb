use kube_markers::webhook;

#[webhook(path = "/m", mutating = true, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "a.example.com", admission_review_versions = "v1",
    patch = "{invalid")]
struct MalformedJson;

#[webhook(path = "/m", mutating = true, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "b.example.com", admission_review_versions = "v1",
    patch = r#"{"TimeoutSeconds": 25, "namespaceSelector": {"matchlabels": {"env": "prod"}}}"#)]
struct UnknownFields;

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "c.example.com", admission_review_versions = "v1",
    patch = r#"{"reinvocationPolicy": "IfNeeded", "timeoutSeconds": "5", "$patch": "replace"}"#)]
struct WrongTypesAndDirectives;

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "d.example.com", admission_review_versions = "v1",
    patch = r#"{"timeoutSeconds": 45, "sideEffects": null}"#)]
struct BreaksTheWebhook;

fn main() {}
