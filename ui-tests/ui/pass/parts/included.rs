#[rbac(groups = "", resources = "resourcequotas", verbs = "get")]
pub fn from_an_included_file() {}
