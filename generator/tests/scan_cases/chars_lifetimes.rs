fn f<'a>(x: &'a str) -> char { let _c = ['\'', '"', '{', b'\\' as char, '\u{7b}', 'é']; 'outer: loop { break 'outer; } '}' }
#[rbac(verbs = "get")] fn g<'r#a>() {}
fn h() -> &'static str { "'" } #[rbac(verbs = "get")] fn i() {}
