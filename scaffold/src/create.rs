//! `kube-markers create api` and `kube-markers create webhook`.

use crate::args::{self, Flag};
use crate::plan::{MARKER, Plan};
use crate::project::Project;
use crate::templates::{api as t, render, webhook as w};
use crate::{Error, names};
use std::path::Path;
use std::process::ExitCode;

const API: &str = "kube-markers create api";
const WEBHOOK: &str = "kube-markers create webhook";

const GVK: [Flag; 3] = [
    Flag {
        name: "group",
        value: true,
        help: "API group, without the domain: `cache` is `cache.<domain>` (required)",
    },
    Flag {
        name: "version",
        value: true,
        help: "API version: v1, v1alpha1, v2beta1 (required)",
    },
    Flag {
        name: "kind",
        value: true,
        help: "Kind, UpperCamelCase (required)",
    },
];

pub(crate) const SKIP: Flag = Flag {
    name: "skip-generate",
    value: false,
    help: "Write the files only; run `cargo run -p codegen` yourself to update rbac-out/",
};

const API_FLAGS: &[Flag] = &[
    GVK[0],
    GVK[1],
    GVK[2],
    Flag {
        name: "namespaced",
        value: false,
        help: "Namespaced kind; `--namespaced=false` for a cluster-scoped one [default: true]",
    },
    Flag {
        name: "resource",
        value: false,
        help: "Write the types and the sample [default: true]",
    },
    Flag {
        name: "controller",
        value: false,
        help: "Write the controller, register it in main and write its envtest test [default: true]",
    },
    Flag {
        name: "plural",
        value: true,
        help: "Resource name [default: the kind, lower-case, English plural]",
    },
    SKIP,
];

const WEBHOOK_FLAGS: &[Flag] = &[
    GVK[0],
    GVK[1],
    GVK[2],
    Flag {
        name: "defaulting",
        value: false,
        help: "A mutating webhook that sets defaults",
    },
    Flag {
        name: "programmatic-validation",
        value: false,
        help: "A validating webhook",
    },
    SKIP,
];

/// The `plural = "..."` of a kind's types file.
fn plural_in(types: &str) -> Option<String> {
    let rest = types.split("\n    plural = \"").nth(1)?;
    rest.split('"').next().map(str::to_string)
}

/// `kube-markers create <api|webhook> ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
    crate::finish(run(args, &dir))
}

/// `create` in `dir` (the project's root or a directory in it).
pub fn run(args: &[String], dir: &Path) -> Result<(), Error> {
    said(args, dir).map(|_| ())
}

/// `create` in `dir`: what it said after writing (the files, then the notes).
fn said(args: &[String], dir: &Path) -> Result<Vec<String>, Error> {
    match args.first().map(String::as_str) {
        Some("api") => api(&args[1..], dir),
        Some("webhook") => webhook(&args[1..], dir),
        Some("-h" | "--help") | None => {
            print!(
                "Add to a project of `kube-markers init`.\n\nUsage: kube-markers create \
                 <COMMAND> [OPTIONS]\n\nCommands:\n  api      A kind: its types, sample, \
                 controller and envtest test (a new version of a kind: its conversion)\n  \
                 webhook  Admission webhooks of a kind, served by the operator\n\nRun \
                 `kube-markers create <COMMAND> --help` for its flags.\n"
            );
            if args.is_empty() {
                return Err(Error::usage(
                    "`kube-markers create` needs `api` or `webhook`.",
                ));
            }
            Ok(Vec::new())
        }
        Some(other) => Err(Error::usage(format!(
            "`kube-markers create {other}`: there is `create api` and `create webhook`.\nRun \
             `kube-markers create --help`."
        ))),
    }
}

/// A kind's names, checked.
struct Kind {
    group: String,
    version: String,
    kind: String,
    plural: String,
}

impl Kind {
    fn parse(parsed: &args::Parsed, command: &str) -> Result<Kind, Error> {
        let group = parsed.required("group", command)?.to_string();
        let version = parsed.required("version", command)?.to_string();
        let kind = parsed.required("kind", command)?.to_string();
        names::group(&group)?;
        names::version(&version)?;
        names::kind(&kind)?;
        let plural = match parsed.get("plural") {
            Some(p) => p.to_string(),
            None => names::default_plural(&kind),
        };
        names::plural(&plural)?;
        Ok(Kind {
            group,
            version,
            kind,
            plural,
        })
    }

    fn snake(&self) -> String {
        names::snake(&self.kind)
    }

    fn group_ident(&self) -> String {
        self.group.replace('-', "_")
    }

    /// `<operator>/src/api/<group>/<version>/<kind>.rs`.
    fn types_file(&self, p: &Project, version: &str) -> String {
        format!(
            "{}/src/api/{}/{version}/{}.rs",
            p.operator,
            self.group_ident(),
            self.snake()
        )
    }
}

/// The versions of `kind` the project has, from its types files.
fn existing_versions(p: &Project, kind: &Kind) -> Vec<String> {
    let dir = p
        .root
        .join(&p.operator)
        .join("src/api")
        .join(kind.group_ident());
    let mut versions: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join(format!("{}.rs", kind.snake())).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    versions.sort();
    versions
}

/// The hub of a kind: the version whose types carry `#[kube_markers::crd(storage)]`.
fn hub(p: &Project, kind: &Kind, versions: &[String]) -> Option<String> {
    versions
        .iter()
        .find(|v| {
            std::fs::read_to_string(p.root.join(kind.types_file(p, v)))
                .is_ok_and(|t| t.contains("#[kube_markers::crd(storage)]"))
        })
        .cloned()
}

fn api(args: &[String], dir: &Path) -> Result<Vec<String>, Error> {
    let parsed = args::parse(args, API_FLAGS, API)?;
    if parsed.help {
        print!(
            "{}",
            args::help(
                "kube-markers create api --group G --version V --kind K [OPTIONS]",
                "Add a kind to the operator: its types (#[kube_markers::crd]), a sample, its \
                 controller (finalizer, Ready condition, events) registered in main, and an \
                 envtest test of it; for a new version of an existing kind, the version and \
                 its conversion to the first one, with a round-trip test. Then regenerate \
                 rbac-out/.",
                API_FLAGS
            )
        );
        return Ok(Vec::new());
    }
    let project = Project::find(dir)?;
    let kind = Kind::parse(&parsed, API)?;
    let mut plan = Plan::new(&project.root);
    plan_api(
        &mut plan,
        &project,
        &kind,
        ApiSwitches {
            namespaced: parsed.switch("namespaced", true),
            resource: parsed.switch("resource", true),
            controller: parsed.switch("controller", true),
        },
    )?;
    let said = plan.write()?;
    for line in &said {
        eprintln!("{line}");
    }
    if !parsed.switch("skip-generate", false) {
        crate::regenerate(&project.root)?;
    }
    Ok(said)
}

/// `create api`'s switches.
#[derive(Debug, Clone, Copy)]
struct ApiSwitches {
    namespaced: bool,
    resource: bool,
    controller: bool,
}

fn plan_api(plan: &mut Plan, p: &Project, k: &Kind, mut s: ApiSwitches) -> Result<(), Error> {
    // A controller for types that exist takes their plural and scope from them.
    let existing = (!s.resource)
        .then(|| plan.read(&k.types_file(p, &k.version)))
        .flatten();
    let plural_of_types = existing.as_deref().and_then(plural_in);
    if let Some(text) = &existing {
        s.namespaced = text.contains("\n    namespaced,");
    }
    let plural = plural_of_types.unwrap_or_else(|| k.plural.clone());
    let full_group = format!("{}.{}", k.group, p.domain);
    let versions = existing_versions(p, k);
    let types = k.types_file(p, &k.version);
    if s.resource && versions.contains(&k.version) {
        return Err(Error::new(format!(
            "{}/{} {} exists already: {}.\nEdit that file, or give another --version to add a \
             version (converted to the first).",
            full_group,
            k.version,
            k.kind,
            p.root.join(&types).display()
        )));
    }
    // A new version of a kind that exists is a spoke of its hub; `--resource=false` writes a
    // controller for types that exist.
    let hub = hub(p, k, &versions).filter(|_| s.resource);
    if s.resource && !versions.is_empty() && hub.is_none() {
        return Err(Error::new(format!(
            "{} exists at {} but none of its types files has #[kube_markers::crd(storage)].\n\
             Mark the version to convert to (the hub) with it, then run the command again.",
            k.kind,
            versions.join(", ")
        )));
    }
    let snake = k.snake();
    let lower = k.kind.to_ascii_lowercase();
    let sample = format!("{}_{}_{lower}.yaml", k.group, k.version);
    let namespaced = if s.namespaced {
        "\n    namespaced,"
    } else {
        ""
    };
    let api_of_obj = if s.namespaced {
        "Api::namespaced(client.clone(), &obj.namespace().unwrap_or_default())"
    } else {
        "Api::all(client.clone())"
    };
    let test_api = if s.namespaced {
        "env.ensure_namespace(\"default\").await.unwrap();\n    let api: Api<KIND> = Api::namespaced(admin.clone(), \"default\");"
    } else {
        "let api: Api<KIND> = Api::all(admin.clone());"
    }
    .replace("KIND", &k.kind);
    let (obj_param, scope) = match s.namespaced {
        true => ("obj", "its namespace's"),
        false => ("_obj", "cluster-scoped: one for all"),
    };
    let ident = p.ident();
    let group_ident = k.group_ident();
    let hub_version = hub.clone().unwrap_or_default();
    let values: &[(&str, &str)] = &[
        ("name", &p.operator),
        ("ident", &ident),
        ("kind", &k.kind),
        ("snake", &snake),
        ("lower", &lower),
        ("plural", &plural),
        ("group_ident", &group_ident),
        ("full_group", &full_group),
        ("version", &k.version),
        ("hub", &hub_version),
        ("namespaced", namespaced),
        ("api_of_obj", api_of_obj),
        ("obj_param", obj_param),
        ("scope", scope),
        ("test_api", &test_api),
        ("sample", &sample),
    ];
    let op = &p.operator;
    let what = "`kube-markers create api`";
    if s.resource {
        let group_dir = format!("{op}/src/api/{group_ident}");
        plan.insert(
            &format!("{op}/src/api/mod.rs"),
            "groups",
            &format!("pub mod {group_ident};"),
        )?;
        plan.create_if_absent(&format!("{group_dir}/mod.rs"), || {
            render(t::GROUP_MOD, values)
        });
        plan.insert(
            &format!("{group_dir}/mod.rs"),
            "versions",
            &format!("pub mod {};", k.version),
        )?;
        plan.create_if_absent(&format!("{group_dir}/{}/mod.rs", k.version), || {
            render(t::VERSION_MOD, values)
        });
        plan.insert(
            &format!("{group_dir}/{}/mod.rs", k.version),
            "kinds",
            &format!("mod {snake};\npub use {snake}::*;"),
        )?;
        let template = if hub.is_some() {
            t::SPOKE_TYPES
        } else {
            t::TYPES
        };
        plan.create(&types, render(template, values), what)?;
        plan.create(
            &format!("config/samples/{sample}"),
            render(t::SAMPLE, values),
            what,
        )?;
    }
    if hub.is_some() {
        // The conversion is served at /convert by the webhook server, with cert-manager's
        // certificate (the bundle's cert-manager wiring annotates the CRD).
        enable_webhook_server(plan, p)?;
        if s.controller {
            eprintln!(
                "note: {} {}'s controller reconciles the hub, {hub_version}: no controller is \
                 written for {}.",
                full_group, k.kind, k.version
            );
        }
        return Ok(());
    }
    if s.controller {
        if !s.resource && !plan.exists(&types) {
            return Err(Error::new(format!(
                "--resource=false, but {} is missing: the controller reconciles that kind.\n\
                 Run without --resource=false, or write the types there first.",
                p.root.join(&types).display()
            )));
        }
        plan.create(
            &format!("{op}/src/controllers/{snake}.rs"),
            render(t::CONTROLLER, values),
            what,
        )?;
        plan.insert(
            &format!("{op}/src/controllers/mod.rs"),
            "controllers",
            &format!("pub mod {snake};"),
        )?;
        let main = format!("{op}/src/main.rs");
        plan.insert(
            &main,
            "conditions",
            &format!(
                "let {snake}_cache = health.condition(\"{} cache\");",
                plural
            ),
        )?;
        // A standby replica (--leader-elect, not leading) marks the controller's cache ready.
        // A main without leader election (`init` before it had it) has no standby and no
        // marker for one: nothing to add there.
        if plan.has_marker(&main, "standby") || runs_leader_election(plan, &main) {
            plan.insert(&main, "standby", &format!("{snake}_cache.clone(),"))?;
        } else {
            plan.note(format!(
                "note: {main} runs no leader election (it has no `{MARKER}standby` marker: an \
                 older `kube-markers init` wrote it), so a replica runs every controller and no \
                 standby needs {snake}_cache; to add leader election as `init` writes it now, \
                 see kube-markers' docs/start.md (\"Projects from an older init\")."
            ));
        }
        plan.insert(
            &main,
            "controllers",
            &format!(
                "controllers.spawn({ident}::controllers::{snake}::run(\n    client.clone(),\n    \
                 {snake}_cache,\n));"
            ),
        )?;
        plan.create(
            &format!("{op}/tests/{snake}_controller.rs"),
            render(t::CONTROLLER_TEST, values),
            what,
        )?;
    }
    Ok(())
}

/// A TOML dependency's line (`name = { ... } # comment`) with `feature` among its features:
/// added to its `features = [...]`, or a `features` key added to its inline table; `None` for
/// another shape.
fn with_feature(line: &str, feature: &str) -> Option<String> {
    let quoted = format!("\"{feature}\"");
    let (value, comment) = match line.find(" #") {
        Some(at) => line.split_at(at),
        None => (line, ""),
    };
    if value.contains(&quoted) {
        return Some(line.to_string());
    }
    if let Some(list) = value.find("features") {
        let open = list + value[list..].find('[')?;
        let close = open + value[open..].find(']')?;
        let items = value[open + 1..close].trim_end();
        let items = items.strip_suffix(',').unwrap_or(items);
        let sep = if items.trim().is_empty() { "" } else { ", " };
        return Some(format!(
            "{}[{}{sep}{quoted}]{}{comment}",
            &value[..open],
            items.trim_start(),
            &value[close + 1..]
        ));
    }
    let close = value.rfind('}')?;
    value[..close].contains('{').then(|| {
        let head = value[..close].trim_end();
        let sep = if head.ends_with('{') { " " } else { ", " };
        format!(
            "{head}{sep}features = [{quoted}] }}{}{comment}",
            &value[close + 1..]
        )
    })
}

/// A TOML line `key = value # comment` with the value `true`.
fn set_true(line: &str) -> Option<String> {
    let (key, rest) = line.split_once('=')?;
    let comment = rest.find('#').map_or("", |at| &rest[at..]);
    Some(
        format!("{} = true {comment}", key.trim_end())
            .trim_end()
            .to_string(),
    )
}

/// Whether the operator's `main` elects a leader (`init` wrote it so since leader election).
fn runs_leader_election(plan: &Plan, main: &str) -> bool {
    plan.read(main)
        .is_some_and(|text| text.contains("LeaderElection"))
}

/// The operator's webhook server: the kube-markers feature, its start and stop in `main`, and
/// the bundle's webhook wiring with cert-manager's certificate.
fn enable_webhook_server(plan: &mut Plan, p: &Project) -> Result<(), Error> {
    let op = &p.operator;
    plan.edit_marked_line(
        &format!("{op}/Cargo.toml"),
        "kube-markers-features",
        |line| with_feature(line, "webhook-server"),
        "add \"webhook-server\" to kube-markers' features on that line (`features = [..., \
         \"webhook-server\"]`)",
    )?;
    let main = format!("{op}/src/main.rs");
    plan.insert(
        &main,
        "conditions",
        "let serving_webhooks = health.condition(\"webhook server\");",
    )?;
    plan.insert(
        &main,
        "webhook-server",
        "// The admission webhooks and conversions, on 0.0.0.0:9443 with the certificate\n\
         // cert-manager mounts at /tmp/k8s-webhook-server/serving-certs.\n\
         let webhooks = kube_markers::webhook::server::WebhookServer::builder()\n    \
         .registered()\n    .build()?\n    .start()\n    .await?;\nserving_webhooks.ready();",
    )?;
    plan.insert(&main, "shutdown", "webhooks.shutdown().await;")?;
    plan.edit_marked_line(
        "codegen/Cargo.toml",
        "bundle-cert-manager",
        set_true,
        "write it as `cert-manager = true`",
    )?;
    Ok(())
}

fn webhook(args: &[String], dir: &Path) -> Result<Vec<String>, Error> {
    let parsed = args::parse(args, WEBHOOK_FLAGS, WEBHOOK)?;
    if parsed.help {
        print!(
            "{}",
            args::help(
                "kube-markers create webhook --group G --version V --kind K [--defaulting] \
                 [--programmatic-validation]",
                "Add admission webhooks of a kind (#[kube_markers::webhook]) with a test of \
                 each, serve them from the operator's main, install them with the bundle \
                 (cert-manager's certificate), then regenerate rbac-out/.",
                WEBHOOK_FLAGS
            )
        );
        return Ok(Vec::new());
    }
    let project = Project::find(dir)?;
    let kind = Kind::parse(&parsed, WEBHOOK)?;
    let defaulting = parsed.switch("defaulting", false);
    let validation = parsed.switch("programmatic-validation", false);
    let mut plan = Plan::new(&project.root);
    plan_webhook(&mut plan, &project, &kind, defaulting, validation)?;
    let said = plan.write()?;
    for line in &said {
        eprintln!("{line}");
    }
    if !parsed.switch("skip-generate", false) {
        crate::regenerate(&project.root)?;
    }
    Ok(said)
}

fn plan_webhook(
    plan: &mut Plan,
    p: &Project,
    k: &Kind,
    defaulting: bool,
    validation: bool,
) -> Result<(), Error> {
    if !defaulting && !validation {
        return Err(Error::usage(
            "`kube-markers create webhook` needs --defaulting, --programmatic-validation or \
             both."
                .to_string(),
        ));
    }
    let types = k.types_file(p, &k.version);
    let full_group = format!("{}.{}", k.group, p.domain);
    if !plan.exists(&types) {
        return Err(Error::new(format!(
            "{full_group}/{} {} does not exist ({} is missing).\nRun `kube-markers create api \
             --group {} --version {} --kind {}` first.",
            k.version,
            k.kind,
            p.root.join(&types).display(),
            k.group,
            k.version,
            k.kind
        )));
    }
    let op = &p.operator;
    let module = format!("{}_{}_{}", k.group_ident(), k.version, k.snake());
    let file = format!("{op}/src/webhooks/{module}.rs");
    if plan.exists(&file) {
        return Err(Error::new(format!(
            "the webhooks of {full_group}/{} {} exist already: {}.\nAdd a handler there by \
             hand (kube-markers' docs/webhooks.md), or delete the file to scaffold it again.",
            k.version,
            k.kind,
            p.root.join(&file).display()
        )));
    }
    let plural = plan
        .read(&types)
        .and_then(|text| plural_in(&text))
        .unwrap_or_else(|| k.plural.clone());
    let lower = k.kind.to_ascii_lowercase();
    let group_dashed = full_group.replace('.', "-");
    let group_ident = k.group_ident();
    let values: &[(&str, &str)] = &[
        ("kind", &k.kind),
        ("lower", &lower),
        ("plural", &plural),
        ("group_ident", &group_ident),
        ("group_dashed", &group_dashed),
        ("full_group", &full_group),
        ("version", &k.version),
    ];
    let mut text = render(w::HEADER, values);
    if defaulting {
        text.push_str(&render(w::DEFAULTING, values));
    }
    if validation {
        text.push_str(&render(w::VALIDATION, values));
    }
    text.push_str(&render(w::TESTS, values));
    if defaulting {
        text.push_str(&render(w::DEFAULTING_TEST, values));
    }
    if validation {
        text.push_str(&render(w::VALIDATION_TEST, values));
    }
    text.push_str("}\n");
    plan.create(&file, text, "`kube-markers create webhook`")?;
    plan.insert(
        &format!("{op}/src/webhooks/mod.rs"),
        "webhooks",
        &format!("pub mod {module};"),
    )?;
    enable_webhook_server(plan, p)?;
    plan.edit_marked_line(
        "codegen/Cargo.toml",
        "bundle-webhooks",
        set_true,
        "write it as `webhooks = true`",
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
