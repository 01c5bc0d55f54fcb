#[cfg(any())] struct A; #[rbac(verbs = "get")] fn f() {}
#[cfg(any())] struct B { x: [u8; { 3 }] } #[rbac(verbs = "get")] fn g() {}
#[cfg(any())] impl<const N: usize> Tr for [u8; {N}] where [(); N]: {} #[rbac(verbs = "get")] fn h() {}
#[cfg(any())] extern "C" { fn e(); } #[rbac(verbs = "get")] fn i() {}
#[cfg(any())] union U { a: u8 } #[rbac(verbs = "get")] fn j() {}
#[cfg(any())] macro_rules! m { () => { ; }; } #[rbac(verbs = "get")] fn k() {}
#[cfg(any())] use a::{b, c::{d}}; #[rbac(verbs = "get")] fn l() {}
#[cfg(any())] fn gg<T>() -> impl Fn() -> u8 where T: Fn(u8) -> bool { || 1 } #[rbac(verbs = "get")] fn m() {}
#[cfg(any())] const _: () = { }; #[rbac(verbs = "get")] fn n() {}
#[cfg(any())] static S: fn() -> u8 = || -> u8 { 1 }; #[rbac(verbs = "get")] fn o() {}
#[cfg(any())] type T = [u8; { 1 }]; #[rbac(verbs = "get")] fn p() {}
#[cfg(any())] m!{} #[rbac(verbs = "get")] fn q() {}
#[cfg(any())] m!(); #[rbac(verbs = "get")] fn r() {}
#[cfg(any())] async fn a() { async move {}.await } #[rbac(verbs = "get")] fn s() {}
#[cfg(any())] impl S<-1> {} #[rbac(verbs = "get")] fn t() {}
#[cfg(any())] fn ff() -> ! { loop {} } #[rbac(verbs = "get")] fn u() {}
#[cfg(any())] impl<T> Tr for T where T: PartialOrd<Vec<Vec<u8>>> {} #[rbac(verbs = "get")] fn v() {}
#[cfg(any())] unsafe extern "C" { safe fn e2(); } #[rbac(verbs = "get")] fn w() {}
#[cfg(any())] extern crate alloc; #[rbac(verbs = "get")] fn x() {}
#[cfg(any())] struct T2<const N: usize = { 1 }>(u8) where u8: Copy; #[rbac(verbs = "get")] fn y() {}
