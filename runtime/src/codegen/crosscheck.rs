//! Registry vs. source scan: every attribute in the workspace's sources that the build
//! compiles must have reached the registry, or the generated manifests silently lack it.

use super::cfg::{CfgEnv, Truth};
use super::scan::{AttrKind, FoundAttr, ScanReport};
use crate::registry::{CrdEntry, RbacEntry, Source};
use std::path::{Path, PathBuf};

/// What the cross-check found. Errors fail the run; warnings are printed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Findings {
    /// Attributes the registry lacks (and scan failures).
    pub errors: Vec<String>,
    /// Attributes behind a `cfg` that is off, entries with no attribute in the source, and the
    /// scan's own warnings.
    pub warnings: Vec<String>,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether a registry entry's `file!()` names `file` (canonical). `file!()` is absolute for
/// crates outside the build's workspace and relative to the build's workspace root otherwise;
/// that root is normally the scanned one, but a relative path is also matched as a suffix so a
/// generator built in an enclosing workspace still finds its entries.
fn names_file(source: &Source, workspace_root: &Path, file: &Path) -> bool {
    let written = Path::new(source.file);
    if written.is_absolute() {
        return canonical(written) == file;
    }
    let under_root = workspace_root.join(written);
    if under_root.exists() {
        return canonical(&under_root) == file;
    }
    file.ends_with(written)
}

fn same_marker(attr: &FoundAttr, entry: &RbacEntry) -> bool {
    attr.marker
        .as_ref()
        .is_some_and(|m| *m == crate::rbac::RbacMarker::from(entry))
}

/// Compares what the linker kept with what the source says.
///
/// The macros make every attribute that compiles visible to the scan, at the line and column
/// its registry entry records. An attribute the registry lacks is then an error unless its
/// `cfg`s are off in the workspace's build (`cfgs` evaluates them).
pub fn cross_check(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    scan: &ScanReport,
    linked_crates: &[&str],
    workspace_root: &Path,
    cfgs: &CfgEnv,
) -> Findings {
    cross_check_all(
        entries,
        crds,
        &[],
        scan,
        linked_crates,
        workspace_root,
        cfgs,
    )
}

/// [`cross_check`] with the registered attributes of the other kinds (`#[webhook]`,
/// `#[webhook_configuration]`), matched by place only.
pub fn cross_check_all(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    others: &[(AttrKind, Source)],
    scan: &ScanReport,
    linked_crates: &[&str],
    workspace_root: &Path,
    cfgs: &CfgEnv,
) -> Findings {
    let mut findings = Findings {
        errors: scan.errors.clone(),
        warnings: scan.warnings.clone(),
    };
    let root = canonical(workspace_root);
    let rel = |p: &Path| -> String {
        canonical(p)
            .strip_prefix(&root)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };

    // Every registered attribute, with what the scan must find for it.
    let registered: Vec<(AttrKind, &Source, Option<&RbacEntry>)> = entries
        .iter()
        .map(|e| (AttrKind::Rbac, &e.source, Some(*e)))
        .chain(crds.iter().map(|c| (AttrKind::Crd, &c.source, None)))
        .chain(others.iter().map(|(kind, source)| (*kind, source, None)))
        .collect();
    let mut matched = vec![false; registered.len()];
    let at_place = |attr: &FoundAttr, (line, column): (usize, usize), i: usize| {
        let (kind, source, _) = &registered[i];
        *kind == attr.kind
            && source.line as usize == line
            && source.column as usize == column
            && names_file(source, &root, &canonical(&attr.file))
    };
    // Each attribute's own place first; then, for attributes inside `cfg_attr`, the
    // `cfg_attr`'s `#`, where the compiler puts those whose item went through another
    // attribute macro first (several can share that place: same arguments decide).
    let mut found: Vec<Option<usize>> = scan
        .attrs
        .iter()
        .map(|attr| {
            let hit = (0..registered.len()).find(|&i| at_place(attr, (attr.line, attr.column), i));
            if let Some(i) = hit {
                matched[i] = true;
            }
            hit
        })
        .collect();
    for (a, attr) in scan.attrs.iter().enumerate() {
        let Some(outer) = attr.outer.filter(|_| found[a].is_none()) else {
            continue;
        };
        let same_args = |i: usize| registered[i].2.is_none_or(|e| same_marker(attr, e));
        let hit = (0..registered.len())
            .find(|&i| !matched[i] && at_place(attr, outer, i) && same_args(i));
        if let Some(i) = hit {
            matched[i] = true;
            found[a] = Some(i);
        }
    }
    for (attr, hit) in scan.attrs.iter().zip(&found) {
        let at = format!("{}:{}", rel(&attr.file), attr.line);
        if let Some(i) = *hit {
            if let Some(entry) = registered[i].2
                && !same_marker(attr, entry)
            {
                findings.errors.push(format!(
                    "{at}: the registry entry differs from the #[rbac] in the source; the \
                     generator was built from other sources than the ones scanned \
                     (rebuild it with `cargo run`)"
                ));
            }
            continue;
        }
        let truth = if attr.cfgs.is_empty() {
            Truth::True
        } else {
            cfgs.eval_all(&attr.cfgs, &attr.package)
        };
        match truth {
            Truth::False(why) => findings.warnings.push(format!(
                "{at}: #[{}] behind `{}` is not in the workspace's build ({why}), so it is not \
                 in the output",
                attr.kind.name(),
                shown_cfgs(attr),
            )),
            _ if attr
                .target
                .as_deref()
                .is_some_and(|t| t.starts_with("example:")) =>
            {
                findings.warnings.push(format!(
                    "{at}: #[{}] in example `{}` of package `{}` is not in the output: examples \
                     cannot be linked into a generator (move the code into the library if the \
                     operator needs it)",
                    attr.kind.name(),
                    attr.target.as_deref().unwrap_or_default().trim_start_matches("example:"),
                    attr.package
                ))
            }
            // A file no module tree reaches, of a linked crate: had it been compiled, its
            // entries would be in the registry.
            _ if attr.target.is_none()
                && linked_crates.contains(&attr.krate.as_str()) =>
            {
                findings.warnings.push(format!(
                    "{at}: #[{}] in a file that no `mod` or `include!` of package `{}` leads to,                      and not in the registry: the file does not seem to be compiled",
                    attr.kind.name(),
                    attr.package
                ))
            }
            truth => findings
                .errors
                .push(missing_message(attr, &at, linked_crates, &truth)),
        }
    }

    // Entries of files in this workspace that the scan did not find. (Entries of crates
    // outside it, e.g. reconcilers published on crates.io, are expected.)
    for ((kind, source, _), _) in registered.iter().zip(&matched).filter(|(_, m)| !**m) {
        let path = root.join(source.file);
        if path.starts_with(&root) && path.exists() {
            findings.warnings.push(format!(
                "{}:{}: registry entry of #[{}] ({}) has no attribute at that place in the \
                 scanned sources (is the generator built from other sources, or is the file \
                 outside the scanned packages?)",
                rel(&path),
                source.line,
                kind.name(),
                source.item
            ));
        }
    }
    findings
}

fn shown_cfgs(attr: &FoundAttr) -> String {
    attr.cfgs
        .iter()
        .map(|c| format!("cfg({c})"))
        .collect::<Vec<_>>()
        .join("` and `")
}

fn missing_message(attr: &FoundAttr, at: &str, linked_crates: &[&str], truth: &Truth) -> String {
    let krate = &attr.krate;
    let name = attr.kind.name();
    // Why the scan counts the attribute as compiled.
    let active = match truth {
        Truth::Unknown(why) => format!(
            " (the scan cannot tell whether `{}` is active: {why})",
            shown_cfgs(attr)
        ),
        _ if attr.cfgs.is_empty() => String::new(),
        _ => format!(
            " (`{}` is active in the workspace's build)",
            shown_cfgs(attr)
        ),
    };
    match &attr.target {
        Some(target) => {
            if let Some(bin) = target.strip_prefix("bin:") {
                return format!(
                    "{at}: #[{name}] in binary target `{bin}` of package `{}` cannot reach the \
                     generator (only library crates can be linked into it); move the \
                     reconciler into the package's library{active}",
                    attr.package
                );
            }
        }
        None => {
            return format!(
                "{at}: #[{name}] in a file that no `mod` or `include!` the scan can follow \
                 leads to (package `{}`): if the file is compiled (a `mod` declared by a macro, \
                 an `include!` of a computed path), its attributes are lost unless crate \
                 `{krate}` is linked into the generator (add it to `kube_markers::link!`); if \
                 it is not compiled, delete it",
                attr.package
            );
        }
    }
    if linked_crates.contains(&krate.as_str()) {
        let feature_hint = if attr.cfgs.iter().any(|c| c.to_string().contains("feature")) {
            " If a feature turns it on, enable that feature where the generator depends on \
             the crate: the generator's build decides what is in the registry."
        } else {
            ""
        };
        format!(
            "{at}: #[{name}] in crate `{krate}` is missing from the registry although the crate \
             is linked{active}: is the generator built from these sources?{feature_hint}"
        )
    } else {
        format!(
            "{at}: #[{name}] in crate `{krate}` is missing from the registry: the generator does \
             not link crate `{krate}`; add it to `kube_markers::link!(...)` in the generator's \
             main.rs (and to its [dependencies]){active}"
        )
    }
}
