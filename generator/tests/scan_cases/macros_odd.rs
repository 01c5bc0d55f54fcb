macro_rules! union { () => {} }
union!();
#[cfg(any())] self::m!{ #[rbac(verbs = "get")] fn a() {} }
#[cfg(any())] crate::m!{ #[rbac(verbs = "get")] fn b() {} }
#[cfg(any())] ::m::n!{ #[rbac(verbs = "get")] fn c() {} }
#[cfg(any())] m! name { #[rbac(verbs = "get")] fn d() {} }
fn f() { #[cfg(any())] m! try { #[rbac(verbs = "get")] } }
fn g() { let _ = m!{ #[rbac(verbs = "get")] }; #[cfg(any())] dyn_m!{ #[rbac(verbs = "get")] } }
