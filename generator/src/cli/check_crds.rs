//! `check-crds PATH...`: the generator's CRD checks on any CRD file, with a cost report of the
//! CEL rules (`--costs`, `--output json`).

use super::flags::{CommandLine, Flag, Parsed, Positionals};
use super::format::Output;
use crate::usage::UsageError;
use kube_markers_crdcheck::files::{self, FileReport};
use std::path::PathBuf;
use std::process::ExitCode;

/// What the command line gives.
#[derive(Default)]
pub(crate) struct Args {
    paths: Vec<PathBuf>,
    costs: bool,
    output: Output,
    /// `--previous OLD`: compare with these CRDs instead ([`super::upgrade`]).
    previous: Option<String>,
    /// `--policy CHECK=LEVEL`, in order.
    policy: Vec<String>,
}

type F = Flag<Args>;

/// `check-crds`' command line.
pub(crate) static COMMAND_LINE: CommandLine<Args> = CommandLine {
    name: "check-crds",
    summary: "Check CRD files as kube-apiserver 1.37 would on create: schemas, CEL type and cost",
    about: "Check CRD files (hand-written, controller-gen's, from Helm charts) as the generator \
            checks its own: names and versions, structural schemas, defaults, list-map keys, \
            printer-column, selectable-field and scale paths, and every CEL rule and message \
            expression type-checked and costed as kube-apiserver 1.37 does, with the server's \
            own errors. A rule over the cost budget names the list, map or string to bound and \
            the largest bound that keeps it under budget. PATH is a file or a directory \
            (walked for .yaml, .yml and .json).",
    usage: &["PATH... [OPTIONS]"],
    positionals: Some(Positionals {
        what: "path",
        choices: &[],
        add: |args, arg| {
            args.paths.push(PathBuf::from(arg));
            Ok(())
        },
    }),
    flags: &[
        F::switch(
            "costs",
            "Also print each CEL expression's estimated cost: per call, how many times it may \
             run per object, the product, its share of the schema's budget, and what bounds \
             it (the maxItems, maxProperties and maxLength it depends on, or the sizes derived \
             from the request-size limit where they are not set)",
            |args| args.costs = true,
        ),
        F::value(
            "output",
            "FORMAT",
            "`text`; `json` for tools: every file's problems, warnings and cost report; \
             `github` for a GitHub Actions step: each finding as a workflow command \
             (`::error file=...,line=...::`), which marks the file's line",
            |args, v| {
                args.output = Output::parse(&v);
                Ok(())
            },
        )
        .short('o')
        .default("text")
        .choices(&["text", "json", "github"]),
        F::value("format", "FORMAT", "The same as --output", |args, v| {
            args.output = Output::parse(&v);
            Ok(())
        })
        .choices(&["text", "json", "github"]),
        F::value(
            "previous",
            "OLD",
            "Compare PATH's CRDs with the ones they replace instead: OLD is a CRD file, a \
             directory of them, or `cluster` (the CRDs installed in kubectl's current context, \
             with their status.storedVersions). Reports every breaking change with crdify's \
             check names, one line each (`--output json`: a list of findings)",
            |args, v| {
                args.previous = Some(v);
                Ok(())
            },
        ),
        F::value(
            "policy",
            "CHECK=LEVEL",
            "With --previous: what a check's findings are, `error`, `warn` or `off` \
             (`maximum=warn`); also `enum-additions=disallow`, and `alpha=warn` or `alpha=off` \
             (findings on alpha versions then warnings, each saying so). Over the workspace's \
             [workspace.metadata.kube-markers.upgrade], read from its Cargo.toml, which \
             applies without it",
            |args, v| {
                super::upgrade::policy_entry(&v)?;
                args.policy.push(v);
                Ok(())
            },
        )
        .repeatable(),
    ],
    notes: "Exit status: 0 when the API server would accept every CRD, 1 when it would refuse \
            one, 2 for a bad command line or a path whose CRDs cannot be read (it does not \
            exist, cannot be read, is not YAML, or is a file holding no CRD).\n\
            YAML is read as kubectl reads it (YAML 1.1 booleans and octal numbers, a key given \
            twice keeping its last value, reported); an unquoted key y, n, yes, no, on or off, \
            which kubectl turns into the property true or false, is reported as a warning.\n\
            With --previous: 0 when no finding is an error, 1 when one is, 2 for a bad command \
            line or CRDs that cannot be read.",
};

fn parse(args: &[String]) -> Result<Option<Args>, UsageError> {
    let mut parsed = Args::default();
    if COMMAND_LINE.parse(&mut parsed, args.iter().cloned())? == Parsed::Help {
        return Ok(None);
    }
    if parsed.paths.is_empty() {
        return Err(UsageError::MissingArgument {
            what: "PATH: a CRD file or a directory of them".into(),
        });
    }
    if parsed.previous.is_some() && parsed.costs {
        return Err(UsageError::Conflict {
            first: "--previous",
            second: "--costs",
        });
    }
    if let (Some(entry), None) = (parsed.policy.first(), &parsed.previous) {
        return Err(super::flags::invalid(
            "--policy",
            entry.clone(),
            "needs `--previous OLD`: it sets what a comparison reports".into(),
        ));
    }
    Ok(Some(parsed))
}

/// `<bin> check-crds PATH...`.
pub fn main(args: &[String]) -> ExitCode {
    let args = match parse(args) {
        Ok(None) => return super::print_help(&COMMAND_LINE),
        Ok(Some(args)) => args,
        Err(e) => return super::usage_error(&COMMAND_LINE, &e),
    };
    if let Some(previous) = &args.previous {
        return super::upgrade::main(previous, &args.paths, &args.policy, args.output);
    }
    let paths = match files::collect(&args.paths) {
        Ok(paths) => paths,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Files found in a directory without CRDs in them (a chart's other manifests) are left out.
    let reports: Vec<FileReport> = kube_markers_cel::map_on_large_stacks(&paths, |(p, named)| {
        files::check_file_with(p, *named, args.costs || args.output == Output::Json)
    })
    .into_iter()
    .filter(|r| !r.crds.is_empty() || !r.errors.is_empty())
    .collect();
    let skipped = skipped_documents(&paths);
    match args.output {
        Output::Json => {
            let json = serde_json::to_string_pretty(&reports).expect("the report serializes");
            super::print_out(&format!("{json}\n"));
        }
        Output::Text => super::print_out(&render(&reports, args.costs)),
        Output::Github => super::print_out(&render_github(&reports)),
    }
    if let Some(skipped) = skipped {
        eprintln!("{skipped}");
    }
    if reports.iter().any(|r| r.unreadable) {
        ExitCode::from(2)
    } else if reports.iter().all(FileReport::accepted) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The text report.
pub fn render(reports: &[FileReport], costs: bool) -> String {
    let mut out = String::new();
    let (mut crds, mut refused) = (0, 0);
    for r in reports {
        for e in &r.errors {
            out.push_str(&format!("{}: error: {e}\n", r.file));
        }
        for w in &r.warnings {
            out.push_str(&format!("{}: warning: {w}\n", r.file));
        }
        for crd in &r.crds {
            crds += 1;
            refused += usize::from(!crd.problems.is_empty());
            for p in &crd.problems {
                out.push_str(&format!("{}: {}: {p}\n", r.file, crd.name));
            }
            for w in &crd.warnings {
                out.push_str(&format!("{}: {}: warning: {w}\n", r.file, crd.name));
            }
            if costs {
                for v in &crd.versions {
                    out.push_str(&format!(
                        "{}: {} {}: CEL cost {} of {} ({:.2}%)\n",
                        r.file,
                        crd.name,
                        v.version,
                        v.total,
                        v.limit,
                        share(v.total, v.limit)
                    ));
                    for e in &v.expressions {
                        let times = if e.cardinality_unbounded {
                            format!("{} (no maxItems/maxProperties above it)", e.cardinality)
                        } else {
                            e.cardinality.to_string()
                        };
                        out.push_str(&format!(
                            "  {}: {} per call × {times} = {} ({:.2}%): {}\n",
                            files::short_path(&e.path),
                            e.per_call,
                            e.cost,
                            share(e.cost, v.limit),
                            e.expression
                        ));
                        out.push_str(&format!(
                            "    bounded by: {}\n",
                            bounds_text(&e.bounds, e.per_call)
                        ));
                    }
                }
            }
        }
    }
    out.push_str(&format!(
        "{} file(s), {crds} CRD(s): {}\n",
        reports.len(),
        {
            let with_errors = reports.iter().filter(|r| !r.errors.is_empty()).count();
            match (refused, with_errors) {
                (0, 0) => "the API server would accept them".to_string(),
                (refused, 0) => format!("{refused} the API server would refuse"),
                (refused, files) => format!(
                    "{refused} the API server would refuse, and {files} file(s) with errors"
                ),
            }
        }
    ));
    out
}

/// The report as GitHub Actions workflow commands: each finding an annotation where the check
/// placed it ([`FileReport::findings`]: the line and column of the node it names, a file's
/// error or warning on the line it names), the file's own first, then each CRD's; then the
/// summary line, which a workflow log shows as it is.
pub fn render_github(reports: &[FileReport]) -> String {
    use super::github::{Level, Place, annotation, file_name};
    use kube_markers_crdcheck::Severity;
    let mut out = String::new();
    for r in reports {
        let file = file_name(&r.file);
        let mut findings: Vec<_> = r.findings().iter().collect();
        // The file's errors, its warnings, then the CRDs' findings in their order.
        findings.sort_by_key(|f| match (&f.crd, f.severity) {
            (None, Severity::Error) => 0,
            (None, Severity::Warning) => 1,
            (Some(_), _) => 2,
        });
        for f in findings {
            let place = Place {
                file: Some(file.clone()),
                line: f.line,
                col: f.column,
            };
            let (level, title) = match (&f.crd, f.severity) {
                (None, Severity::Error) => (Level::Error, "check-crds".to_string()),
                (None, Severity::Warning) => (Level::Warning, "check-crds".to_string()),
                (Some(crd), Severity::Error) => (
                    Level::Error,
                    format!("{crd}: the API server would refuse it"),
                ),
                (Some(crd), Severity::Warning) => (Level::Warning, crd.clone()),
            };
            out.push_str(&annotation(level, &place, &title, &f.message));
        }
    }
    // The summary, as the text report ends.
    let text = render(reports, false);
    out.push_str(text.lines().last().unwrap_or_default());
    out.push('\n');
    out
}

/// The documents of `paths` that are not CRDs, which the checks skip, said once: `None`
/// when there are none.
fn skipped_documents(paths: &[(PathBuf, bool)]) -> Option<String> {
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    let mut in_files = 0;
    for (path, named) in paths {
        let Ok((text, _)) = files::read_text(path) else {
            continue;
        };
        let Ok((docs, _)) = files::read_documents(&text) else {
            continue;
        };
        let objects: Vec<&serde_json::Value> = docs
            .iter()
            .filter(|d| !d.is_null())
            .flat_map(files::objects)
            .collect();
        let is_crd = |o: &&serde_json::Value| o["kind"] == "CustomResourceDefinition";
        // A file named without a CRD is an error already.
        if *named && !objects.iter().any(is_crd) {
            continue;
        }
        let before: usize = kinds.values().sum();
        for object in objects.iter().filter(|o| !is_crd(o)) {
            let kind = object["kind"].as_str().unwrap_or("no kind").to_string();
            *kinds.entry(kind).or_default() += 1;
        }
        in_files += usize::from(kinds.values().sum::<usize>() > before);
    }
    let total: usize = kinds.values().sum();
    if total == 0 {
        return None;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    Some(format!(
        "note: skipped {total} document(s) that are not CRDs, in {in_files} file(s): {}",
        kinds.join(", ")
    ))
}

/// What bounds one expression's cost, in words: the lists and maps above it (`×`), then what
/// one evaluation reads; a size the schema does not declare is the one the API server derives
/// from the request-size limit.
fn bounds_text(bounds: &[kube_markers_cel::SizeBound], per_call: u64) -> String {
    if bounds.is_empty() && per_call > kube_markers_cel::PER_EXPRESSION_LIMIT {
        return "no size (a value without a size estimate, such as string() of a number, \
                costs as if unbounded)"
            .into();
    }
    if bounds.is_empty() {
        return "nothing (its cost does not depend on any size)".into();
    }
    let parts: Vec<String> = bounds
        .iter()
        .map(|b| {
            let node = files::short_path(&b.schema_path);
            let times = if b.multiplies { "× " } else { "" };
            if b.declared {
                format!("{times}{} {} at {node}", b.keyword, b.size)
            } else if b.multiplies {
                format!(
                    "{times}{node} without {} (so the API server counts {} runs in all, derived \
                     from the request-size limit)",
                    b.keyword, b.size
                )
            } else {
                let unit = match b.keyword {
                    "maxLength" => "characters",
                    "maxItems" => "items",
                    _ => "properties",
                };
                format!(
                    "{node} without {} (taken as {} {unit}, derived from the request-size limit)",
                    b.keyword, b.size
                )
            }
        })
        .collect();
    parts.join("; ")
}

fn share(cost: u64, limit: u64) -> f64 {
    cost as f64 * 100.0 / limit as f64
}
