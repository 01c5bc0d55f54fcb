//! What validation ratcheting (KEP-4008: on by default since Kubernetes 1.30, GA and always on
//! since 1.33) does to a change: on UPDATE, an error on a value that is unchanged from the
//! old object (or whose nearest correlatable ancestor is) becomes a warning. CREATE and
//! changed values are always validated.

use std::fmt;

/// How ratcheting bears on one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Ratcheting {
    /// A tightening that ratcheting softens: stored objects that break it can still be
    /// updated while the value stays as it is.
    Softens,
    /// A new required property: ratcheting lets an update through only if nothing under the
    /// parent changes.
    Required,
    /// A transition rule (`oldSelf`): never ratcheted.
    TransitionRule,
    /// A type change: stored values of the old type fail every update that touches them and
    /// are decoded wrong by clients; ratcheting cannot help.
    None,
    /// A default: applied when objects are read from storage, so stored objects change
    /// meaning; not a validation.
    Defaulting,
    /// A list or map topology: server-side apply's merge changes; not a validation.
    Topology,
    /// Loosens validation: stored objects stay valid, clients of the old schema may meet
    /// values it refused.
    Loosens,
    /// Documentation only.
    NotAValidation,
    /// A change no check knows.
    Unknown,
}

impl Ratcheting {
    /// The sentence messages end with, if any.
    pub fn note(self) -> Option<&'static str> {
        Some(match self {
            Ratcheting::Softens => {
                "ratcheting (Kubernetes 1.33+) keeps stored objects updatable while this value \
                 is unchanged; creates and changed values must satisfy it"
            }
            Ratcheting::Required => {
                "ratcheting (Kubernetes 1.33+) lets an update of a stored object without it \
                 through only if nothing under the parent changes"
            }
            Ratcheting::TransitionRule => "transition rules are not ratcheted",
            Ratcheting::None => {
                "ratcheting cannot help: stored values of the old type fail every update that \
                 touches them"
            }
            Ratcheting::Defaulting => {
                "defaults apply when stored objects are read: their meaning changes without an \
                 update"
            }
            Ratcheting::Topology
            | Ratcheting::Loosens
            | Ratcheting::NotAValidation
            | Ratcheting::Unknown => return None,
        })
    }
}

impl fmt::Display for Ratcheting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.note().unwrap_or(""))
    }
}
