use kube_markers::rbac;

// A non-resource URL's verb is the request's HTTP method: there is no custom verb to allow.
#[rbac(urls = "/debug", verbs = "frob", custom_verbs = true)]
pub fn reconcile() {}

fn main() {
    reconcile();
}
