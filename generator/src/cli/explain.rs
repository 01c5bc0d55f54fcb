//! `explain`'s command line: no arguments for every rule, or `can-i`'s question grammar.

use super::flags::{CommandLine, Flag, Parsed, Positionals, invalid};
use super::kubectl;
use crate::explain::{ExplainOptions, Format, Question};
use crate::usage::UsageError;
use std::process::ExitCode;

/// A parsed `explain` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExplainCommand {
    /// `--help`.
    Help,
    /// Explain.
    Explain(ExplainOptions),
    /// `--from PATH`: the manifests' rule, role and binding that allow the question (as
    /// `can-i --explain` answers), with no `#[rbac]` attributes needed.
    FromManifests(Box<crate::can_i::CanIOptions>),
}

/// What the command line gives, before its arguments are checked together.
#[derive(Default)]
pub(crate) struct Args {
    positional: Vec<String>,
    namespace: Option<String>,
    all_namespaces: bool,
    subresource: Option<String>,
    format: Format,
    format_given: bool,
    role_name: Option<String>,
    from: Option<std::path::PathBuf>,
    as_user: Option<String>,
}

/// Names the options' type once, for the closures of the table.
type F = Flag<Args>;

/// `explain`'s command line.
pub(crate) static COMMAND_LINE: CommandLine<Args> = CommandLine {
    name: "explain",
    summary: "Show where each generated permission comes from: the #[rbac] attributes behind it",
    about: "Show where each generated permission comes from: every rule of every role with the \
            #[rbac] attributes (file:line:column and item) behind each of its groups, resources, \
            resource names, URLs and verbs, from the same aggregation that writes role.yaml. With \
            VERB and TYPE, the attributes that give that one permission.",
    usage: &[
        "[OPTIONS]",
        "VERB (TYPE | TYPE.GROUP | TYPE/NAME | TYPE.GROUP/NAME | /URL) [OPTIONS]",
    ],
    positionals: Some(Positionals {
        what: "argument",
        choices: &[],
        add: |args, arg| {
            args.positional.push(arg);
            Ok(())
        },
    }),
    flags: &[
        F::value(
            "namespace",
            "NS",
            "Ask in this namespace: the ClusterRoles and the Roles of NS (each bound as the \
             deploy bundle binds it)",
            |args, v| {
                args.namespace = Some(kubectl::namespace(v)?);
                Ok(())
            },
        )
        .short('n')
        .default("cluster-wide, the ClusterRoles only"),
        F::switch(
            "all-namespaces",
            "Ask cluster-wide (the default; conflicts with --namespace)",
            |args| args.all_namespaces = true,
        )
        .short('A'),
        F::value(
            "subresource",
            "SUB",
            "Ask about this subresource (status, scale, log, exec, ...)",
            |args, v| {
                args.subresource = Some(kubectl::subresource(v)?);
                Ok(())
            },
        ),
        F::value(
            "format",
            "FORMAT",
            "How to print: text for people, json for tools",
            |args, v| {
                // The parser accepted only the choices.
                args.format = match v.as_str() {
                    "json" => Format::Json,
                    _ => Format::Text,
                };
                args.format_given = true;
                Ok(())
            },
        )
        .choices(&["text", "json"])
        .default("text"),
        F::value(
            "role-name",
            "NAME",
            "The generator's --role-name, for attributes that set no role_name",
            |args, v| {
                if let Err(why) = kube_markers_core::names::dns1123_subdomain(&v) {
                    return Err(invalid(
                        "--role-name",
                        v,
                        format!("is not a valid role name: {why}"),
                    ));
                }
                args.role_name = Some(v);
                Ok(())
            },
        )
        .default(kube_markers_rbac::DEFAULT_ROLE_NAME),
        F::value(
            "from",
            "PATH",
            "Explain from RBAC manifests instead of the linked attributes: the rule, role and \
             binding of PATH that allow VERB TYPE (a YAML file or a directory of them; a \
             directory with a kustomization.yaml as `kubectl apply -k` installs it), as \
             `can-i --explain` answers",
            |args, v| {
                args.from = Some(std::path::PathBuf::from(v));
                Ok(())
            },
        ),
        F::value(
            "as",
            "USER",
            "With --from: evaluate as this user (system:serviceaccount:NS:NAME implies the \
             ServiceAccount's groups)",
            |args, v| {
                args.as_user = Some(v);
                Ok(())
            },
        )
        .default("the one ServiceAccount in --from, as installed"),
    ],
    notes: "TYPE is resolved as can-i (and kubectl) resolves it: a plural, singular, short \
            name or kind, built-in or of a linked CRD.\n\
            With --from, a question is needed, and the answer names the manifests' rule, role \
            and binding (exit 0 allowed, 1 not); without it, a binary with no #[rbac] \
            attributes linked (the installed kube-markers) has nothing to explain and says so.\n\
            Exit codes: 0 listed (or: some attribute gives it), 1 no attribute gives it, 2 bad \
            arguments.",
};

/// `explain --help`, naming the generator as `invocation` runs it.
pub fn help(invocation: &crate::invocation::Invocation) -> String {
    super::render_help(&COMMAND_LINE, invocation)
}

impl ExplainCommand {
    /// Parses the arguments after `explain`, with `can-i`'s conventions: flags anywhere,
    /// `--flag value`, `--flag=value`, `-n value`, `-nvalue`.
    pub fn parse<I, S>(args: I) -> Result<ExplainCommand, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut given = Args::default();
        if COMMAND_LINE.parse(&mut given, args.into_iter().map(Into::into))? == Parsed::Help {
            return Ok(ExplainCommand::Help);
        }
        let Args {
            positional,
            namespace,
            all_namespaces,
            subresource,
            format,
            format_given,
            role_name,
            from,
            as_user,
        } = given;
        let question = match positional.as_slice() {
            [] => None,
            [verb] => {
                return Err(UsageError::MissingType {
                    verb: verb.clone(),
                    explain: true,
                });
            }
            [verb, target] => Some(Question {
                verb: verb.clone(),
                target: super::can_i::parse_target(target)?,
                namespace: None,
                subresource: None,
            }),
            [_, _, extra, ..] => {
                return Err(UsageError::UnexpectedArgument {
                    arg: extra.clone(),
                    suggestion: None,
                });
            }
        };
        if namespace.is_some() && all_namespaces {
            return Err(UsageError::Conflict {
                first: "--namespace",
                second: "--all-namespaces",
            });
        }
        let question = match question {
            Some(mut q) => {
                q.target
                    .refuse_resource_flags(subresource.is_some(), namespace.is_some())?;
                q.namespace = namespace;
                q.subresource = subresource;
                Some(q)
            }
            None => {
                let question_flag = [
                    (namespace.is_some(), "--namespace"),
                    (all_namespaces, "--all-namespaces"),
                    (subresource.is_some(), "--subresource"),
                ]
                .into_iter()
                .find_map(|(given, flag)| given.then_some(flag));
                if let Some(flag) = question_flag {
                    return Err(UsageError::NeedsQuestion { flag });
                }
                None
            }
        };
        if let Some(from) = from {
            let Some(question) = question else {
                return Err(invalid(
                    "--from",
                    from.display().to_string(),
                    "needs a question: VERB TYPE (`explain get pods --from rbac-out`)".into(),
                ));
            };
            if format_given && format == Format::Json {
                return Err(UsageError::Conflict {
                    first: "--from",
                    second: "--format json",
                });
            }
            return Ok(ExplainCommand::FromManifests(Box::new(
                crate::can_i::CanIOptions {
                    verb: question.verb,
                    target: question.target,
                    namespace: question.namespace,
                    subresource: question.subresource,
                    as_user,
                    as_groups: Vec::new(),
                    from,
                    from_is_default: false,
                    role_name: role_name
                        .unwrap_or_else(|| kube_markers_rbac::DEFAULT_ROLE_NAME.to_string()),
                    explain: true,
                    default_roles: true,
                },
            )));
        }
        if let Some(user) = as_user {
            return Err(invalid(
                "--as",
                user,
                "needs --from PATH: the linked attributes are explained for no identity".into(),
            ));
        }
        Ok(ExplainCommand::Explain(ExplainOptions {
            question,
            format,
            role_name: role_name
                .unwrap_or_else(|| kube_markers_rbac::DEFAULT_ROLE_NAME.to_string()),
        }))
    }
}

/// `<bin> explain ARGS`: exit 0 listed (or allowed), 1 not allowed, 2 bad arguments.
pub fn main(args: &[String]) -> ExitCode {
    let line = &COMMAND_LINE;
    let opts = match ExplainCommand::parse(args.iter().cloned()) {
        Ok(ExplainCommand::Help) => return super::print_help(line),
        Ok(ExplainCommand::Explain(opts)) => opts,
        Ok(ExplainCommand::FromManifests(opts)) => return super::can_i::answer(&opts),
        Err(e) => return super::usage_error(line, &e),
    };
    if kube_markers_registry::generator().is_none()
        && kube_markers_registry::rbac_entries().is_empty()
    {
        // The installed command (or any binary without `link!`): no attributes to explain.
        let bin = crate::invocation::Invocation::current().bin;
        eprintln!(
            "error: no #[rbac] attributes are linked into `{bin}`: explain the permissions of \
             RBAC manifests with `{bin} explain VERB TYPE --from PATH`, or run `explain` through \
             your operator's generator (`cargo run -p GENERATOR -- explain`)"
        );
        return ExitCode::from(2);
    }
    let (text, warnings, code) = crate::explain::run(
        &opts,
        &kube_markers_registry::rbac_entries(),
        crate::can_i::KnownResource::from_registry,
    );
    for warning in &warnings {
        eprintln!("{warning}");
    }
    print!("{text}");
    if opts.question.is_none() && opts.format == Format::Text {
        print!("{}", calls_text());
    }
    code
}

/// The kube calls of the workspace's linked crates, each permission with the calls that need
/// it beside the attributes that grant it; nothing outside a workspace.
fn calls_text() -> String {
    let Ok(workspace) = crate::input::workspace::Workspace::discover(None) else {
        return String::new();
    };
    let analysis = super::calls::analyse_workspace(&workspace);
    let text =
        crate::check::calls::explain::render(&analysis, &kube_markers_registry::rbac_entries());
    if text.is_empty() {
        text
    } else {
        format!("\n{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::can_i::Target;

    fn explain(args: &[&str]) -> ExplainOptions {
        match ExplainCommand::parse(args.iter().copied()) {
            Ok(ExplainCommand::Explain(o)) => o,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn err(args: &[&str]) -> String {
        ExplainCommand::parse(args.iter().copied())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn every_form() {
        let all = explain(&[]);
        assert_eq!(all.question, None);
        assert_eq!(all.format, Format::Text);
        assert_eq!(all.role_name, "manager-role");
        let o = explain(&[
            "--format",
            "json",
            "create",
            "deployments.apps/web",
            "-nweb",
        ]);
        assert_eq!(o.format, Format::Json);
        let q = o.question.unwrap();
        assert_eq!(q.verb, "create");
        assert_eq!(
            q.target,
            Target::Resource {
                resource: "deployments".into(),
                group: "apps".into(),
                name: Some("web".into())
            }
        );
        assert_eq!(q.namespace.as_deref(), Some("web"));
        let q = explain(&["patch", "pods", "--subresource=status", "-A"])
            .question
            .unwrap();
        assert_eq!(q.subresource.as_deref(), Some("status"));
        assert_eq!(q.namespace, None);
        assert_eq!(
            explain(&["get", "/metrics", "--role-name", "op"]).role_name,
            "op"
        );
        assert_eq!(ExplainCommand::parse(["-h"]), Ok(ExplainCommand::Help));
    }

    #[test]
    fn every_error_is_named() {
        assert!(err(&["get"]).contains("missing TYPE after `get`"));
        assert!(err(&["get", "pods", "x"]).contains("unexpected argument `x`"));
        assert!(err(&["--format", "yaml"]).contains("`--format yaml` is not a format"));
        assert!(err(&["--fromat", "json"]).contains("did you mean `--format`?"));
        assert!(err(&["-n", "web"]).contains("`--namespace` needs a question"));
        assert!(err(&["get", "pods", "-n", "a", "-A"]).contains("conflict"));
        assert!(err(&["get", "/metrics", "-n", "a"]).contains("no namespace"));
        assert!(err(&["get", "pods.Bad_Group"]).contains("is not an API group"));
        assert!(err(&["get", "pods", "--format"]).contains("`--format` needs a value"));
        assert!(err(&["--role-name", "Bad"]).contains("not a valid role name"));
        assert!(err(&["--format", "json", "--format", "text"]).contains("more than once"));
    }
}
