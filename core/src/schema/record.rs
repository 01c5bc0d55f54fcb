//! The registry record of a `#[kube_markers::crd]` or `#[kube_markers::schema]` item: its
//! fields, their JSON names and places, and their `#[k8s(allow(...))]`s
//! ([`crate::schema_types::SchemaType`]), for the generator's API-convention lints and its
//! compatibility checks, which find each schema node's Rust field through it.

use super::shape::inner_type_name;
use crate::args::{ArgValue, Value, parse_args};
use crate::ctxt::Ctxt;
use crate::model::Source;
use crate::names::fields::{json_name, serde_has, serde_str};
use crate::schema_types::SchemaAllow;
use crate::schema_types::{SchemaField, SchemaType, SchemaTypeKind};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// What `expand::rewrite_item` read of the item for its registry record: the allows of the type
/// and of each field (of a struct), in order.
pub(crate) struct ReadAllows {
    pub(crate) type_allows: Vec<SchemaAllow>,
    pub(crate) field_allows: Vec<Vec<SchemaAllow>>,
}

/// `#[kube(status = "...")]`'s type, as written (kube-derive checks the attribute itself).
pub(super) fn status_type(attrs: &[syn::Attribute]) -> Option<String> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let mut scratch = Ctxt::new();
        let args = parse_args(list.tokens.clone(), "", &mut scratch);
        let _ = scratch.check();
        for arg in args {
            if arg.name() == "status"
                && let ArgValue::Value(Value::Lit(syn::Lit::Str(s))) = &arg.value
            {
                return Some(s.value());
            }
        }
    }
    None
}

/// (line, column), 1-based, of where `span` starts.
fn place(span: Span) -> (u32, u32) {
    let at = span.start();
    (at.line as u32, at.column as u32 + 1)
}

/// The record of `item` (already rewritten: its `#[k8s]` taken off), or nothing when the item
/// was not read. `status`: `Some` for a `#[kube_markers::crd]` struct, with its status type.
pub(super) fn schema_type_record(
    item: &syn::Item,
    read: Option<ReadAllows>,
    status: Option<Option<String>>,
) -> TokenStream {
    let Some(read) = read else {
        return TokenStream::new();
    };
    let (kind, ident, fields) = match item {
        syn::Item::Struct(s) => {
            let kind = match status {
                Some(_) => SchemaTypeKind::Crd,
                None => SchemaTypeKind::Struct,
            };
            let rename_all = serde_str(&s.attrs, "rename_all");
            let fields = s
                .fields
                .iter()
                .enumerate()
                .zip(read.field_allows)
                .map(|((i, field), allows)| {
                    let flatten = serde_has(&field.attrs, "flatten");
                    let skip = serde_has(&field.attrs, "skip");
                    let rust_name = field.ident.as_ref().map_or(i.to_string(), |id| {
                        let raw = id.to_string();
                        raw.strip_prefix("r#").unwrap_or(&raw).to_string()
                    });
                    let json = if flatten || skip {
                        None
                    } else {
                        json_name(field, rename_all.as_deref())
                    };
                    let span = field
                        .ident
                        .as_ref()
                        .map_or_else(|| field.ty.to_token_stream(), |i| i.to_token_stream())
                        .into_iter()
                        .next()
                        .map_or_else(Span::call_site, |t| t.span());
                    let (line, column) = place(span);
                    SchemaField {
                        rust_name: rust_name.into(),
                        json_name: json.map(Into::into),
                        flatten,
                        skip,
                        ty: field.ty.to_token_stream().to_string().into(),
                        inner: inner_type_name(&field.ty).unwrap_or_default().into(),
                        variant: None,
                        line,
                        column,
                        allows,
                    }
                })
                .collect();
            (kind, &s.ident, fields)
        }
        syn::Item::Enum(e) => (SchemaTypeKind::Enum, &e.ident, Vec::new()),
        _ => return TokenStream::new(),
    };
    let (line, column) = place(ident.span());
    let record = SchemaType {
        kind,
        // The file and module path are the record's own (`file!()`, `module_path!()`).
        source: Source::new("", line, column, "", ident.to_string()),
        status: status.flatten().map(Into::into),
        allows: read.type_allows,
        fields,
    };
    crate::registration::record_static(
        "SCHEMA_TYPE_RECORDS",
        quote::quote!(::kube_markers::__private::SchemaTypeRecord),
        &record.encode(),
        None,
        TokenStream::new(),
    )
}
