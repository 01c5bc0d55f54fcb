//! `can-i`'s command line: `kubectl auth can-i`'s arguments, read without a cluster.

use super::flags::{CommandLine, Flag, Parsed, Positionals};
use super::kubectl;
use crate::can_i::{CanIOptions, KnownResource, Target, run, unknown_verb_warning};
use crate::usage::TargetProblem;
use crate::usage::UsageError;
use std::path::PathBuf;
use std::process::ExitCode;

/// A parsed `can-i` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CanICommand {
    /// `--help`.
    Help,
    /// Answer the question.
    Ask(Box<CanIOptions>),
}

/// What the command line gives, before its arguments are checked together.
#[derive(Default)]
pub(crate) struct Args {
    positional: Vec<String>,
    namespace: Option<String>,
    all_namespaces: bool,
    subresource: Option<String>,
    as_user: Option<String>,
    as_groups: Vec<String>,
    from: Option<PathBuf>,
    role_name: Option<String>,
    explain: bool,
    no_default_roles: bool,
}

/// Names the options' type once, for the closures of the table.
type F = Flag<Args>;

/// `can-i`'s command line.
pub(crate) static COMMAND_LINE: CommandLine<Args> = CommandLine {
    name: "can-i",
    summary: "Check offline whether an identity may perform an action, against RBAC manifests",
    about: "Check offline whether an identity may perform an action, against RBAC manifests, with \
            kube-apiserver's RBAC semantics. Prints yes or no and exits 0 or 1, as `kubectl auth \
            can-i`.",
    usage: &["VERB (TYPE | TYPE.GROUP | TYPE/NAME | TYPE.GROUP/NAME | /URL) [OPTIONS]"],
    positionals: Some(Positionals {
        what: "argument",
        choices: &[],
        add: |args, arg| {
            args.positional.push(arg);
            Ok(())
        },
    }),
    flags: &[
        F::value("namespace", "NS", "Ask in this namespace", |args, v| {
            args.namespace = Some(kubectl::namespace(v)?);
            Ok(())
        })
        .short('n')
        .default("cluster-wide"),
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
            "as",
            "USER",
            "Evaluate as this user; system:serviceaccount:NS:NAME implies the ServiceAccount's \
             groups",
            |args, v| {
                args.as_user = Some(v);
                Ok(())
            },
        )
        .default("the one ServiceAccount in --from, as installed"),
        F::value(
            "as-group",
            "GROUP",
            "A group of --as; repeat for several",
            |args, v| {
                args.as_groups.push(v);
                Ok(())
            },
        )
        .repeatable(),
        F::value(
            "from",
            "PATH",
            "A YAML file or a directory of them (read recursively), multi-document; a \
             directory with a kustomization.yaml as `kubectl apply -k` installs it",
            |args, v| {
                args.from = Some(PathBuf::from(v));
                Ok(())
            },
        )
        .default("the workspace's rbac-out"),
        F::switch(
            "explain",
            "Name the rule, role, binding and #[rbac] attributes that allow it, or what applies \
             when nothing does",
            |args| args.explain = true,
        ),
        F::value(
            "role-name",
            "NAME",
            "The generator's --role-name, to find the attributes of a role",
            |args, v| {
                args.role_name = Some(v);
                Ok(())
            },
        )
        .default(kube_markers_rbac::DEFAULT_ROLE_NAME),
        F::switch(
            "no-default-roles",
            "Leave out the roles every cluster binds to every user (system:discovery, \
             system:basic-user, system:public-info-viewer, ...: /healthz, /version, \
             selfsubjectaccessreviews)",
            |args| args.no_default_roles = true,
        ),
    ],
    notes: "TYPE is resolved as kubectl's discovery does: a plural, singular or short name of \
            a built-in resource (kube-apiserver 1.37.2's) or of a CRD linked into the \
            generator or in --from, in any group unless TYPE.GROUP names one.\n\
            A directory with a kustomization.yaml is read as `kubectl apply -k` installs it \
            (namespace, namePrefix, overlays), so the default --as is the installed \
            ServiceAccount.\n\
            Exit codes: 0 yes, 1 no, 2 bad arguments or unreadable manifests.",
};

/// `can-i --help`, naming the generator as `invocation` runs it.
pub fn help(invocation: &crate::invocation::Invocation) -> String {
    super::render_help(&COMMAND_LINE, invocation)
}

/// `v1`, `v1beta2`, `v2alpha1`: a Kubernetes API version.
fn looks_like_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    rest.is_empty()
        || ["alpha", "beta"].iter().any(|stage| {
            rest.strip_prefix(stage)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// `TYPE[.GROUP][/NAME]` (`TYPE.VERSION.GROUP` also works: the version is dropped) or `/URL`.
pub(crate) fn parse_target(arg: &str) -> Result<Target, UsageError> {
    let invalid = |problem| UsageError::InvalidTarget {
        arg: arg.to_string(),
        problem,
    };
    if arg.starts_with('/') {
        return Ok(Target::NonResource(arg.to_string()));
    }
    let (type_group, name) = match arg.split_once('/') {
        Some((_, "")) => return Err(invalid(TargetProblem::EmptyName)),
        Some((tg, name)) => (tg, Some(name.to_string())),
        None => (arg, None),
    };
    // kubectl lowercases the resource argument (not the name).
    let type_group = type_group.to_lowercase();
    let (resource, group) = match type_group.split_once('.') {
        Some((resource, group)) => {
            // kubectl's `schema.ParseResourceArg`: `TYPE.VERSION.GROUP` (the group may be
            // empty: `configmap.v1.` is the core group's), else `TYPE.GROUP` (`configmaps.`:
            // the core group).
            let group = match group.split_once('.') {
                Some((version, rest)) if version.is_empty() || looks_like_version(version) => rest,
                _ => group,
            };
            if group.ends_with('.') {
                // `deployments.apps.`: no group of kubectl's discovery; kubectl asks about
                // the resource as typed, with a warning (as `resolve` gives).
                (type_group.clone(), String::new())
            } else {
                (resource.to_string(), group.to_string())
            }
        }
        None => (type_group.clone(), String::new()),
    };
    if resource.is_empty() {
        return Err(invalid(TargetProblem::Shape));
    }
    if let Err(why) = kube_markers_core::names::api_group(&group) {
        return Err(invalid(TargetProblem::InvalidGroup { group, why }));
    }
    Ok(Target::Resource {
        resource,
        group,
        name,
    })
}

impl CanICommand {
    /// Parses the arguments after `can-i`. Flags may come before, between or after the two
    /// positional arguments; `--flag value`, `--flag=value`, `-n value` and `-nvalue` all work.
    pub fn parse<I, S>(args: I) -> Result<CanICommand, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut given = Args::default();
        if COMMAND_LINE.parse(&mut given, args.into_iter().map(Into::into))? == Parsed::Help {
            return Ok(CanICommand::Help);
        }
        let Args {
            positional,
            namespace,
            all_namespaces,
            subresource,
            as_user,
            as_groups,
            from,
            role_name,
            explain,
            no_default_roles,
        } = given;
        let (verb, target) = match positional.as_slice() {
            [verb, target] => (verb.clone(), target.clone()),
            [] => return Err(UsageError::MissingQuestion),
            [verb] => {
                return Err(UsageError::MissingType {
                    verb: verb.clone(),
                    explain: false,
                });
            }
            [_, _, extra, ..] => {
                return Err(UsageError::UnexpectedArgument {
                    arg: extra.clone(),
                    suggestion: None,
                });
            }
        };
        let target = parse_target(&target)?;
        if namespace.is_some() && all_namespaces {
            return Err(UsageError::Conflict {
                first: "--namespace",
                second: "--all-namespaces",
            });
        }
        target.refuse_resource_flags(subresource.is_some(), namespace.is_some())?;
        if !as_groups.is_empty() && as_user.is_none() {
            return Err(UsageError::GroupWithoutUser);
        }
        Ok(CanICommand::Ask(Box::new(CanIOptions {
            verb,
            target,
            namespace,
            subresource,
            as_user,
            as_groups,
            from_is_default: from.is_none(),
            from: from.unwrap_or_else(|| PathBuf::from("rbac-out")),
            role_name: role_name
                .unwrap_or_else(|| kube_markers_rbac::DEFAULT_ROLE_NAME.to_string()),
            explain,
            default_roles: !no_default_roles,
        })))
    }
}

/// `<bin> can-i ARGS`: parses, answers, prints; exit 0 yes, 1 no, 2 bad arguments or
/// manifests.
pub fn main(args: &[String]) -> ExitCode {
    let line = &COMMAND_LINE;
    let opts = match CanICommand::parse(args.iter().cloned()) {
        Ok(CanICommand::Help) => return super::print_help(line),
        Ok(CanICommand::Ask(opts)) => opts,
        Err(e) => return super::usage_error(line, &e),
    };
    let mut opts = opts;
    if opts.from_is_default {
        // The default `rbac-out` is the workspace's, as a plain run writes it; outside a
        // workspace, the current directory's.
        if let Ok(workspace) = crate::input::workspace::Workspace::discover(None) {
            opts.from = crate::options::default_in_workspace(&opts.from, &workspace.root);
        }
    }
    answer(&opts)
}

/// Answers `opts` (its manifests already placed) and prints the answer: exit 0 yes, 1 no, 2
/// unreadable manifests. `explain --from` answers through it too.
pub(crate) fn answer(opts: &CanIOptions) -> ExitCode {
    if let Some(warning) = unknown_verb_warning(opts) {
        eprintln!("{warning}");
    }
    match run(
        opts,
        &kube_markers_registry::rbac_entries(),
        KnownResource::from_registry,
    ) {
        Ok(answer) => {
            for warning in &answer.warnings {
                eprintln!("{warning}");
            }
            print!("{}", answer.text);
            if answer.allowed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprint!("error: {e}");
            if !e.to_string().ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(args: &[&str]) -> CanIOptions {
        match CanICommand::parse(args.iter().copied()) {
            Ok(CanICommand::Ask(o)) => *o,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn err(args: &[&str]) -> String {
        CanICommand::parse(args.iter().copied())
            .unwrap_err()
            .to_string()
    }

    fn resource(resource: &str, group: &str, name: Option<&str>) -> Target {
        Target::Resource {
            resource: resource.into(),
            group: group.into(),
            name: name.map(Into::into),
        }
    }

    #[test]
    fn every_target_form() {
        assert_eq!(ask(&["get", "pods"]).target, resource("pods", "", None));
        assert_eq!(
            ask(&["get", "deployments.apps"]).target,
            resource("deployments", "apps", None)
        );
        assert_eq!(
            ask(&["get", "pods/web-0"]).target,
            resource("pods", "", Some("web-0"))
        );
        assert_eq!(
            ask(&["get", "memcacheds.cache.example.com/Mine"]).target,
            resource("memcacheds", "cache.example.com", Some("Mine"))
        );
        // kubectl lowercases the type, not the name; TYPE.VERSION.GROUP drops the version.
        assert_eq!(
            ask(&["get", "Deployments.Apps/Web"]).target,
            resource("deployments", "apps", Some("Web"))
        );
        assert_eq!(
            ask(&["get", "deployments.v1.apps"]).target,
            resource("deployments", "apps", None)
        );
        assert_eq!(
            ask(&["get", "cronjobs.v2beta1.batch"]).target,
            resource("cronjobs", "batch", None)
        );
        assert_eq!(ask(&["get", "*"]).target, resource("*", "", None));
        assert_eq!(ask(&["get", "*.*"]).target, resource("*", "*", None));
        assert_eq!(
            ask(&["get", "/metrics"]).target,
            Target::NonResource("/metrics".into())
        );
        assert_eq!(
            ask(&["get", "/healthz/*"]).target,
            Target::NonResource("/healthz/*".into())
        );
    }

    #[test]
    fn every_flag_and_spelling() {
        let o = ask(&["list", "pods"]);
        assert_eq!(o.namespace, None);
        assert_eq!(o.from, PathBuf::from("rbac-out"));
        assert_eq!(o.role_name, "manager-role");
        assert!(
            !o.explain && o.as_user.is_none() && o.as_groups.is_empty() && o.subresource.is_none()
        );
        for args in [
            &["-n", "ns", "get", "pods"][..],
            &["get", "-nns", "pods"],
            &["get", "pods", "-n=ns"],
            &["get", "pods", "--namespace", "ns"],
            &["get", "pods", "--namespace=ns"],
        ] {
            assert_eq!(ask(args).namespace.as_deref(), Some("ns"), "{args:?}");
        }
        assert_eq!(ask(&["get", "pods", "-A"]).namespace, None);
        assert_eq!(ask(&["get", "pods", "--all-namespaces"]).namespace, None);
        let o = ask(&[
            "update",
            "deployments.apps",
            "--subresource",
            "scale",
            "--as",
            "alice",
            "--as-group",
            "a",
            "--as-group=b",
            "--from",
            "dir",
            "--explain",
            "--role-name",
            "op-role",
        ]);
        assert_eq!(o.verb, "update");
        assert_eq!(o.subresource.as_deref(), Some("scale"));
        assert_eq!(o.as_user.as_deref(), Some("alice"));
        assert_eq!(o.as_groups, ["a", "b"]);
        assert_eq!(o.from, PathBuf::from("dir"));
        assert_eq!(o.role_name, "op-role");
        assert!(o.explain);
        assert!(o.default_roles);
        assert!(!ask(&["get", "/healthz", "--no-default-roles"]).default_roles);
        assert_eq!(
            ask(&["--", "get", "-weird"]).target,
            resource("-weird", "", None)
        );
        // kubectl's `ParseResourceArg`, trailing dot and all: `TYPE.` and `TYPE.VERSION.` are
        // the core group's; `TYPE.GROUP.` is asked as typed.
        assert_eq!(
            ask(&["get", "configmaps."]).target,
            resource("configmaps", "", None)
        );
        assert_eq!(
            ask(&["get", "configmap.v1."]).target,
            resource("configmap", "", None)
        );
        assert_eq!(
            ask(&["get", "deployments.apps."]).target,
            resource("deployments.apps.", "", None)
        );
        assert_eq!(CanICommand::parse(["-h"]), Ok(CanICommand::Help));
        assert_eq!(CanICommand::parse(["get", "--help"]), Ok(CanICommand::Help));
    }

    #[test]
    fn every_error_is_named() {
        assert!(err(&[]).contains("missing VERB and TYPE"));
        assert!(err(&["get"]).contains("missing TYPE after `get`"));
        assert!(err(&["get", "pods", "extra"]).contains("unexpected argument `extra`"));
        assert!(err(&["get", "pods", "--namspace", "x"]).contains("did you mean `--namespace`?"));
        assert!(err(&["get", "pods", "-x"]).contains("unknown option `-x`"));
        assert!(err(&["get", "pods", "-n"]).contains("`--namespace` needs a value"));
        assert!(err(&["get", "pods", "-n", "-A"]).contains("`--namespace` needs a value"));
        assert!(err(&["get", "pods", "--as="]).contains("non-empty value"));
        assert!(err(&["get", "pods", "-n", "Bad_NS"]).contains("not a namespace name"));
        assert!(err(&["get", "pods", "-n", "a", "-n", "b"]).contains("more than once"));
        assert!(err(&["get", "pods", "--explain=yes"]).contains("takes no value"));
        assert!(err(&["get", "pods", "-n", "a", "-A"]).contains("conflict"));
        assert!(
            err(&["get", "/metrics", "--subresource", "x"])
                .contains("`--subresource` cannot be used with the URL")
        );
        assert!(
            err(&["get", "/metrics", "-n", "a"]).contains("non-resource URLs have no namespace")
        );
        assert!(err(&["get", "pods", "--subresource", "a/b"]).contains("without `/`"));
        assert!(err(&["get", "pods", "--as-group", "g"]).contains("`--as-group` needs `--as`"));
        assert!(err(&["get", "pods/"]).contains("empty name"));
        assert!(err(&["get", ".apps"]).contains("is not TYPE"));
        assert!(err(&["get", "..pods"]).contains("is not TYPE"));
        assert!(err(&["get", "pods.Bad_Group"]).contains("is not an API group"));
    }

    #[test]
    fn errors_say_which_argument() {
        let parse = |args: &[&str]| CanICommand::parse(args.iter().copied()).unwrap_err();
        assert_eq!(
            parse(&["get"]),
            UsageError::MissingType {
                verb: "get".into(),
                explain: false
            }
        );
        assert_eq!(
            parse(&["get", "/metrics", "-n", "a"]),
            UsageError::NotForUrl {
                flag: "--namespace",
                url: "/metrics".into()
            }
        );
        assert!(matches!(
            parse(&["get", "pods.Bad_Group"]),
            UsageError::InvalidTarget { arg, problem: TargetProblem::InvalidGroup { group, .. } }
                if arg == "pods.Bad_Group" && group == "bad_group"
        ));
        assert!(matches!(
            parse(&["get", "pods", "-n", "Bad_NS"]),
            UsageError::InvalidValue { flag, value, why }
                if flag == "--namespace" && value == "Bad_NS"
                    && why.starts_with("is not a namespace name: ")
        ));
    }
}
