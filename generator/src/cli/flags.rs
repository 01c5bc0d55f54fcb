//! One table per command line: each flag is defined once (its names, its value, its help and
//! how it sets the options) and the parser, `--help` ([`super::help`]) and the shell
//! completions ([`super::completions`]) are all read from it, so they cannot disagree.
//!
//! Every command line is read as kubectl reads one: flags anywhere among the positional
//! arguments, `--flag value`, `--flag=value`, `-n value`, `-nvalue`, `-n=value`, and `--`
//! ending the flags. `-h`/`--help` is every command line's, never in a table.

use crate::usage::UsageError;
use kube_markers_core::suggest::did_you_mean;

/// What a flag takes, and how it sets the options `O`.
pub(crate) enum Takes<O> {
    /// Nothing: a switch.
    Nothing(fn(&mut O)),
    /// A value, shown in help as `<NAME>`; the parser has checked it is non-empty (and one of
    /// [`Flag::choices`], if the flag has any).
    Value(&'static str, fn(&mut O, String) -> Result<(), UsageError>),
}

/// One flag of a command line.
pub(crate) struct Flag<O> {
    /// Its name without `--`.
    pub long: &'static str,
    /// Its one-letter spelling (`-n`), if any.
    pub short: Option<char>,
    /// A switch, or a value.
    pub takes: Takes<O>,
    /// May be given more than once.
    pub repeatable: bool,
    /// What help says applies without it.
    pub default: Option<&'static str>,
    /// The only values it accepts; empty for any.
    pub choices: &'static [&'static str],
    /// One paragraph, wrapped when rendered. `{rerun}` becomes the command that rebuilds and
    /// runs the generator.
    pub help: &'static str,
}

impl<O> Flag<O> {
    /// `--long`, without a value.
    pub(crate) const fn switch(long: &'static str, help: &'static str, set: fn(&mut O)) -> Self {
        Flag {
            long,
            short: None,
            takes: Takes::Nothing(set),
            repeatable: false,
            default: None,
            choices: &[],
            help,
        }
    }

    /// `--long <VALUE>`.
    pub(crate) const fn value(
        long: &'static str,
        value: &'static str,
        help: &'static str,
        set: fn(&mut O, String) -> Result<(), UsageError>,
    ) -> Self {
        Flag {
            long,
            short: None,
            takes: Takes::Value(value, set),
            repeatable: false,
            default: None,
            choices: &[],
            help,
        }
    }

    /// Also spelled `-letter`.
    pub(crate) const fn short(mut self, letter: char) -> Self {
        self.short = Some(letter);
        self
    }

    /// Help shows `[default: shown]`.
    pub(crate) const fn default(mut self, shown: &'static str) -> Self {
        self.default = Some(shown);
        self
    }

    /// May be given more than once.
    pub(crate) const fn repeatable(mut self) -> Self {
        self.repeatable = true;
        self
    }

    /// Accepts only these values.
    pub(crate) const fn choices(mut self, choices: &'static [&'static str]) -> Self {
        self.choices = choices;
        self
    }

    /// `--long`, as messages name it.
    pub(crate) fn name(&self) -> String {
        format!("--{}", self.long)
    }

    fn doc(&self) -> FlagDoc {
        FlagDoc {
            long: self.long,
            short: self.short,
            value: match self.takes {
                Takes::Nothing(_) => None,
                Takes::Value(name, _) => Some(name),
            },
            repeatable: self.repeatable,
            default: self.default,
            choices: self.choices,
            help: self.help,
        }
    }
}

/// The positional arguments of a command line that takes some.
pub(crate) struct Positionals<O> {
    /// What one is, in messages (`shell`).
    pub what: &'static str,
    /// The only values accepted; empty for any. Completions offer them.
    pub choices: &'static [&'static str],
    /// Takes the next one (refusing one too many).
    pub add: fn(&mut O, String) -> Result<(), UsageError>,
}

/// A command line: the generator's run, or one of its subcommands.
pub(crate) struct CommandLine<O: 'static> {
    /// The subcommand (`can-i`), or `""` for the generator's own run.
    pub name: &'static str,
    /// One line, for the generator's list of subcommands.
    pub summary: &'static str,
    /// What it does: the help's first paragraphs (lines wrapped when rendered).
    pub about: &'static str,
    /// Each usage line, after `<bin> <name> `.
    pub usage: &'static [&'static str],
    /// Its positional arguments; `None` refuses any.
    pub positionals: Option<Positionals<O>>,
    /// Its flags, in help's order; `-h`/`--help` comes with every command line.
    pub flags: &'static [Flag<O>],
    /// The help's last paragraphs (lines wrapped when rendered).
    pub notes: &'static str,
}

/// What [`CommandLine::parse`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// `-h` or `--help`: the options are incomplete.
    Help,
    /// Every argument was applied to the options.
    Args,
}

impl<O> CommandLine<O> {
    /// Applies `args` to `opts`, word by word, stopping at `--help`. Checks what the table
    /// says (known, not repeated, a value or none, non-empty, one of the choices); what
    /// depends on several flags is the caller's.
    pub(crate) fn parse(
        &self,
        opts: &mut O,
        args: impl IntoIterator<Item = String>,
    ) -> Result<Parsed, UsageError> {
        let mut args = args.into_iter();
        let mut seen: Vec<&'static str> = Vec::new();
        let mut only_positional = false;
        while let Some(arg) = args.next() {
            if only_positional || arg == "-" || !arg.starts_with('-') {
                self.positional(opts, arg)?;
                continue;
            }
            if arg == "--" {
                only_positional = true;
                continue;
            }
            let Found::Flag(flag, inline) = self.find(&arg)? else {
                return Ok(Parsed::Help);
            };
            if !flag.repeatable && seen.contains(&flag.long) {
                return Err(UsageError::Repeated { flag: flag.name() });
            }
            seen.push(flag.long);
            match &flag.takes {
                Takes::Nothing(set) => {
                    if inline.is_some() {
                        return Err(UsageError::TakesNoValue { flag: flag.name() });
                    }
                    set(opts);
                }
                Takes::Value(name, set) => {
                    let value = match inline {
                        Some(v) => v,
                        // A flag is never a value; `-` (stdin, in kubectl) is.
                        None => args
                            .next()
                            .filter(|v| !v.starts_with('-') || v == "-")
                            .ok_or_else(|| UsageError::NeedsValue { flag: flag.name() })?,
                    };
                    if value.is_empty() {
                        return Err(UsageError::EmptyValue { flag: flag.name() });
                    }
                    if !flag.choices.is_empty() && !flag.choices.contains(&value.as_str()) {
                        let why = format!(
                            "is not a {}: use {}",
                            name.to_lowercase(),
                            one_of(flag.choices)
                        );
                        return Err(invalid(&flag.name(), value, why));
                    }
                    set(opts, value)?;
                }
            }
        }
        Ok(Parsed::Args)
    }

    fn positional(&self, opts: &mut O, arg: String) -> Result<(), UsageError> {
        let Some(positionals) = &self.positionals else {
            let suggestion = did_you_mean(&arg, &self.long_names()).map(str::to_string);
            return Err(UsageError::UnexpectedArgument { arg, suggestion });
        };
        if !positionals.choices.is_empty() && !positionals.choices.contains(&arg.as_str()) {
            let why = format!(
                "is not a {}: use {}",
                positionals.what,
                one_of(positionals.choices)
            );
            return Err(UsageError::InvalidArgument { arg, why });
        }
        (positionals.add)(opts, arg)
    }

    /// The flag `arg` spells, and its value if written in the same word.
    fn find(&self, arg: &str) -> Result<Found<'_, O>, UsageError> {
        let (flag, inline) = if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (long, None),
            };
            if name == "help" {
                return Ok(Found::Help);
            }
            let Some(flag) = self.flags.iter().find(|f| f.long == name) else {
                let suggestion = did_you_mean(name, &self.long_names()).map(str::to_string);
                return Err(UsageError::UnknownOption {
                    arg: arg.to_string(),
                    suggestion,
                });
            };
            (flag, inline)
        } else {
            // `-n value`, `-nvalue`, `-n=value`.
            let short = &arg[1..];
            let letter = short.chars().next().unwrap_or_default();
            let rest = &short[letter.len_utf8()..];
            if letter == 'h' {
                return Ok(Found::Help);
            }
            let Some(flag) = self.flags.iter().find(|f| f.short == Some(letter)) else {
                // `-check` is a long flag with one dash; a lone letter suggests nothing.
                let suggestion = (!rest.is_empty())
                    .then(|| did_you_mean(short, &self.long_names()))
                    .flatten()
                    .map(str::to_string);
                return Err(UsageError::UnknownOption {
                    arg: arg.to_string(),
                    suggestion,
                });
            };
            let inline =
                (!rest.is_empty()).then(|| rest.strip_prefix('=').unwrap_or(rest).to_string());
            (flag, inline)
        };
        Ok(Found::Flag(flag, inline))
    }

    fn long_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.flags.iter().map(|f| f.long).collect();
        names.push("help");
        names
    }
}

/// What a word starting with `-` names.
enum Found<'a, O> {
    /// `-h`, `--help`.
    Help,
    /// A flag of the table, and the value written in the same word (`--flag=value`, `-nvalue`).
    Flag(&'a Flag<O>, Option<String>),
}

/// `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``.
pub(crate) fn one_of(choices: &[&str]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
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

/// A flag as help and completions see it: [`Flag`] without the options it sets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlagDoc {
    /// Its name without `--`.
    pub long: &'static str,
    /// Its one-letter spelling.
    pub short: Option<char>,
    /// The name of its value; `None` for a switch.
    pub value: Option<&'static str>,
    /// May be given more than once.
    pub repeatable: bool,
    /// What applies without it.
    pub default: Option<&'static str>,
    /// The only values it accepts; empty for any.
    pub choices: &'static [&'static str],
    /// Its help paragraph.
    pub help: &'static str,
}

/// A command line as help and completions see it, whatever its options' type.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    /// [`CommandLine::name`].
    pub name: &'static str,
    /// [`CommandLine::summary`].
    pub summary: &'static str,
    /// [`CommandLine::about`].
    pub about: &'static str,
    /// [`CommandLine::usage`].
    pub usage: &'static [&'static str],
    /// The choices of its positional arguments (empty for any); `None` if it takes none.
    pub positionals: Option<&'static [&'static str]>,
    /// Its flags, then `--help`.
    pub flags: Vec<FlagDoc>,
    /// [`CommandLine::notes`].
    pub notes: &'static str,
}

/// A command line of any options' type: what the table of subcommands holds.
pub(crate) trait Described: Sync {
    /// [`CommandLine::name`].
    fn name(&self) -> &'static str;

    /// Its help and completions' view.
    fn doc(&self) -> Doc;
}

impl<O> Described for CommandLine<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn doc(&self) -> Doc {
        let mut flags: Vec<FlagDoc> = self.flags.iter().map(Flag::doc).collect();
        flags.push(FlagDoc {
            long: "help",
            short: Some('h'),
            value: None,
            repeatable: false,
            default: None,
            choices: &[],
            help: "Print this help",
        });
        Doc {
            name: self.name,
            summary: self.summary,
            about: self.about,
            usage: self.usage,
            positionals: self.positionals.as_ref().map(|p| p.choices),
            flags,
            notes: self.notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What was read, in order, to see where each flag and argument went.
    #[derive(Debug, PartialEq, Eq)]
    enum Word {
        Positional(String),
        Help,
        Switch(&'static str),
        Value(&'static str, String),
    }

    /// Names the options' type once, for the closures of the table.
    type F = Flag<Vec<Word>>;

    static LINE: CommandLine<Vec<Word>> = CommandLine {
        name: "test",
        summary: "",
        about: "",
        usage: &[],
        positionals: Some(Positionals {
            what: "argument",
            choices: &[],
            add: |words, arg| {
                words.push(Word::Positional(arg));
                Ok(())
            },
        }),
        flags: &[
            F::value("namespace", "NS", "", |words, v| {
                words.push(Word::Value("--namespace", v));
                Ok(())
            })
            .short('n'),
            F::switch("all-namespaces", "", |words| {
                words.push(Word::Switch("--all-namespaces"))
            })
            .short('A'),
            F::value("as-group", "GROUP", "", |words, v| {
                words.push(Word::Value("--as-group", v));
                Ok(())
            })
            .repeatable(),
            F::value("format", "FORMAT", "", |words, v| {
                words.push(Word::Value("--format", v));
                Ok(())
            })
            .choices(&["text", "json"]),
        ],
        notes: "",
    };

    fn read(args: &[&str]) -> Result<Vec<Word>, UsageError> {
        let mut words = Vec::new();
        if LINE.parse(&mut words, args.iter().map(|a| a.to_string()))? == Parsed::Help {
            words.push(Word::Help);
        }
        Ok(words)
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
            super::super::kubectl::namespace("Web".into())
                .unwrap_err()
                .to_string()
                .starts_with("`--namespace Web` is not")
        );
        assert!(super::super::kubectl::subresource("a/b".into()).is_err());
    }

    #[test]
    fn choices_help_and_one_dash_long_flags() {
        let err = |args: &[&str]| read(args).unwrap_err().to_string();
        assert_eq!(
            err(&["--format", "yaml"]),
            "`--format yaml` is not a format: use `text` or `json`"
        );
        assert_eq!(
            read(&["--format=json"]).unwrap(),
            [value("--format", "json")]
        );
        // `-format` is no `-f`: it is named, with the flag it resembles.
        assert_eq!(
            err(&["-format"]),
            "unknown option `-format` (did you mean `--format`?)"
        );
        assert_eq!(read(&["--help=x"]).unwrap(), [Word::Help]);
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
        assert_eq!(one_of(&["a"]), "`a`");
    }

    #[test]
    fn a_command_line_without_positionals_suggests_the_flag() {
        let line: CommandLine<Vec<Word>> = CommandLine {
            name: "test",
            summary: "",
            about: "",
            usage: &[],
            positionals: None,
            flags: LINE.flags,
            notes: "",
        };
        let mut words = Vec::new();
        assert_eq!(
            line.parse(&mut words, ["format".to_string()]),
            Err(UsageError::UnexpectedArgument {
                arg: "format".into(),
                suggestion: Some("format".into())
            })
        );
        assert!(line.parse(&mut words, ["--".into(), "x".into()]).is_err());
    }
}
