//! `completions SHELL`: a bash, zsh or fish completion script for the generator, written from
//! the same tables as its parser and help, so it knows every subcommand and flag.

use super::flags::{CommandLine, Described, Doc, FlagDoc, Positionals, one_of};
use crate::invocation::Invocation;
use crate::usage::UsageError;
use std::fmt::Write as _;
use std::process::ExitCode;

/// A shell the generator writes completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shell {
    /// bash (4 or later: `compopt`).
    Bash,
    /// zsh, with `compinit`.
    Zsh,
    /// fish.
    Fish,
}

const SHELLS: &[&str] = &["bash", "zsh", "fish"];

/// `completions`' command line; its options are the shell asked for.
pub(crate) static COMMAND_LINE: CommandLine<Option<Shell>> = CommandLine {
    name: "completions",
    summary: "Print a shell completion script (bash, zsh or fish) for this generator",
    about: "Print a completion script for this generator's subcommands, flags and their values, \
            for bash, zsh or fish. It completes `{bin}` as a command on the PATH.",
    usage: &["SHELL"],
    positionals: Some(Positionals {
        what: "shell",
        choices: SHELLS,
        add: |shell, arg| {
            if shell.is_some() {
                return Err(UsageError::UnexpectedArgument {
                    arg,
                    suggestion: None,
                });
            }
            // The parser accepted only `SHELLS`.
            *shell = Some(match arg.as_str() {
                "zsh" => Shell::Zsh,
                "fish" => Shell::Fish,
                _ => Shell::Bash,
            });
            Ok(())
        },
    }),
    flags: &[],
    notes: "bash: source <({bin} completions bash) in ~/.bashrc\n\
            zsh: {bin} completions zsh > ~/.zfunc/_{bin}, with ~/.zfunc in $fpath before compinit\n\
            fish: {bin} completions fish > ~/.config/fish/completions/{bin}.fish",
};

/// The shell `completions` is asked for; `None` for `--help`.
fn parse(args: &[String]) -> Result<Option<Shell>, UsageError> {
    let mut shell = None;
    if COMMAND_LINE.parse(&mut shell, args.iter().cloned())? == super::flags::Parsed::Help {
        return Ok(None);
    }
    match shell {
        Some(shell) => Ok(Some(shell)),
        None => Err(UsageError::MissingArgument {
            what: format!("SHELL: use {}", one_of(SHELLS)),
        }),
    }
}

/// `<bin> completions SHELL`: prints the script; exit 2 for a bad command line.
pub fn main(args: &[String]) -> ExitCode {
    match parse(args) {
        Ok(None) => super::print_help(&COMMAND_LINE),
        Ok(Some(shell)) => {
            print!("{}", script(shell, &Invocation::current().bin));
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(&COMMAND_LINE, &e),
    }
}

/// The completion script of the generator run as `bin`, for `shell`.
pub fn script(shell: Shell, bin: &str) -> String {
    let top = super::generate::COMMAND_LINE.doc();
    let subcommands: Vec<Doc> = super::SUBCOMMANDS.iter().map(|s| s.line.doc()).collect();
    match shell {
        Shell::Bash => bash(bin, &top, &subcommands),
        Shell::Zsh => zsh(bin, &top, &subcommands),
        Shell::Fish => fish(bin, &top, &subcommands),
    }
}

/// `bin` as part of a shell function's name.
fn ident(bin: &str) -> String {
    bin.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A path, or a directory: the shell completes file names.
fn takes_path(flag: &FlagDoc) -> bool {
    matches!(flag.value, Some("PATH" | "DIR" | "FILE"))
}

/// The help's first sentence, cut before a clause if still long: completion menus show one
/// short line.
fn brief(help: &str) -> &str {
    let sentence = help
        .split(". ")
        .next()
        .unwrap_or(help)
        .trim_end_matches('.');
    if sentence.len() <= 80 {
        return sentence;
    }
    // The first clause long enough to say something.
    let end = ["; ", ": ", " ("]
        .iter()
        .filter_map(|stop| Some(20 + sentence.get(20..)?.find(stop)?))
        .min()
        .unwrap_or(sentence.len());
    &sentence[..end]
}

fn names(subcommands: &[Doc]) -> Vec<&'static str> {
    subcommands.iter().map(|s| s.name).collect()
}

fn bash(bin: &str, top: &Doc, subcommands: &[Doc]) -> String {
    let function = format!("_{}", ident(bin));
    let names = names(subcommands);
    let mut s = format!(
        "# bash completion for {bin}; load it with: source <({bin} completions bash)\n\
         {function}() {{\n    \
             local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\" command=\"\"\n    \
             if (( COMP_CWORD > 1 )); then\n        \
                 case \"${{COMP_WORDS[1]}}\" in\n            \
                     {}) command=\"${{COMP_WORDS[1]}}\" ;;\n        \
                 esac\n    \
             fi\n    \
             case \"$command\" in\n",
        names.join("|")
    );
    for sub in subcommands {
        let offer = sub
            .positionals
            .filter(|c| !c.is_empty())
            .map(|c| c.join(" "));
        bash_case(&mut s, sub.name, sub, offer.as_deref(), "");
    }
    // The generator's own flags, or a subcommand's name as its first argument.
    bash_case(
        &mut s,
        "*",
        top,
        Some(&names.join(" ")),
        "(( COMP_CWORD == 1 )) && ",
    );
    let _ = write!(s, "    esac\n}}\ncomplete -F {function} {bin}\n");
    s
}

fn bash_case(s: &mut String, pattern: &str, doc: &Doc, offer: Option<&str>, when: &str) {
    let _ = writeln!(s, "        {pattern})");
    let valued: Vec<&FlagDoc> = doc.flags.iter().filter(|f| f.value.is_some()).collect();
    if !valued.is_empty() {
        s.push_str("            case \"$prev\" in\n");
    }
    let spellings = |flag: &FlagDoc| {
        let mut spellings = vec![format!("--{}", flag.long)];
        spellings.extend(flag.short.map(|c| format!("-{c}")));
        spellings.join("|")
    };
    for flag in &valued {
        let reply = if !flag.choices.is_empty() {
            format!(
                "COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))",
                flag.choices.join(" ")
            )
        } else if takes_path(flag) {
            "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))".to_string()
        } else {
            // A name or a number: nothing to offer.
            "COMPREPLY=()".to_string()
        };
        let _ = writeln!(s, "                {}) {reply}; return ;;", spellings(flag));
    }
    if !valued.is_empty() {
        s.push_str("            esac\n");
    }
    if let Some(offer) = offer {
        let _ = writeln!(
            s,
            "            if {when}[[ \"$cur\" != -* ]]; then\n                \
                 COMPREPLY=($(compgen -W \"{offer}\" -- \"$cur\")); return\n            \
             fi"
        );
    }
    let flags: Vec<String> = doc
        .flags
        .iter()
        .flat_map(|f| {
            let mut spellings = vec![format!("--{}", f.long)];
            spellings.extend(f.short.map(|c| format!("-{c}")));
            spellings
        })
        .collect();
    let _ = writeln!(
        s,
        "            COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")) ;;",
        flags.join(" ")
    );
}

/// Text inside a single-quoted zsh `_arguments` spec: no quoting character is left to
/// misread.
fn zsh_text(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '`' | '"' | '\\' | '$' | '[' | ']'))
        .collect::<String>()
        .replace('\'', "'\\''")
        .replace(':', "\\:")
}

fn zsh_specs(doc: &Doc) -> Vec<String> {
    let mut specs = Vec::new();
    for flag in &doc.flags {
        let description = zsh_text(brief(flag.help));
        let argument = flag.value.map(|value| {
            let action = if !flag.choices.is_empty() {
                format!("({})", flag.choices.join(" "))
            } else if flag.value == Some("DIR") {
                "_files -/".to_string()
            } else if takes_path(flag) {
                "_files".to_string()
            } else {
                " ".to_string()
            };
            format!(":{value}:{action}")
        });
        let mut spellings = vec![(
            format!("--{}", flag.long),
            if argument.is_some() { "=" } else { "" },
        )];
        spellings.extend(
            flag.short
                .map(|c| (format!("-{c}"), if argument.is_some() { "+" } else { "" })),
        );
        let exclusion = if flag.repeatable {
            "*".to_string()
        } else if flag.short.is_some() {
            let all: Vec<&str> = spellings.iter().map(|(s, _)| s.as_str()).collect();
            format!("({})", all.join(" "))
        } else {
            String::new()
        };
        for (spelling, joined) in &spellings {
            specs.push(format!(
                "'{exclusion}{spelling}{joined}[{description}]{}'",
                argument.as_deref().unwrap_or_default()
            ));
        }
    }
    match doc.positionals {
        Some([]) => specs.push("'*:argument: '".to_string()),
        Some(choices) => specs.push(format!("'1:argument:({})'", choices.join(" "))),
        None => {}
    }
    specs
}

fn zsh(bin: &str, top: &Doc, subcommands: &[Doc]) -> String {
    let function = format!("_{}", ident(bin));
    let arguments = |specs: Vec<String>, indent: &str| {
        let mut text = "_arguments -s -S".to_string();
        for spec in specs {
            let _ = write!(text, " \\\n{indent}    {spec}");
        }
        text
    };
    let mut s = format!(
        "#compdef {bin}\n\
         # zsh completion for {bin}; load it with: source <({bin} completions zsh),\n\
         # or save it as {function} in a directory of $fpath\n\n\
         {function}() {{\n    \
             if (( CURRENT > 2 )); then\n        \
                 local command=${{words[2]}}\n        \
                 case $command in\n"
    );
    for sub in subcommands {
        let _ = writeln!(
            s,
            "            ({})\n                shift words\n                (( CURRENT-- ))\n                \
             {}\n                return ;;",
            sub.name,
            arguments(zsh_specs(sub), "                ")
        );
    }
    let mut specs = zsh_specs(top);
    let commands: Vec<String> = subcommands
        .iter()
        .map(|c| format!("{}\\:\"{}\"", c.name, zsh_text(brief(c.summary))))
        .collect();
    specs.push(format!("'1:command:(({}))'", commands.join(" ")));
    let _ = write!(
        s,
        "        esac\n    fi\n    {}\n}}\n\n\
         if [[ $funcstack[1] == {function} ]]; then\n    {function} \"$@\"\nelse\n    \
         compdef {function} {bin}\nfi\n",
        arguments(specs, "    ")
    );
    s
}

/// Text inside single quotes, for fish.
fn fish_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

fn fish_flags(s: &mut String, bin: &str, condition: &str, doc: &Doc) {
    for flag in &doc.flags {
        let mut line = format!("complete -c {bin} -n '{condition}' -l {}", flag.long);
        if let Some(c) = flag.short {
            let _ = write!(line, " -s {c}");
        }
        if !flag.choices.is_empty() {
            let _ = write!(line, " -x -a '{}'", flag.choices.join(" "));
        } else if takes_path(flag) {
            line.push_str(" -r -F");
        } else if flag.value.is_some() {
            line.push_str(" -x");
        }
        let _ = writeln!(s, "{line} -d '{}'", fish_text(brief(flag.help)));
    }
}

fn fish(bin: &str, top: &Doc, subcommands: &[Doc]) -> String {
    let is = format!("__fish_{}_command_is", ident(bin));
    let names = names(subcommands).join(" ");
    let mut s = format!(
        "# fish completion for {bin}; load it with: {bin} completions fish | source\n\
         function {is} --description 'Whether the subcommand on the line is argv[1] (none without one)'\n    \
             set -l words (commandline -opc)\n    \
             if test (count $words) -ge 2; and contains -- $words[2] {names}\n        \
                 test \"$words[2]\" = \"$argv[1]\"\n    \
             else\n        \
                 test -z \"$argv[1]\"\n    \
             end\n\
         end\n\
         complete -c {bin} -f\n"
    );
    fish_flags(&mut s, bin, &is, top);
    for sub in subcommands {
        let _ = writeln!(
            s,
            "complete -c {bin} -n 'test (count (commandline -opc)) -eq 1' -a {} -d '{}'",
            sub.name,
            fish_text(brief(sub.summary))
        );
    }
    for sub in subcommands {
        let condition = format!("{is} {}", sub.name);
        fish_flags(&mut s, bin, &condition, sub);
        if let Some(choices) = sub.positionals.filter(|c| !c.is_empty()) {
            let _ = writeln!(
                s,
                "complete -c {bin} -n '{condition}' -a '{}'",
                choices.join(" ")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests;
