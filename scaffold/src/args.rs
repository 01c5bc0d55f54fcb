//! The flags of the scaffolding commands: `--flag value`, `--flag=value`, and switches
//! (`--defaulting`, `--namespaced=false`), as kubebuilder spells them.

use crate::Error;
use std::collections::BTreeMap;

/// A flag a command accepts.
#[derive(Clone, Copy)]
pub struct Flag {
    pub name: &'static str,
    /// Takes a value (`--group cache`); else a switch, `true` unless `=false`.
    pub value: bool,
    pub help: &'static str,
}

/// The flags given, by name; a switch is `"true"` or `"false"`.
#[derive(Debug, Default)]
pub struct Parsed {
    values: BTreeMap<&'static str, String>,
    /// `--help` or `-h` was given.
    pub help: bool,
}

impl Parsed {
    /// The value of `--name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The value of the required `--name`.
    pub fn required(&self, name: &str, command: &str) -> Result<&str, Error> {
        self.get(name).ok_or_else(|| {
            Error::usage(format!(
                "`{command}` needs --{name}.\nRun `{command} --help` for its flags."
            ))
        })
    }

    /// The switch `--name` (`default` when not given).
    pub fn switch(&self, name: &str, default: bool) -> bool {
        self.get(name).map_or(default, |v| v == "true")
    }
}

/// Parses `args` against `flags`; `command` names the command in messages.
pub fn parse(args: &[String], flags: &[Flag], command: &str) -> Result<Parsed, Error> {
    let mut parsed = Parsed::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "-h" || arg == "--help" {
            parsed.help = true;
            continue;
        }
        let Some(body) = arg.strip_prefix("--") else {
            return Err(Error::usage(format!(
                "unexpected argument `{arg}` to `{command}`: every input is a --flag.\nRun \
                 `{command} --help` for its flags."
            )));
        };
        let (name, inline) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            let known: Vec<String> = flags.iter().map(|f| format!("--{}", f.name)).collect();
            return Err(Error::usage(format!(
                "`{command}` has no flag --{name} (it has {}).\nRun `{command} --help`.",
                known.join(", ")
            )));
        };
        let value = if flag.value {
            match inline {
                Some(v) => v,
                None => rest.next().cloned().ok_or_else(|| {
                    Error::usage(format!(
                        "--{name} needs a value: `--{name} VALUE`.\nRun `{command} --help`."
                    ))
                })?,
            }
        } else {
            match inline.as_deref() {
                None | Some("true") => "true".to_string(),
                Some("false") => "false".to_string(),
                Some(other) => {
                    return Err(Error::usage(format!(
                        "--{name}={other}: the switch takes `true` or `false` \
                         (`--{name}` alone is true)."
                    )));
                }
            }
        };
        if value.is_empty() {
            return Err(Error::usage(format!(
                "--{name} is empty: give it a value.\nRun `{command} --help`."
            )));
        }
        if parsed.values.insert(flag.name, value).is_some() {
            return Err(Error::usage(format!(
                "--{name} is given twice: keep one.\nRun `{command} --help`."
            )));
        }
    }
    Ok(parsed)
}

/// The help text of a command: its usage line, what it does, and its flags.
pub fn help(usage: &str, about: &str, flags: &[Flag]) -> String {
    let mut text = format!("{about}\n\nUsage: {usage}\n\nOptions:\n");
    let width = flags.iter().map(|f| f.name.len()).max().unwrap_or(0) + 2;
    for flag in flags {
        text.push_str(&format!(
            "  {:width$}  {}\n",
            format!("--{}", flag.name),
            flag.help
        ));
    }
    text.push_str(&format!("  {:width$}  Print this help\n", "-h, --help"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] = &[
        Flag {
            name: "group",
            value: true,
            help: "",
        },
        Flag {
            name: "namespaced",
            value: false,
            help: "",
        },
    ];

    fn run(args: &[&str]) -> Result<Parsed, Error> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&args, FLAGS, "kube-markers create api")
    }

    #[test]
    fn values_and_switches_in_every_spelling() {
        let p = run(&["--group", "cache", "--namespaced=false"]).unwrap();
        assert_eq!(p.get("group"), Some("cache"));
        assert!(!p.switch("namespaced", true));
        let p = run(&["--group=cache", "--namespaced"]).unwrap();
        assert_eq!(p.get("group"), Some("cache"));
        assert!(p.switch("namespaced", false));
        assert!(run(&[]).unwrap().switch("namespaced", true));
    }

    #[test]
    fn bad_command_lines_say_what_to_do() {
        let e = run(&["--grup", "x"]).unwrap_err();
        assert_eq!(e.code, 2);
        assert!(
            e.message
                .contains("has no flag --grup (it has --group, --namespaced)")
        );
        let e = run(&["--group"]).unwrap_err();
        assert!(e.message.contains("--group needs a value: `--group VALUE`"));
        let e = run(&["--namespaced=no"]).unwrap_err();
        assert!(e.message.contains("takes `true` or `false`"));
        let e = run(&["--group", "a", "--group", "b"]).unwrap_err();
        assert!(e.message.contains("given twice"));
        let e = run(&["cache"]).unwrap_err();
        assert!(e.message.contains("unexpected argument `cache`"));
        let p = run(&[]).unwrap();
        let e = p.required("group", "kube-markers create api").unwrap_err();
        assert!(e.message.contains("needs --group"));
    }
}
