//! The header of every registry record: what an attribute said, and where it stands.

use kube_markers_core::model::Source;

/// Where an attribute stands and what it said: every registry record is this, or starts with
/// it (`record` of [`WebhookRecord`](crate::WebhookRecord)). The validated attribute as one string (see
/// `kube_markers_core::record`) and the call site. Plain data, built by a struct literal
/// (`kube_markers_core::registration::record_static`): the cheapest `static` for the compiler
/// to build, one per attribute.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Record {
    /// The attribute and its item's name, in `kube_markers_core::record`'s format.
    pub data: &'static str,
    /// `file!()` at the attribute.
    pub file: &'static str,
    /// `line!()` at the attribute.
    pub line: u32,
    /// `column!()` at the attribute.
    pub column: u32,
    /// `module_path!()` at the attribute.
    pub module_path: &'static str,
}

impl Record {
    /// The attribute's [`Source`], `item` its item's name (read from `data`).
    pub(crate) fn source(&self, item: &'static str) -> Source {
        Source::__new(self.file, self.line, self.column, self.module_path, item)
    }

    /// A record another version of the macros wrote: a broken build, named by its place.
    pub(crate) fn foreign(&self, attribute: &str) -> ! {
        panic!(
            "the #[{attribute}] registry record of {}:{} was written by another version of \
             kube-markers' macros: {:?}",
            self.file, self.line, self.data
        )
    }
}
