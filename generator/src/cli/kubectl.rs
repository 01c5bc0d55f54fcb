//! Command-line words read as kubectl reads them, for the subcommands that take kubectl's
//! arguments (`can-i`, `explain`): flags anywhere among the positional arguments, `--flag
//! value`, `--flag=value`, `-n value`, `-nvalue`, `-n=value`, and `--` ending the flags.

use crate::UsageError;
use kube_markers_core::suggest::did_you_mean;

/// One thing read from the command line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Word {
    /// A positional argument.
    Positional(String),
    /// `-h` or `--help`.
    Help,
    /// A flag that takes no value (`-A`, `--explain`).
    Switch(&'static str),
    /// A flag and its (non-empty) value.
    Value(&'static str, String),
}

/// The flags a subcommand knows: the long names, which of them take no value, and which may be
/// given more than once.
pub(crate) struct Flags {
    /// Every long flag, `--help` included.
    pub known: &'static [&'static str],
    /// Flags without a value.
    pub switches: &'static [&'static str],
    /// Flags that may be repeated.
    pub repeatable: &'static [&'static str],
}

/// Reads `args` word by word.
pub(crate) struct Words<I> {
    args: I,
    flags: Flags,
    seen: Vec<&'static str>,
    only_positional: bool,
}

impl<I: Iterator<Item = String>> Words<I> {
    pub(crate) fn new(args: I, flags: Flags) -> Self {
        Words {
            args,
            flags,
            seen: Vec::new(),
            only_positional: false,
        }
    }

    fn word(&mut self, arg: String) -> Result<Option<Word>, UsageError> {
        if self.only_positional || arg == "-" || !arg.starts_with('-') {
            return Ok(Some(Word::Positional(arg)));
        }
        if arg == "--" {
            self.only_positional = true;
            return Ok(None);
        }
        // Short flags: -h, -A, -n VALUE, -nVALUE, -n=VALUE.
        let (written, inline) =
            if let Some(short) = arg.strip_prefix('-').filter(|s| !s.starts_with('-')) {
                let (letter, rest) = short.split_at(short.chars().next().map_or(0, char::len_utf8));
                let long = match letter {
                    "h" => "--help",
                    "A" => "--all-namespaces",
                    "n" => "--namespace",
                    _ => {
                        return Err(UsageError::UnknownOption {
                            arg,
                            suggestion: None,
                        });
                    }
                };
                let inline =
                    (!rest.is_empty()).then(|| rest.strip_prefix('=').unwrap_or(rest).to_string());
                (long.to_string(), inline)
            } else {
                match arg.split_once('=') {
                    Some((f, v)) => (f.to_string(), Some(v.to_string())),
                    None => (arg.clone(), None),
                }
            };
        let Some(&flag) = self.flags.known.iter().find(|f| **f == written) else {
            let names: Vec<&str> = self.flags.known.iter().map(|f| &f[2..]).collect();
            let suggestion =
                did_you_mean(written.trim_start_matches('-'), &names).map(str::to_string);
            return Err(UsageError::UnknownOption { arg, suggestion });
        };
        if flag == "--help" {
            return Ok(Some(Word::Help));
        }
        if !self.flags.repeatable.contains(&flag) && self.seen.contains(&flag) {
            return Err(UsageError::Repeated { flag: flag.into() });
        }
        self.seen.push(flag);
        if self.flags.switches.contains(&flag) {
            if inline.is_some() {
                return Err(UsageError::TakesNoValue { flag: flag.into() });
            }
            return Ok(Some(Word::Switch(flag)));
        }
        let value = match inline {
            Some(v) => v,
            None => self
                .args
                .next()
                .filter(|v| !v.starts_with('-') || v == "-")
                .ok_or_else(|| UsageError::NeedsValue { flag: flag.into() })?,
        };
        if value.is_empty() {
            return Err(UsageError::EmptyValue { flag: flag.into() });
        }
        Ok(Some(Word::Value(flag, value)))
    }
}

impl<I: Iterator<Item = String>> Iterator for Words<I> {
    type Item = Result<Word, UsageError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let arg = self.args.next()?;
            match self.word(arg) {
                Ok(Some(word)) => return Some(Ok(word)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

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

/// `flag value` that the flag does not accept.
pub(crate) fn invalid(flag: &str, value: String, why: String) -> UsageError {
    UsageError::InvalidValue {
        flag: flag.into(),
        value,
        why,
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

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: Flags = Flags {
        known: &["--namespace", "--all-namespaces", "--as-group", "--help"],
        switches: &["--all-namespaces"],
        repeatable: &["--as-group"],
    };

    fn read(args: &[&str]) -> Result<Vec<Word>, UsageError> {
        Words::new(args.iter().map(|a| a.to_string()), FLAGS).collect()
    }

    fn value(flag: &'static str, v: &str) -> Word {
        Word::Value(flag, v.to_string())
    }

    #[test]
    fn flags_stand_anywhere_in_every_spelling_kubectl_accepts() {
        let ns = || value("--namespace", "web");
        for spelling in [
            &["-n", "web"][..],
            &["-nweb"],
            &["-n=web"],
            &["--namespace", "web"],
            &["--namespace=web"],
        ] {
            let mut args = vec!["get"];
            args.extend_from_slice(spelling);
            args.push("pods");
            assert_eq!(
                read(&args).unwrap(),
                [
                    Word::Positional("get".into()),
                    ns(),
                    Word::Positional("pods".into())
                ],
                "{spelling:?}"
            );
        }
        assert_eq!(
            read(&["-A", "--as-group", "a", "--as-group=b", "-", "--", "-n"]).unwrap(),
            [
                Word::Switch("--all-namespaces"),
                value("--as-group", "a"),
                value("--as-group", "b"),
                Word::Positional("-".into()),
                Word::Positional("-n".into()),
            ]
        );
        assert_eq!(read(&["x", "-h"]).unwrap()[1], Word::Help);
    }

    #[test]
    fn each_misuse_is_named() {
        let err = |args: &[&str]| read(args).unwrap_err().to_string();
        assert_eq!(
            read(&["--namespac", "a"]).unwrap_err(),
            UsageError::UnknownOption {
                arg: "--namespac".into(),
                suggestion: Some("namespace".into())
            }
        );
        assert_eq!(err(&["-x"]), "unknown option `-x`");
        assert_eq!(
            err(&["--namespac", "a"]),
            "unknown option `--namespac` (did you mean `--namespace`?)"
        );
        assert_eq!(
            err(&["-n", "a", "-n", "b"]),
            "`--namespace` given more than once"
        );
        assert_eq!(err(&["-A=yes"]), "`--all-namespaces` takes no value");
        assert_eq!(err(&["-n"]), "`--namespace` needs a value");
        assert_eq!(err(&["-n", "-A"]), "`--namespace` needs a value");
        assert_eq!(
            err(&["--namespace="]),
            "`--namespace` needs a non-empty value"
        );
        assert!(
            namespace("Web".into())
                .unwrap_err()
                .to_string()
                .starts_with("`--namespace Web` is not")
        );
        assert!(subresource("a/b".into()).is_err());
    }
}
