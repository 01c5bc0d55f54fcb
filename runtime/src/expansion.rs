//! What the attributes' expansions call in the crate that compiles them.

use kube_markers_registry::same_str;

/// The expansions' call-site check, one function per attribute
/// (`kube_markers_core::call_site::check_call_site`): returns `line` when `line!()`, `column!()` and
/// `file!()` at the attribute are where the proc-macro saw it written, and panics at compile
/// time otherwise: the attribute was produced by a `macro_rules!` expansion (there `line!()`
/// names the invocation, not the attribute's own place), which the generator's workspace scan
/// cannot see. Every comparison is in here, so an expansion is one call with plain arguments:
/// its function is built once, and only evaluated per attribute.
macro_rules! written_here {
    ($($check:ident => $attr:literal,)*) => {$(
        #[doc = concat!("The call-site check of `#[", $attr, "]` (see `written_here!`).")]
        #[doc(hidden)]
        pub const fn $check(
            line: u32,
            column: u32,
            file: &str,
            written_line: u32,
            written_column: u32,
            written_file: &str,
        ) -> u32 {
            if line != written_line || column != written_column || !same_str(file, written_file) {
                panic!(concat!(
                    "this #[", $attr, "] is produced by a macro: the generator's workspace scan ",
                    "cannot see attributes inside macro_rules! bodies, so it could silently go ",
                    "missing from the generated manifests; write the attribute directly on the item"
                ));
            }
            line
        }
    )*};
}
written_here! {
    rbac_written_here => "rbac",
    crd_written_here => "crd",
    webhook_written_here => "webhook",
    webhook_configuration_written_here => "webhook_configuration",
    conversion_written_here => "conversion",
}
