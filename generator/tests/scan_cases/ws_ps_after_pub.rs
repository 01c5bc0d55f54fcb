#[rbac(verbs = "get")] pub fn f() {}
