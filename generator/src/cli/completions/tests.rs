use super::*;
use crate::cli;
use std::process::Command;

fn docs() -> Vec<Doc> {
    cli::command_lines().iter().map(|l| l.doc()).collect()
}

/// `-n`, `--namespace`: how bash and zsh name a flag.
fn spellings(flag: &FlagDoc) -> Vec<String> {
    let mut spellings = vec![format!("--{}", flag.long)];
    spellings.extend(flag.short.map(|c| format!("-{c}")));
    spellings
}

#[test]
fn every_flag_of_every_command_line_is_in_every_script() {
    let zsh = script(Shell::Zsh, "gen");
    let fish = script(Shell::Fish, "gen");
    let bash = script(Shell::Bash, "gen");
    for doc in docs() {
        // zsh: in the `_arguments` of its command (the generator's own come last).
        let arm = match doc.name {
            "" => zsh.rsplit("    fi\n").next().unwrap(),
            name => {
                let start = zsh.find(&format!("            ({name})\n")).unwrap();
                &zsh[start..start + zsh[start..].find("return ;;").unwrap()]
            }
        };
        for flag in &doc.flags {
            for spelling in spellings(flag) {
                let in_zsh = ["[", "=[", "+["]
                    .iter()
                    .any(|then| arm.contains(&format!("{spelling}{then}")));
                assert!(in_zsh, "zsh {spelling}:\n{arm}");
                assert!(bash.contains(&spelling), "bash {spelling}");
            }
            let mut fish_flag = format!("-l {}", flag.long);
            if let Some(c) = flag.short {
                fish_flag.push_str(&format!(" -s {c}"));
            }
            let wanted = match doc.name {
                "" => format!("-n '__fish_gen_command_is' {fish_flag}"),
                name => format!("-n '__fish_gen_command_is {name}' {fish_flag}"),
            };
            assert!(fish.contains(&wanted), "fish {wanted}:\n{fish}");
        }
    }
    for sub in cli::SUBCOMMANDS {
        let name = sub.line.name();
        assert!(fish.contains(&format!("-a {name} -d '")), "fish {name}");
        assert!(zsh.contains(&format!("{name}\\:\"")), "zsh {name}");
    }
    assert!(zsh.starts_with("#compdef gen\n") && zsh.contains("compdef _gen gen"));
    assert!(bash.ends_with("complete -F _gen gen\n"));
}

/// What bash completes for `words` (the last is the word under the cursor), in `dir`; `None`
/// without a bash to ask.
fn complete(dir: &std::path::Path, words: &[&str]) -> Option<Vec<String>> {
    let file = dir.join("gen.bash");
    std::fs::write(&file, script(Shell::Bash, "gen")).unwrap();
    let out = Command::new("bash")
        .current_dir(dir)
        .args(["--norc", "--noprofile", "-c"])
        .arg(
            "source \"$1\" || exit 9; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 )); \
             _gen; printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .arg("bash")
        .arg(&file)
        .args(words)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    words.sort();
    Some(words)
}

fn sorted(words: &[&str]) -> Vec<String> {
    let mut words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    words.sort();
    words
}

#[test]
fn bash_completes_each_command_lines_flags_and_values() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("role.yaml"), "").unwrap();
    let Some(commands) = complete(dir.path(), &["gen", ""]) else {
        eprintln!("no bash: skipped");
        return;
    };
    assert_eq!(
        commands,
        sorted(&["explain", "can-i", "calls", "check-crds", "completions"])
    );
    for doc in docs() {
        let mut line = vec!["gen"];
        if !doc.name.is_empty() {
            line.push(doc.name);
        }
        line.push("-");
        let flags: Vec<String> = doc.flags.iter().flat_map(spellings).collect();
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        assert_eq!(
            complete(dir.path(), &line).unwrap(),
            sorted(&flags),
            "{line:?}"
        );
    }
    let c = |words: &[&str]| complete(dir.path(), words).unwrap();
    assert_eq!(
        c(&["gen", "explain", "--format", ""]),
        sorted(&["text", "json"])
    );
    assert_eq!(c(&["gen", "completions", "f"]), ["fish"]);
    assert_eq!(c(&["gen", "--header-file", "ro"]), ["role.yaml"]);
    assert_eq!(
        c(&["gen", "can-i", "get", "pods", "-n", ""]),
        Vec::<String>::new()
    );
    // A subcommand's name only as the first argument.
    assert_eq!(c(&["gen", "--check", "ex"]), Vec::<String>::new());
}

#[test]
fn the_command_line_names_the_shell() {
    let parse = |args: &[&str]| parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    let err = |args: &[&str]| parse(args).unwrap_err().to_string();
    assert_eq!(parse(&["zsh"]), Ok(Some(Shell::Zsh)));
    assert_eq!(parse(&["fish"]), Ok(Some(Shell::Fish)));
    assert_eq!(parse(&["bash"]), Ok(Some(Shell::Bash)));
    assert_eq!(parse(&["-h"]), Ok(None));
    assert_eq!(err(&[]), "missing SHELL: use `bash`, `zsh` or `fish`");
    assert_eq!(
        err(&["fsh"]),
        "`fsh` is not a shell: use `bash`, `zsh` or `fish`"
    );
    assert_eq!(err(&["bash", "zsh"]), "unexpected argument `zsh`");
    assert_eq!(err(&["--bash"]), "unknown option `--bash`");
}

#[test]
fn descriptions_are_one_clause_and_quoted() {
    assert_eq!(brief("Print this help"), "Print this help");
    assert_eq!(brief("One; two. Three"), "One; two");
    let long = "Fail (exit 1, writing nothing) if there is any warning: a lint of an #[rbac] \
                attribute that no allow(...) accepts";
    assert_eq!(
        brief(long),
        "Fail (exit 1, writing nothing) if there is any warning"
    );
    assert_eq!(zsh_text("it's [a] `b`: c"), "it'\\''s a b\\: c");
    assert_eq!(fish_text("it's \\"), "it\\'s \\\\");
    assert_eq!(ident("my-gen.1"), "my_gen_1");
}
