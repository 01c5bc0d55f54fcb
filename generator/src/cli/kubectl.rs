//! The values kubectl's flags take, as the subcommands with kubectl's arguments (`can-i`,
//! `explain`) check them. How kubectl reads words (flags anywhere, `-n value`, `--`) is every
//! command line's (`flags.rs`).

use super::flags::invalid;
use crate::usage::UsageError;

/// `--namespace VALUE`, checked as a namespace name.
pub(crate) fn namespace(value: String) -> Result<String, UsageError> {
    match kube_markers_core::names::dns1123_label(&value) {
        Ok(()) => Ok(value),
        Err(why) => Err(invalid(
            "--namespace",
            value,
            format!("is not a namespace name: {why}"),
        )),
    }
}

/// `--subresource VALUE`: one name, without `/`.
pub(crate) fn subresource(value: String) -> Result<String, UsageError> {
    if value.contains('/') {
        return Err(invalid(
            "--subresource",
            value,
            "must be one subresource name, without `/`".into(),
        ));
    }
    Ok(value)
}
