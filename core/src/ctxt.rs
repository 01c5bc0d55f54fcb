//! Error accumulation: every problem in an attribute is reported at once, each on its own span.

use proc_macro2::Span;
use std::fmt::Display;

/// Collects errors while an attribute is parsed and validated.
///
/// Unlike returning the first error, collecting lets a user fix every typo in one compile.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error at `span`.
    pub fn error_at(&mut self, span: Span, msg: impl Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    /// Records an already-built error (possibly itself a combination).
    pub fn push(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// How many errors were recorded: compare before and after a step to learn whether it
    /// recorded any.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All errors combined into one `syn::Error` (which renders as several `compile_error!`s),
    /// or `Ok(())` when there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut iter = self.errors.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for err in iter {
            first.combine(err);
        }
        Err(first)
    }
}
