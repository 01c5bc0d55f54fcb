//! A generic `K` resolved where the crate calls the function: `fn apply<K>(api: &Api<K>)`
//! called as `apply(&deployments)` or `apply::<Deployment>(..)` needs its verbs on
//! Deployments. Each call site must fix `K` (by turbofish, or by an argument of known kind,
//! through other generic functions a few levels deep); a call site that does not, or a
//! function no call site reaches, leaves the kind unknown and says why: never a guess.

use crate::input::scan::calls::{GenericFn, KindRef};
use crate::input::sources::FoundCalls;
use std::path::Path;

/// Generic functions calling generic functions: deeper chains are said to be unknown.
const MAX_DEPTH: usize = 4;

/// The kinds `param` of `function` stands for at the crate's call sites (each `Type` or
/// `Field`, deduplicated), or why it cannot be told.
pub(super) fn instances(
    files: &[&FoundCalls],
    root: &Path,
    function: &str,
    param: &str,
) -> Result<Vec<KindRef>, String> {
    let mut out = Vec::new();
    collect(files, root, function, param, 0, &mut out)?;
    out.sort();
    out.dedup();
    Ok(out)
}

fn collect(
    files: &[&FoundCalls],
    root: &Path,
    function: &str,
    param: &str,
    depth: usize,
    out: &mut Vec<KindRef>,
) -> Result<(), String> {
    let unknown = |why: String| {
        Err(format!(
            "its kind is the generic `{param}` of `{function}`, and {why}"
        ))
    };
    if depth > MAX_DEPTH {
        return unknown(format!(
            "it is passed through more than {MAX_DEPTH} generic functions"
        ));
    }
    let mut fns: Vec<&GenericFn> = files
        .iter()
        .flat_map(|f| &f.calls.generic_fns)
        .filter(|g| g.name == function)
        .collect();
    fns.dedup();
    let generic = match fns.as_slice() {
        [one] => *one,
        [] => return unknown("the crate has no generic function of that name".into()),
        _ => {
            return unknown(format!(
                "the crate has {} generic functions named `{function}`",
                fns.len()
            ));
        }
    };
    let Some(index) = generic.type_params.iter().position(|p| p == param) else {
        return unknown("it is not one of the function's own type parameters".into());
    };
    let mut sites = 0;
    for file in files {
        // A call with another number of arguments and no turbofish is another function's.
        let sites_of = |i: &&crate::input::scan::calls::Instantiation| {
            i.name == function && (i.args.len() == generic.params.len() || !i.turbofish.is_empty())
        };
        for site in file.calls.instantiations.iter().filter(sites_of) {
            sites += 1;
            let shown = || {
                let file = file.file.strip_prefix(root).unwrap_or(&file.file);
                format!("{}:{}", file.display(), site.line)
            };
            let from_turbofish = (site.turbofish.len() == generic.type_params.len())
                .then(|| site.turbofish[index].clone());
            let from_args = generic
                .params
                .iter()
                .zip(&site.args)
                .find_map(|(p, a)| (p.as_deref() == Some(param)).then(|| a.clone()).flatten());
            match from_turbofish.or(from_args) {
                Some(KindRef::Generic {
                    function: outer,
                    param: outer_param,
                }) => collect(files, root, &outer, &outer_param, depth + 1, out)?,
                Some(KindRef::Unknown(why)) => {
                    return unknown(format!("its call at {} does not fix it: {why}", shown()));
                }
                // `helper(&self.docs)`: the crate's field (or function) typed `Api<K>`.
                Some(KindRef::Field(name)) => {
                    let fields: Vec<(String, KindRef)> = files
                        .iter()
                        .flat_map(|f| f.calls.api_fields.iter().cloned())
                        .collect();
                    match super::field_kind(&fields, &name) {
                        Some(KindRef::Unknown(why)) => {
                            return unknown(format!(
                                "its call at {} does not fix it: {why}",
                                shown()
                            ));
                        }
                        Some(kind) => out.push(kind),
                        None => {
                            return unknown(format!(
                                "its call at {} passes `{name}`, which the crate types as no \
                                 `Api<K>`",
                                shown()
                            ));
                        }
                    }
                }
                Some(kind) => out.push(kind),
                None => {
                    return unknown(format!("its call at {} does not fix it", shown()));
                }
            }
        }
    }
    if sites == 0 {
        return unknown("no call of it in the crate fixes it".into());
    }
    Ok(())
}
