// edition 2021: `gen` is not reserved there, so `gen!` is a macro
macro_rules! gen { ($($t:tt)*) => {} } // a DSL macro: the real one would re-emit #[rbac] on what it generates
gen! {
    #[cfg(any())]
    fn off() {
        #[rbac(verbs = "get")]
        fn inner() {}
    }
    #[allow(unused)] #[rbac(verbs = "get")] static X: u8 = 1;
    #[rbac(verbs = "get")]
    fn on() {}
}
gen! {
    #[rbac(verbs = "list")] handler => list_pods
}
