// `-> !` before a body: the `!` is the never type, not a macro's, so the braces are the body
// and the function's cfg reaches the attribute inside it.
#[cfg(feature = "x")]
pub fn run() -> ! {
    #[rbac(verbs = "get")]
    fn inner() {}
    loop {}
}
pub fn next() -> t! { u8 } {
    #[rbac(verbs = "get")]
    fn inner2() {}
    0
}
