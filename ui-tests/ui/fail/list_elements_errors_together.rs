use kube_markers::rbac;

// Every element's problem, in every list, in one compile: the `;;` does not hide the bad
// verbs beside it. The elements of a "a;b" string share its span (stable Rust cannot point
// inside a literal); array elements have their own.
#[rbac(groups = "", resources = "pods", verbs = "gett;Get;;list")]
#[rbac(groups = ["Apps", 1], resources = ["Pods", "", "jobs"], resource_names = ["a/b"], verbs = ["get", "lsit", "Watch"])]
#[rbac(urls = ["/a", "", "b"], verbs = "get;PUT")]
async fn reconcile() {}

fn main() {
    let _ = reconcile();
}
