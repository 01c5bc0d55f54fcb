//! Command-line flags of the generator, controller-gen's options spelled the Unix way.

use super::flags::{CommandLine, Flag, Parsed, invalid};
use crate::options::BundleFlags;
use crate::output::ledger;

pub use crate::options::Options;

pub use crate::usage::{TargetProblem, UsageError};

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // made once per run
#[non_exhaustive]
pub enum Command {
    /// `--help`.
    Help,
    /// Generate (or check) with these options.
    Run(Options),
}

/// Names the options' type once, for the closures of the table.
type F = Flag<Options>;

/// The generator's run: its flags set [`Options`] directly.
pub(crate) static COMMAND_LINE: CommandLine<Options> = CommandLine {
    name: "",
    summary: "",
    about: "Generate RBAC manifests, CRDs, webhook manifests and a deploy bundle from the \
            #[kube_markers::rbac], #[kube_markers::crd] and #[kube_markers::webhook] attributes \
            linked into this binary.",
    usage: &["[OPTIONS]", "COMMAND [ARGS]"],
    positionals: None,
    flags: &[
        F::value(
            "out",
            "DIR",
            "Directory to write manifests to, relative to the current directory; by default \
             the workspace root's rbac-out, from wherever in the workspace the generator runs",
            |o, v| {
                o.out_dir = v.into();
                o.out_dir_is_default = false;
                Ok(())
            },
        )
        .default("rbac-out"),
        F::value(
            "crd-out",
            "DIR",
            "Directory to write CRDs to, one <group>_<plural>.yaml each",
            |o, v| {
                o.crd_out_dir = Some(v.into());
                Ok(())
            },
        )
        .default("<out>/crd"),
        F::value(
            "webhook-out",
            "DIR",
            "Directory to write the webhooks' manifests.yaml to",
            |o, v| {
                o.webhook_out_dir = Some(v.into());
                Ok(())
            },
        )
        .default("<out>/webhook"),
        F::value(
            "docs-out",
            "DIR",
            "Directory to write the CRD reference docs to (a Markdown page per CRD and an index)",
            |o, v| {
                o.docs_out_dir = Some(v.into());
                Ok(())
            },
        )
        .default("<out>/docs"),
        F::value(
            "role-name",
            "NAME",
            "Name of the ClusterRole/Roles whose attributes set no role_name",
            |o, v| {
                kube_markers_core::names::dns1123_subdomain(&v).map_err(|why| {
                    invalid(
                        "--role-name",
                        v.clone(),
                        format!("is not a valid role name: {why}"),
                    )
                })?;
                o.role_name = v;
                Ok(())
            },
        )
        .default(kube_markers_rbac::DEFAULT_ROLE_NAME),
        F::value(
            "file-name",
            "NAME",
            "File name of the RBAC manifest in --out",
            |o, v| {
                if !ledger::is_plain_file_name(&v) {
                    return Err(invalid(
                        "--file-name",
                        v,
                        "must be a plain file name; use `--out` for the directory".into(),
                    ));
                }
                o.file_name = v;
                Ok(())
            },
        )
        .default("role.yaml"),
        F::value(
            "header-file",
            "PATH",
            "Text to put before the manifests; \" YEAR\" is replaced by --year",
            |o, v| {
                o.header_file = Some(v.into());
                Ok(())
            },
        ),
        F::value(
            "year",
            "YEAR",
            "Replacement for \" YEAR\" in the header",
            |o, v| {
                o.year = v;
                Ok(())
            },
        )
        .default("empty, as controller-gen"),
        F::switch(
            "check",
            "Write nothing; fail with a unified diff if a file is stale or missing",
            |o| o.check = true,
        ),
        F::value(
            "manifest-path",
            "PATH",
            "Cargo.toml of the workspace to scan for attributes",
            |o, v| {
                o.manifest_path = Some(v.into());
                Ok(())
            },
        )
        .default("found by cargo from the current directory"),
        F::switch(
            "no-scan",
            "Skip the workspace scan that catches crates missing from link!() (and reading the \
             bundle's identity from Cargo.toml)",
            |o| o.no_scan = true,
        ),
        F::value(
            "generator-name",
            "NAME",
            "Names this generator's ledger, .kube-markers-<NAME>.sha256, in each directory it \
             writes to",
            |o, v| {
                ledger::check_generator_name(&v).map_err(|why| {
                    invalid(
                        "--generator-name",
                        v.clone(),
                        format!("is not a valid generator name: {why}"),
                    )
                })?;
                o.generator_name = v;
                Ok(())
            },
        )
        .default("the generator's package"),
        F::switch(
            "deny-warnings",
            "Fail (exit 1, writing nothing) if there is any warning: a lint of an #[rbac] \
             attribute that no allow(LINT, reason = \"...\") accepts, or any other warning known \
             before writing",
            |o| o.deny_warnings = true,
        ),
        F::switch(
            "allow-breaking",
            "Write CRDs that break the ones written before (a field removed, a type changed, a \
             maximum lowered, ...: see docs/upgrades.md) for this run; the changes are listed in \
             the summary",
            |o| o.allow_breaking = true,
        ),
        F::switch(
            "rbac-from-source",
            "Regenerate the roles and the deploy bundle from the #[rbac] attributes in the \
             workspace's sources, without rebuilding this binary: for the edit loop. It refuses \
             (writing nothing) attributes only the compiler can read (undecidable or off cfgs, \
             macro input, files the scan cannot follow); CRDs and webhooks are left as they are, \
             so after editing types run `{rerun}`",
            |o| o.rbac_from_source = true,
        ),
        F::switch(
            "no-docs",
            "Write no CRD reference docs (<out>/docs: a Markdown page per CRD and an index); \
             the docs an earlier run wrote there are removed",
            |o| o.no_docs = true,
        ),
        F::switch(
            "no-bundle",
            "Write only the roles and CRDs, no deploy bundle",
            |o| o.bundle.off = true,
        ),
        F::value(
            "operator-name",
            "NAME",
            "The operator's name (bundle)",
            |o, v| {
                o.bundle.name = Some(v);
                Ok(())
            },
        )
        .default("from Cargo.toml metadata"),
        F::value(
            "operator-namespace",
            "NS",
            "The operator's namespace (bundle)",
            |o, v| {
                o.bundle.namespace = Some(v);
                Ok(())
            },
        )
        .default("<name>-system"),
        F::value("image", "IMAGE", "The manager's image (bundle)", |o, v| {
            o.bundle.image = Some(v);
            Ok(())
        })
        .default("controller:latest"),
    ],
    notes: "Every #[rbac], #[crd] and #[webhook] found in the workspace's library sources must be \
            in the registry: a crate the generator does not link is an error naming the file and \
            line, never a silently smaller role, a missing CRD or a missing webhook.\n\
            \n\
            The ledger lists the files this generator wrote with their SHA-256. It removes a file \
            only if the ledger lists it, it no longer generates it, and its content is unchanged; \
            files it did not write are never touched. Commit the ledgers with the outputs: \
            --check checks them too.",
};

/// The generator's `--help`, naming it as `invocation` runs it, with its subcommands.
pub fn help(invocation: &crate::invocation::Invocation) -> String {
    super::render_help(&COMMAND_LINE, invocation)
}

impl Command {
    /// Parses arguments (without the program name, nor a subcommand): `--flag value` and
    /// `--flag=value` both work, and `-h`.
    pub fn parse<I, S>(args: I) -> Result<Command, UsageError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut opts = Options::default();
        if COMMAND_LINE.parse(&mut opts, args.into_iter().map(Into::into))? == Parsed::Help {
            return Ok(Command::Help);
        }
        if opts.no_scan && opts.rbac_from_source {
            // The attributes are read by the scan.
            return Err(UsageError::Conflict {
                first: "--rbac-from-source",
                second: "--no-scan",
            });
        }
        if opts.no_scan && opts.manifest_path.is_some() {
            return Err(UsageError::NoScanWithManifestPath);
        }
        if opts.bundle.off
            && (opts.bundle
                != BundleFlags {
                    off: true,
                    ..Default::default()
                })
        {
            return Err(UsageError::NoBundleWithIdentity);
        }
        Ok(Command::Run(opts))
    }
}
