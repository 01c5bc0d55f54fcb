//! Why `--rbac-from-source` refuses to read an attribute, and the warning of a file it keeps.

use crate::input::Place;
use crate::input::sources::ScanProblem;
use crate::input::workspace::TargetKind;
use std::fmt;
use std::path::{Path, PathBuf};

/// One attribute (or scan problem) the compiler alone can read: the reason the run refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// Where; `None` for the scan's own problems, whose text names the place.
    pub place: Option<Place>,
    /// Why.
    pub reason: Reason,
}

/// Why an attribute cannot be read from the sources alone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Its arguments do not parse or validate: the macro's own message.
    Invalid(String),
    /// Behind cfgs the scan cannot evaluate.
    CfgUnknown {
        /// The cfgs, as written.
        cfgs: String,
        /// Why they cannot be evaluated.
        why: String,
    },
    /// Behind a feature cfg: the generator's own build decides which features of the crate
    /// are on (the workspace's build may enable others), so only the compiler knows.
    CfgFeature {
        /// The cfgs, as written.
        cfgs: String,
    },
    /// Behind cfgs that are off in the workspace's build; the full run only warns about it.
    CfgOff {
        /// The cfgs, as written.
        cfgs: String,
        /// Why the scan counts them off.
        why: String,
    },
    /// Inside a macro's input: what the macro makes of it is the compiler's to know.
    InMacroInput,
    /// In a file the scan reached through a `mod x;` or `include!` in a macro's input: whether
    /// the macro declares it is the compiler's to know.
    ThroughMacroInput {
        /// `` `mod x;` `` or `` an `include!` ``.
        what: String,
        /// Where the declaration stands (file:line).
        at: String,
    },
    /// In a target the generator cannot link (a binary, an example, a proc-macro, ...).
    NotInLibrary {
        /// A binary, an example or an unlinkable crate.
        target: TargetKind,
        /// Its package.
        package: String,
    },
    /// In a file no module tree the scan follows reaches.
    NotReached {
        /// The package.
        package: String,
    },
    /// In a crate the generator does not link (the full run fails on it).
    NotLinked {
        /// The crate.
        krate: String,
    },
    /// The file does not parse, so the scan cannot tell which attributes stand in a macro's
    /// input.
    FileUnparsable(String),
    /// A registry entry of a crate inside the workspace that the scan does not read
    /// (`scan = false`, `scan-exclude`): only a rebuild sees its edits.
    UnscannedCrate {
        /// The crate.
        krate: String,
        /// The annotated item.
        item: String,
    },
    /// A problem of the scan (unreadable file, module or `include!` it cannot follow); the
    /// text names the place.
    Scan(ScanProblem),
    /// The file's `#[conversion]`s are not those the last build registered: the CRDs'
    /// `spec.conversion` and the role's rule for their CA bundles follow the conversions,
    /// which only a rebuild reads.
    ConversionsChanged {
        /// How many the sources have in the file.
        in_sources: usize,
        /// How many the last build registered from it.
        in_last_build: usize,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(place) = &self.place {
            write!(f, "{place}: ")?;
        }
        match &self.reason {
            Reason::Invalid(message) => write!(f, "#[rbac] does not compile: {message}"),
            Reason::CfgUnknown { cfgs, why } => write!(
                f,
                "#[rbac] behind `{cfgs}`, which the scan cannot evaluate ({why}): only the \
                 compiler knows whether it is in the build"
            ),
            Reason::CfgFeature { cfgs } => write!(
                f,
                "#[rbac] behind `{cfgs}`: the generator's own build decides which features are \
                 on"
            ),
            Reason::CfgOff { cfgs, why } => write!(
                f,
                "#[rbac] behind `{cfgs}`, off in the workspace's build ({why}): the full run \
                 leaves it out with a warning, and only the compiler has the last word"
            ),
            Reason::InMacroInput => write!(
                f,
                "#[rbac] in a macro's input: only the compiler knows what the macro makes of it"
            ),
            Reason::ThroughMacroInput { what, at } => write!(
                f,
                "#[rbac] in a file reached through {what} in a macro's input at {at}: only the \
                 compiler knows whether the macro declares it"
            ),
            Reason::NotInLibrary { target, package } => write!(
                f,
                "#[rbac] in target `{target}` of package `{package}`, which the generator \
                 cannot link"
            ),
            Reason::NotReached { package } => write!(
                f,
                "#[rbac] in a file of package `{package}` that no `mod` or `include!` the scan \
                 can follow leads to"
            ),
            Reason::NotLinked { krate } => write!(
                f,
                "#[rbac] in crate `{krate}`, which the generator does not link"
            ),
            Reason::FileUnparsable(why) => write!(
                f,
                "#[rbac] in a file that does not parse ({why}): the scan cannot tell whether it \
                 stands in a macro's input"
            ),
            Reason::UnscannedCrate { krate, item } => write!(
                f,
                "the last build's #[rbac] on `{item}` is in crate `{krate}`, which the scan \
                 does not read (scan = false or scan-exclude): only a rebuild sees its edits"
            ),
            Reason::Scan(text) => write!(f, "{text}"),
            Reason::ConversionsChanged {
                in_sources,
                in_last_build,
            } => write!(
                f,
                "{in_sources} #[conversion] in this file, {in_last_build} in the last build: the \
                 CRDs and the role's rule for their CA bundles follow the conversions, which only \
                 a rebuild reads"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// The text of the run's `Error::FromSource`; `rerun` rebuilds the generator (`cargo run -p
/// codegen`).
pub(crate) fn refused(refusals: &[Refusal], rerun: &str) -> String {
    let mut text = format!(
        "--rbac-from-source: {} problem(s) only the compiler can settle (nothing was written; \
         run `{rerun}`, which rebuilds the generator and reads them as the compiler does):",
        refusals.len()
    );
    for refusal in refusals {
        text.push_str(&format!("\n  - {refusal}"));
    }
    text
}

/// A warning of a run from the sources: a CRD or webhook file it left as it is, although the
/// last build generates it otherwise.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error(
    "{} {}; --rbac-from-source writes only the roles and the deploy bundle: run `{rerun}` to \
     regenerate it",
    path.display(),
    if *missing { "is missing (the last build generates it)" }
    else { "was left as it is, but the last build generates it otherwise" }
)]
pub struct LeftAsItIs {
    /// The file.
    pub path: PathBuf,
    /// The command that rebuilds the generator and regenerates it.
    pub rerun: String,
    /// It does not exist (else: its content differs).
    pub missing: bool,
}

/// The content of a file the full run generates and a run from the sources leaves as it is:
/// the file's current text, or (missing) the last build's, with a warning if they differ.
pub(crate) fn left_as_it_is(
    path: &Path,
    generated: String,
    rerun: &str,
) -> (String, Option<LeftAsItIs>) {
    let warning = |missing| LeftAsItIs {
        path: path.to_path_buf(),
        rerun: rerun.to_string(),
        missing,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let differs = text != generated;
            (text, differs.then(|| warning(false)))
        }
        Err(_) => (generated, Some(warning(true))),
    }
}
