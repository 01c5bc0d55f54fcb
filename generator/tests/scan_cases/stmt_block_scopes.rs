// A `#[cfg]` on a statement that is an expression with a block ends with that block: the
// next statement's items are under their own cfgs only (rustix's `eventfd` shape).
fn unsafe_blocks() {
    #[cfg(a)]
    unsafe {
        m! { x }
    }
    #[cfg(b)]
    unsafe {
        m! {
            fn inner() {}
        }
    }
    fn after_unsafe() {}
}
fn every_block_kind(x: Option<u8>, xs: &[u8]) {
    #[cfg(a)] 'outer: loop { break 'outer; }
    fn after_loop() {}
    #[cfg(a)] while let Some(P { v }) = x.map(|v| P { v }) { break; }
    fn after_while_let() {}
    #[cfg(a)] for P { v } in xs.iter().map(|&v| P { v }) { let _ = v; }
    fn after_for_pattern() {}
    #[cfg(a)] if let P { v: 1..=2 } = p && !{ true } { } else if x.is_some() { } else { }
    fn after_if_chain() {}
    #[cfg(a)] match fut.await { _ => {} }
    fn after_await() {}
    #[cfg(a)] match x as Option<u8> { _ => {} }
    fn after_cast() {}
    #[cfg(a)] if matches!(x, Some(P { .. })) == { true } { }
    fn after_operand_block() {}
    #[cfg(a)] const { 1 };
    fn after_const() {}
    #[cfg(a)] { 1 }.to_string();
    fn after_method() {}
    #[cfg(a)] unsafe { f() }?;
    fn after_try() {}
    #[cfg(a)] if gen { }
    fn after_gen() {}
    #[cfg(a)] match x { _ => {} } - 1;
    fn after_binary() {}
}
fn arms(x: u8) {
    match x {
        #[cfg(a)] 1 => unsafe { g() },
        #[cfg(b)] 2 => if true { } else { },
        _ => { fn in_arm() {} }
    }
}
