const É: &str = "ü"; /* ä */ #[rbac(verbs = "get")] fn f() {}
/* 😀😀 */ #[cfg_attr(x, /* ö */ rbac(verbs = "ä"))] fn g() {}
		#[rbac(verbs = "get")]	fn h() {}
