//! `--help`, rendered from a command line's table and wrapped at word boundaries, so that no
//! flag's text is cut and none can be left out.

use super::flags::{Doc, FlagDoc};
use crate::invocation::Invocation;
use std::fmt::Write as _;

/// Help is wrapped to this many columns (a word longer than a line stays whole).
pub(crate) const WIDTH: usize = 100;

/// Where the flags' help starts; a flag written wider gets a line of its own.
const GUTTER: usize = 30;

/// The help of `doc`, naming the generator as `inv` runs it. `commands`, for the generator's
/// own help, are its subcommands.
pub(crate) fn render(doc: &Doc, inv: &Invocation, commands: &[Doc]) -> String {
    let mut out = String::new();
    push_paragraphs(&mut out, &fill(doc.about, inv));
    out.push('\n');
    let command = match doc.name {
        "" => inv.bin.clone(),
        name => format!("{} {name}", inv.bin),
    };
    for (i, usage) in doc.usage.iter().enumerate() {
        let head = if i == 0 { "Usage:" } else { "      " };
        let _ = writeln!(out, "{head} {command} {usage}");
    }
    if !commands.is_empty() {
        let _ = writeln!(
            out,
            "\nCommands (`{} COMMAND --help` for each one's arguments):",
            inv.bin
        );
        let width = commands.iter().map(|c| c.name.len()).max().unwrap_or(0) + 4;
        for c in commands {
            push_column(
                &mut out,
                &format!("  {}", c.name),
                &fill(c.summary, inv),
                width,
            );
        }
    }
    out.push_str("\nOptions:\n");
    for flag in &doc.flags {
        push_column(&mut out, &flag_column(flag), &flag_text(flag, inv), GUTTER);
    }
    if !doc.notes.is_empty() {
        out.push('\n');
        push_paragraphs(&mut out, &fill(doc.notes, inv));
    }
    out
}

/// `  -n, --namespace <NS>`, `      --check`.
fn flag_column(flag: &FlagDoc) -> String {
    let short = match flag.short {
        Some(letter) => format!("-{letter}, "),
        None => "    ".to_string(),
    };
    let value = flag.value.map(|v| format!(" <{v}>")).unwrap_or_default();
    format!("  {short}--{}{value}", flag.long)
}

/// Keeps words on one line when wrapped; a space when printed.
const GLUE: &str = "\u{a0}";

/// The flag's paragraph, its choices and its default, each bracket glued into one word (so
/// that no line break splits it).
pub(crate) fn flag_text(flag: &FlagDoc, inv: &Invocation) -> String {
    let mut text = fill(flag.help, inv);
    let mut brackets = Vec::new();
    if !flag.choices.is_empty() {
        brackets.push(format!("[possible values: {}]", flag.choices.join(", ")));
    }
    if let Some(default) = flag.default {
        brackets.push(format!("[default: {default}]"));
    }
    for bracket in brackets {
        text.push(' ');
        text.push_str(&bracket.replace(' ', GLUE));
    }
    text
}

/// `{bin}` and `{rerun}` in a table's text, for this generator.
pub(crate) fn fill(text: &str, inv: &Invocation) -> String {
    text.replace("{bin}", &inv.bin)
        .replace("{rerun}", &inv.rerun())
}

/// `left`, then `text` wrapped beside it from column `gutter` (below it, if `left` is wider).
fn push_column(out: &mut String, left: &str, text: &str, gutter: usize) {
    let lines: Vec<String> = wrap(text, WIDTH - gutter)
        .into_iter()
        .map(|line| line.replace(GLUE, " "))
        .collect();
    let mut lines = lines.iter();
    if left.len() + 2 <= gutter {
        let first = lines.next().map_or("", String::as_str);
        let _ = writeln!(out, "{}", format!("{left:<gutter$}{first}").trim_end());
    } else {
        let _ = writeln!(out, "{left}");
    }
    for line in lines {
        let _ = writeln!(out, "{:gutter$}{line}", "");
    }
}

/// Each line of `text` wrapped to [`WIDTH`]; an empty line separates paragraphs.
fn push_paragraphs(out: &mut String, text: &str) {
    for line in wrap(text, WIDTH) {
        out.push_str(&line);
        out.push('\n');
    }
}

/// `text`'s lines (`\n` breaks one), each broken between words into lines of at most `width`
/// columns.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for source in text.split('\n') {
        let mut line = String::new();
        for word in source.split(' ').filter(|w| !w.is_empty()) {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli;

    fn words(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn invocation() -> Invocation {
        Invocation {
            package: Some("xtask".into()),
            bin: "gen".into(),
            package_dir: None,
        }
    }

    #[test]
    fn every_flags_whole_text_is_in_every_help() {
        let inv = invocation();
        for line in cli::command_lines() {
            let doc = line.doc();
            let help = cli::render_help(line, &inv);
            let flat = words(&help);
            for flag in &doc.flags {
                let text = words(&flag_text(flag, &inv));
                let column = words(&flag_column(flag));
                assert!(
                    flat.contains(&format!("{column} {text}")),
                    "`{}`'s help lacks `{column} {text}`:\n{help}",
                    doc.name
                );
            }
            assert!(flat.contains(&words(&fill(doc.about, &inv))), "{help}");
            assert!(flat.contains(&words(&fill(doc.notes, &inv))), "{help}");
            let usage = match doc.name {
                "" => "Usage: gen ".to_string(),
                name => format!("Usage: gen {name} "),
            };
            assert!(help.contains(&usage), "{help}");
            for line in help.lines() {
                assert!(
                    line.chars().count() <= WIDTH || !line.trim().contains(' '),
                    "{} columns: {line}",
                    line.chars().count()
                );
            }
        }
    }

    #[test]
    fn the_generators_help_lists_the_subcommands_and_reruns_as_invoked() {
        let help = cli::render_help(&cli::generate::COMMAND_LINE, &invocation());
        for sub in cli::SUBCOMMANDS {
            let doc = sub.line.doc();
            assert!(
                words(&help).contains(&format!("{} {}", doc.name, words(doc.summary))),
                "{help}"
            );
        }
        // The text `codegen --help` once cut after "or any other".
        assert!(words(&help).contains("accepts, or any other warning known before writing"));
        assert!(
            help.contains("run `cargo run -p xtask --bin gen`"),
            "{help}"
        );
        assert!(!help.contains("{rerun}") && !help.contains("{bin}"));
    }

    #[test]
    fn wrapping_breaks_between_words_only() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("aa\n\nb", 5), ["aa", "", "b"]);
        assert_eq!(wrap("a-very-long-word b", 4), ["a-very-long-word", "b"]);
        assert_eq!(wrap("", 4), [""]);
        let mut out = String::new();
        push_column(&mut out, "  --a", "one two three", 10);
        assert_eq!(out, "  --a     one two three\n");
        let mut out = String::new();
        push_column(&mut out, "  --a-long-flag", "x", 10);
        assert_eq!(out, "  --a-long-flag\n          x\n");
    }
}
