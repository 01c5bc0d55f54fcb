const A: &str = r#"#[rbac] " fn x() { "#;
const B: &[u8] = br##"a"#b mod q; #[rbac(verbs = "get")]"##;
const C: &core::ffi::CStr = c"x\"{";
const D: &core::ffi::CStr = cr#"}"#;
#[rbac(verbs = "get")] fn r#mod() {}
#[path = r#"we"ird.rs"#] mod r#type;
#[path = "a\x2ers"] mod q2;
