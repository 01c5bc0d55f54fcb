//! Compile-time behaviour of the attributes: every error path (`ui/fail`, with the compiler's
//! output blessed in `.stderr` files). Every accepted form (`ui/pass`) is a test target of its
//! own (Cargo.toml), so that trybuild only checks: its project generates no code but its
//! dependencies' proc macros and build scripts.
//!
//! The `.stderr` files are tied to the pinned toolchain; on another compiler the test is
//! skipped rather than failing on message wording. Re-bless with `TRYBUILD=overwrite`.

#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files are blessed for rustc 1.95"
)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.compile_fail("ui/crd_fail/*.rs");
    t.compile_fail("ui/webhook_fail/*.rs");
    t.compile_fail("ui/conversion_fail/*.rs");
}
