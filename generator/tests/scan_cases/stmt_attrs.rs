fn f() {
    #[cfg(any())] let _x = { #[rbac(verbs = "get")] fn a() {} };
    let Some(_y) = Some(1) else { #[rbac(verbs = "get")] fn b() {} return; };
    match 1 { #[cfg(any())] 1 => { #[rbac(verbs = "get")] fn c() {} } _ => {} }
    let _c = #[allow(unused)] || { #[rbac(verbs = "get")] fn d() {} };
    #[cfg(any())] m!{ #[rbac(verbs = "get")] fn e() {} }
    #[cfg(any())] m!( #[rbac(verbs = "get")] fn e2() {} );
    #[cfg(any())] m![ #[rbac(verbs = "get")] fn e3() {} ]
}
fn g() -> u8 { #[cfg(any())] m!{ #[rbac(verbs = "get")] }.len() }
fn h() { #[cfg(any())] m!{ #[rbac(verbs = "get")] }..; }
