pub fn f(c: char, t: ((u8, u8), u8)) -> u32 {
    let _ = ['\u{0}', '\x41', '\\', '\'', '"', '/', '*', '#', '[', '{'];
    let _ = ("\\\"", r"\", br"\\", b"\"", r#"/*"#, "/*", "//", c"\x41", cr"{");
    let _ = (1..=2, 1.0..2.0, t.0.0, 0.5f32, 1e3, 0xffu8, 1_000i64, 0o7, 0b1010, 1., 2.5E-3_f64, 0x1e+1);
    'outer: for _ in 0..1 { break 'outer; }
    let _l = 'blk: { break 'blk 1 };
    match c { 'a'..='z' => { #[rbac(verbs = "get")] fn in_arm() {} } '\'' | '}' => {} _ => {} }
    0
}
struct W<'a, T: 'a + ?Sized>(&'a T);
#[rbac(verbs = "get")] impl<'a> W<'a, str> { #[rbac(verbs = "get")] fn g(&self) -> &'a str { self.0 } }
/// doc with "quote and 'tick and { brace
#[rbac(verbs = "get")] fn h() {}
