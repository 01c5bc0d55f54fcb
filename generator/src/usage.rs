//! Why a command line cannot run: the generator's and its subcommands', below the stages
//! that report it.

/// A command line the generator (or its `can-i` and `explain` subcommands) cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// `--something` it does not know.
    #[error("unknown option `{arg}`{}", hint(.suggestion))]
    UnknownOption {
        /// As given.
        arg: String,
        /// The closest known option.
        suggestion: Option<String>,
    },
    /// A word that is no option.
    #[error("unexpected argument `{arg}`{}", hint(.suggestion))]
    UnexpectedArgument {
        /// As given.
        arg: String,
        /// The closest known option.
        suggestion: Option<String>,
    },
    /// An option given twice.
    #[error("`{flag}` given more than once")]
    Repeated {
        /// The option.
        flag: String,
    },
    /// `--switch=value`.
    #[error("`{flag}` takes no value")]
    TakesNoValue {
        /// The option.
        flag: String,
    },
    /// An option without its value.
    #[error("`{flag}` needs a value")]
    NeedsValue {
        /// The option.
        flag: String,
    },
    /// An option with an empty value.
    #[error("`{flag}` needs a non-empty value")]
    EmptyValue {
        /// The option.
        flag: String,
    },
    /// A value the option does not accept.
    #[error("`{flag} {value}` {why}")]
    InvalidValue {
        /// The option.
        flag: String,
        /// As given.
        value: String,
        /// What is wrong with it.
        why: String,
    },
    /// `--no-bundle` with flags that only the bundle reads.
    #[error(
        "`--no-bundle` conflicts with the bundle's identity flags (--operator-name, \
         --operator-namespace, --image)"
    )]
    NoBundleWithIdentity,
    /// `--no-scan` with `--manifest-path`, which only tells the scan where to look.
    #[error(
        "`--no-scan` and `--manifest-path` conflict: the manifest path only tells the scan where to look"
    )]
    NoScanWithManifestPath,
    /// `can-i` without its question.
    #[error("missing VERB and TYPE (e.g. `can-i list deployments.apps -n ns`)")]
    MissingQuestion,
    /// `can-i VERB` or `explain VERB` without the resource or URL.
    #[error(
        "missing TYPE after `{verb}`: TYPE, TYPE.GROUP, TYPE/NAME, TYPE.GROUP/NAME or /URL{}",
        if *explain { " (or no arguments, for every rule)" } else { "" }
    )]
    MissingType {
        /// The verb given.
        verb: String,
        /// In `explain`, which may also take no arguments.
        explain: bool,
    },
    /// A resource argument that is not kubectl's `TYPE[.GROUP][/NAME]`.
    #[error("{}", describe_target(.arg, .problem))]
    InvalidTarget {
        /// As given.
        arg: String,
        /// What is wrong with it.
        problem: TargetProblem,
    },
    /// Two options that exclude each other.
    #[error("`{first}` and `{second}` conflict")]
    Conflict {
        /// The first option.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// An option about resources with a non-resource URL.
    #[error(
        "`{flag}` cannot be used with the URL `{url}`{}",
        if *flag == "--namespace" { ": non-resource URLs have no namespace" } else { "" }
    )]
    NotForUrl {
        /// The option.
        flag: &'static str,
        /// The URL asked about.
        url: String,
    },
    /// `--as-group` without `--as`.
    #[error("`--as-group` needs `--as`: groups are impersonated with a user")]
    GroupWithoutUser,
    /// An option of `explain`'s question without a question.
    #[error("`{flag}` needs a question: `explain VERB TYPE {flag} ...`")]
    NeedsQuestion {
        /// The option.
        flag: &'static str,
    },
    /// A positional argument that is not one of those accepted.
    #[error("`{arg}` {why}")]
    InvalidArgument {
        /// As given.
        arg: String,
        /// What is wrong with it.
        why: String,
    },
    /// A required positional argument left out.
    #[error("missing {what}")]
    MissingArgument {
        /// What is missing, and what it may be.
        what: String,
    },
}

/// What is wrong with a `TYPE[.GROUP][/NAME]` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TargetProblem {
    /// `TYPE/` with nothing after the slash.
    EmptyName,
    /// No resource, or a dot without a group.
    Shape,
    /// The group is not a DNS subdomain.
    InvalidGroup {
        /// The group.
        group: String,
        /// Why.
        why: String,
    },
}

fn describe_target(arg: &str, problem: &TargetProblem) -> String {
    match problem {
        TargetProblem::EmptyName => format!(
            "`{arg}` has an empty name after `/`; write `TYPE/NAME`, or `TYPE` for any name"
        ),
        TargetProblem::Shape => {
            format!("`{arg}` is not TYPE, TYPE.GROUP, TYPE/NAME or TYPE.GROUP/NAME")
        }
        TargetProblem::InvalidGroup { group, why } => format!(
            "`{group}` in `{arg}` is not an API group (a DNS subdomain such as `apps` or \
             `cache.example.com`): {why}"
        ),
    }
}

fn hint(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|f| format!(" (did you mean `--{f}`?)"))
        .unwrap_or_default()
}
