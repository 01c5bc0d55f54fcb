#[rbac(verbs = "get")] fnf() {}
