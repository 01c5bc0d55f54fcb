//! The command lines of the generator: its run ([`generate`]), and its subcommands `explain`
//! and `can-i` (whose resource arguments are kubectl's, [`kubectl`]) and [`completions`]. Each
//! is one table of flags (`flags.rs`) from which it is parsed, its help rendered (`help.rs`)
//! and its shell completions written.
//!
//! A new subcommand is a `flags::CommandLine` (its name, summary, help and flags), a
//! `main(&[String]) -> ExitCode` that parses with it, and one row of `SUBCOMMANDS`: the
//! generator's help, its dispatch and the completion scripts then know it.

pub(crate) mod calls;
pub mod can_i;
pub mod check_crds;
pub mod completions;
pub mod explain;
pub(crate) mod flags;
mod format;
pub mod generate;
mod github;
mod help;
pub mod kubectl;
pub mod upgrade;

use crate::invocation::Invocation;
use crate::usage::UsageError;
use flags::Described;
use std::process::ExitCode;

/// A subcommand of the generator (`<bin> NAME ...`).
pub(crate) struct Subcommand {
    /// Its command line: name, one-line summary, help and flags.
    pub line: &'static dyn Described,
    /// Parses the arguments after its name, runs, and returns the exit code.
    pub main: fn(&[String]) -> ExitCode,
}

/// Every subcommand, in the order the generator's help lists them.
pub(crate) static SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        line: &explain::COMMAND_LINE,
        main: explain::main,
    },
    Subcommand {
        line: &can_i::COMMAND_LINE,
        main: can_i::main,
    },
    Subcommand {
        line: &calls::COMMAND_LINE,
        main: calls::main,
    },
    Subcommand {
        line: &check_crds::COMMAND_LINE,
        main: check_crds::main,
    },
    Subcommand {
        line: &completions::COMMAND_LINE,
        main: completions::main,
    },
];

/// The subcommand named `name`.
pub(crate) fn subcommand(name: &str) -> Option<&'static Subcommand> {
    SUBCOMMANDS.iter().find(|s| s.line.name() == name)
}

/// The generator's run, then each subcommand (for the tests that go through them all).
#[cfg(test)]
pub(crate) fn command_lines() -> Vec<&'static dyn Described> {
    let mut lines: Vec<&'static dyn Described> = vec![&generate::COMMAND_LINE];
    lines.extend(SUBCOMMANDS.iter().map(|s| s.line));
    lines
}

/// The help of `line`; the generator's own lists the subcommands.
pub(crate) fn render_help(line: &dyn Described, inv: &Invocation) -> String {
    let doc = line.doc();
    let commands: Vec<flags::Doc> = if doc.name.is_empty() {
        SUBCOMMANDS.iter().map(|s| s.line.doc()).collect()
    } else {
        Vec::new()
    };
    help::render(&doc, inv, &commands)
}

/// Prints `line`'s help for `--help`.
pub(crate) fn print_help(line: &dyn Described) -> ExitCode {
    print_out(&render_help(line, &Invocation::current()));
    ExitCode::SUCCESS
}

/// Writes `text` to standard output. A reader that went away (`| head -1`) is no error: what
/// it did not read is not wanted, and `print!` would panic.
pub(crate) fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Prints a command line's error and where its help is; exit 2.
pub(crate) fn usage_error(line: &dyn Described, error: &UsageError) -> ExitCode {
    // The binary as its user named it (`gen can-i --help`), not this repository's.
    let bin = Invocation::current().bin;
    let command = match line.name() {
        "" => bin,
        name => format!("{bin} {name}"),
    };
    eprintln!("error: {error}\n\nRun `{command} --help` for usage.");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_subcommand_is_found_by_its_name_only() {
        for sub in SUBCOMMANDS {
            let name = sub.line.name();
            assert!(!name.is_empty() && !name.starts_with('-'));
            assert!(std::ptr::eq(subcommand(name).unwrap(), sub), "{name}");
            assert!(!sub.line.doc().summary.is_empty(), "{name}");
        }
        assert!(subcommand("").is_none());
        assert!(subcommand("--check").is_none());
    }
}
