//! `#[kube_markers::crd]` and `#[kube_markers::schema]`: `#[k8s(...)]` → schemars transforms,
//! plus (for `crd`) the registry entry of the custom resource.

use super::allow::{self, AllowPlace};
use super::crd_args::parse_crd_args;
use super::patch::Patch;
use super::record::ReadAllows;
use super::rules::{immutable_once_set_rule, one_of_rule, rule_property};
use super::shape::{Shape, item_type, shape_of, strip_wrappers};
use super::vocabulary::{self, FieldFlags, OneOf, Parsed, Place};
use crate::args::{Arg, ArgValue, Value, parse_args};
use crate::ctxt::Ctxt;
use crate::names::fields::{conditional_naming, json_name, serde_has, serde_str};
use crate::schema_types::SchemaAllow;
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// `#[kube_markers::schema]` on a struct or enum used inside a CRD.
pub fn expand_schema(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    if let Some(tt) = args.into_iter().next() {
        cx.error_at(
            tt.span(),
            "#[kube_markers::schema] takes no arguments; put markers in #[k8s(...)]",
        );
    }
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(mut parsed) => {
            let record = if has_k8s(&parsed)
                && !derives(item_attrs(&parsed)).contains(&"JsonSchema".into())
            {
                derive_ran_first(&mut parsed, "schema", "#[derive(JsonSchema)]", &mut cx);
                TokenStream::new()
            } else {
                let read = rewrite_item(&mut parsed, AllowPlace::Type, &mut cx);
                super::record::schema_type_record(&parsed, read, None)
            };
            finish(quote!(#parsed #record), cx)
        }
        Err(e) => {
            cx.push(e);
            finish(item, cx)
        }
    }
}

/// `#[kube_markers::crd]` on the spec struct of a `#[derive(CustomResource)]`.
pub fn expand_crd(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let crd_args = parse_crd_args(args, &mut cx);
    let mut parsed = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(s)) => s,
        Ok(other) => {
            cx.error_at(
                first_span(&quote!(#other)),
                "#[kube_markers::crd] goes on the spec struct of a #[derive(CustomResource)]",
            );
            return finish(item, cx);
        }
        Err(e) => {
            cx.push(e);
            return finish(item, cx);
        }
    };
    let root = root_type(&parsed.attrs, parsed.ident.span(), &mut cx);
    let status = super::record::status_type(&parsed.attrs);
    let mut record = TokenStream::new();
    let mut as_item = syn::Item::Struct(parsed.clone());
    let derived = derives(&parsed.attrs);
    let has_kube = parsed.attrs.iter().any(|a| a.path().is_ident("kube"));
    if (has_kube && !derived.contains(&"CustomResource".into()))
        || (has_k8s(&as_item) && !derived.contains(&"JsonSchema".into()))
    {
        derive_ran_first(
            &mut as_item,
            "crd",
            "#[derive(CustomResource, JsonSchema)]",
            &mut cx,
        );
    } else {
        let mut read = rewrite_item(&mut as_item, AllowPlace::Kind, &mut cx);
        // The upgrade check's names in `#[kube_markers::crd(allow(...))]` are the kind's
        // allows, as if written in `#[k8s(allow(...))]` on the struct.
        if let Some(read) = &mut read {
            read.type_allows
                .extend(
                    crd_args
                        .allow
                        .iter()
                        .filter(|a| a.is_compat_check())
                        .map(|a| crate::schema_types::SchemaAllow {
                            name: a.name.into(),
                            reason: a.reason.clone().into(),
                            line: a.line,
                            column: a.column,
                        }),
                );
        }
        record = super::record::schema_type_record(&as_item, read, Some(status));
    }
    if let syn::Item::Struct(s) = as_item {
        parsed = s;
    }
    let Some(root) = root else {
        return finish(quote!(#parsed #record), cx);
    };
    let storage = crd_args.storage;
    let root_patch = crd_args.root.to_json();
    let type_name = root.to_string();
    let source = crate::registration::source_expr(&parsed.ident.to_string());
    let allow = crd_args
        .allow
        .iter()
        .filter(|a| !a.is_compat_check())
        .map(|a| {
            let (name, reason) = (a.name, &a.reason);
            quote!(::kube_markers::registry::CrdAllow::__new(#name, #reason))
        });
    let entry = crate::registration::registry_static(
        "CRD_ENTRIES",
        quote!(::kube_markers::registry::CrdEntry),
        quote! {
            ::kube_markers::registry::CrdEntry::__new(
                <#root as ::kube::CustomResourceExt>::crd,
                #storage,
                #root_patch,
                #type_name,
                #source,
            )
            .__allow(&[#(#allow),*])
        },
    );
    let registration = quote! {
        const _: () = {
            #entry
        };
    };
    finish(quote!(#parsed #registration #record), cx)
}

/// The names of the derive macros still listed on the item (the last segment of each path).
///
/// An attribute macro receives the item without the `#[derive]`s written above it: rustc has
/// expanded those already, on the item as it was before this attribute ran.
fn derives(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut names = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                names.push(last.ident.to_string());
            }
            Ok(())
        });
    }
    names
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        _ => &[],
    }
}

/// Whether the item, its fields or its variants carry `#[k8s]` markers.
fn has_k8s(item: &syn::Item) -> bool {
    let marked = |attrs: &[syn::Attribute]| attrs.iter().any(|a| a.path().is_ident("k8s"));
    let fields_marked = |fields: &syn::Fields| fields.iter().any(|f| marked(&f.attrs));
    match item {
        syn::Item::Struct(s) => marked(&s.attrs) || fields_marked(&s.fields),
        syn::Item::Enum(e) => {
            marked(&e.attrs)
                || e.variants
                    .iter()
                    .any(|v| marked(&v.attrs) || fields_marked(&v.fields))
        }
        _ => false,
    }
}

/// The attribute stands below the derives it must precede: they have run without seeing the
/// schemars transforms this attribute writes, so every `#[k8s]` marker would be silently lost.
/// Reports it and drops the markers (which no derive below would claim).
fn derive_ran_first(item: &mut syn::Item, attribute: &str, derive: &str, cx: &mut Ctxt) {
    cx.error_at(
        Span::call_site(),
        format!(
            "put #[kube_markers::{attribute}] above {derive}: derives written above this \
             attribute have already run, without the schema changes of its #[k8s] markers"
        ),
    );
    let strip = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| !a.path().is_ident("k8s"));
    let strip_fields = |fields: &mut syn::Fields| {
        for field in fields.iter_mut() {
            strip(&mut field.attrs);
        }
    };
    match item {
        syn::Item::Struct(s) => {
            strip(&mut s.attrs);
            strip_fields(&mut s.fields);
        }
        syn::Item::Enum(e) => {
            strip(&mut e.attrs);
            for variant in &mut e.variants {
                strip(&mut variant.attrs);
                strip_fields(&mut variant.fields);
            }
        }
        _ => {}
    }
}

fn finish(item: TokenStream, cx: Ctxt) -> TokenStream {
    match cx.check() {
        Ok(()) => item,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#item #errors)
        }
    }
}

fn first_span(tokens: &TokenStream) -> Span {
    tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

/// The type `#[derive(CustomResource)]` generates: `#[kube(root = "...")]`, else the kind.
fn root_type(attrs: &[syn::Attribute], fallback: Span, cx: &mut Ctxt) -> Option<syn::Ident> {
    let mut kind = None;
    let mut strukt = None;
    let mut found = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
        found = true;
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        // kube's own arguments are kube-derive's to check: ignore what we can't read.
        let mut scratch = Ctxt::new();
        for arg in parse_args(list.tokens.clone(), "", &mut scratch) {
            // Through macro_rules!, a `$kind:literal` arrives wrapped in an invisible group,
            // which the parser looks through.
            if let ArgValue::Value(Value::Lit(syn::Lit::Str(s))) = &arg.value {
                let s = s.clone();
                match arg.name() {
                    "kind" => kind = Some(s),
                    "root" => strukt = Some(s),
                    _ => {}
                }
            }
        }
        let _ = scratch.check();
    }
    let name = strukt.or(kind);
    match name {
        Some(lit) => match syn::parse_str::<syn::Ident>(&lit.value()) {
            Ok(mut ident) => {
                ident.set_span(lit.span());
                Some(ident)
            }
            Err(_) => {
                cx.error_at(lit.span(), "not a Rust identifier");
                None
            }
        },
        None => {
            let what = if found {
                "has no `kind = \"...\"`"
            } else {
                "is missing"
            };
            cx.error_at(
                fallback,
                format!(
                    "#[kube_markers::crd] needs the struct's #[kube(...)] attribute, which {what}: \
                     put it on the spec struct of a #[derive(CustomResource)]"
                ),
            );
            None
        }
    }
}

/// Takes the `#[k8s(...)]` attributes off `attrs` and returns their arguments.
fn take_k8s(attrs: &mut Vec<syn::Attribute>, cx: &mut Ctxt) -> (Vec<Arg>, Option<Span>) {
    let mut args = Vec::new();
    let mut span = None;
    attrs.retain(|attr| {
        if !attr.path().is_ident("k8s") {
            return true;
        }
        span.get_or_insert(attr.pound_token.span);
        match &attr.meta {
            syn::Meta::List(list) => args.extend(parse_args(
                list.tokens.clone(),
                "expected `key`, `key = value` or `key(...)`, e.g. `#[k8s(min_length = 1)]`",
                cx,
            )),
            _ => cx.error_at(
                attr.pound_token.span,
                "write markers as `#[k8s(key = value, ...)]`",
            ),
        }
        false
    });
    (args, span)
}

fn transform_attr(patch: &Patch, span: Span) -> syn::Attribute {
    let json = patch.to_json();
    syn::parse_quote_spanned! {span=>
        #[schemars(transform = ::kube_markers::__private::SchemaPatch::new(#json))]
    }
}

/// A field as the schema sees it.
struct FieldInfo {
    json_name: Option<String>,
    optional: bool,
    /// `#[serde(flatten)]`: its fields are the struct's, under names we cannot see.
    flatten: bool,
    /// `#[serde(skip)]`: never in the object.
    skip: bool,
    /// Its `#[k8s(allow(...))]`s.
    allows: Vec<SchemaAllow>,
}

/// What the struct's serde attributes say about every field.
struct ContainerSerde {
    rename_all: Option<String>,
    /// `#[serde(default)]`: every field may be left out.
    default: bool,
}

fn rewrite_item(item: &mut syn::Item, place: AllowPlace, cx: &mut Ctxt) -> Option<ReadAllows> {
    match item {
        syn::Item::Struct(s) => Some(rewrite_struct(s, place, cx)),
        syn::Item::Enum(e) => Some(ReadAllows {
            type_allows: rewrite_enum(e, cx),
            field_allows: Vec::new(),
        }),
        other => {
            cx.error_at(
                first_span(&quote!(#other)),
                "#[kube_markers::schema] goes on the structs and enums of a CRD's schema",
            );
            None
        }
    }
}

/// An enum takes markers on itself and on the fields of its variants, not on the variants.
fn rewrite_enum(e: &mut syn::ItemEnum, cx: &mut Ctxt) -> Vec<SchemaAllow> {
    let (mut args, span) = take_k8s(&mut e.attrs, cx);
    let allows = allow::parse_allows(&allow::take_allows(&mut args), AllowPlace::Type, cx);
    for variant in &mut e.variants {
        let (vargs, vspan) = take_k8s(&mut variant.attrs, cx);
        if let (false, Some(vspan)) = (vargs.is_empty(), vspan) {
            cx.error_at(
                vspan,
                "#[k8s] is not supported on enum variants; put it on the enum or on fields",
            );
        }
        for field in &mut variant.fields {
            rewrite_variant_field(field, cx);
        }
    }
    if let Some(span) = span {
        let parsed = vocabulary::parse(&args, Place::Type, Shape::Unknown, None, cx);
        reject_one_ofs(&parsed, cx, "enums");
        if !parsed.patch.is_empty() {
            e.attrs.push(transform_attr(&parsed.patch, span));
        }
    }
    allows
}

/// The field of an enum variant takes the markers of its own schema only.
fn rewrite_variant_field(field: &mut syn::Field, cx: &mut Ctxt) {
    let (mut args, span) = take_k8s(&mut field.attrs, cx);
    allow::reject_allows(
        &allow::take_allows(&mut args),
        "on the fields of enum variants; put it on the enum",
        cx,
    );
    let (false, Some(span)) = (args.is_empty(), span) else {
        return;
    };
    let parsed = vocabulary::parse(
        &args,
        Place::Field,
        shape_of(&field.ty),
        item_type(&field.ty),
        cx,
    );
    // These change the variant's object schema, which schemars builds without a hook for us:
    // refused rather than dropped.
    let flags = [
        (parsed.flags.required, "required"),
        (parsed.flags.optional, "optional"),
        (parsed.flags.immutable, "immutable"),
    ];
    for (span, flag) in flags {
        if let Some(span) = span {
            cx.error_at(
                span,
                format!(
                    "`{flag}` is not supported on the fields of enum variants; move the fields \
                     into a struct with #[kube_markers::schema] and mark them there"
                ),
            );
        }
    }
    if !parsed.patch.is_empty() {
        field.attrs.push(transform_attr(&parsed.patch, span));
    }
}

fn reject_one_ofs(parsed: &Parsed, cx: &mut Ctxt, what: &str) {
    for one_of in &parsed.one_ofs {
        cx.error_at(
            one_of.span,
            format!(
                "`{}` needs named fields; it is not supported on {what}",
                one_of.kind
            ),
        );
    }
}

/// A struct's fields get their own transforms; the struct's gets what its markers set, what its
/// fields ask of it (`required`, `optional`, once-set rules) and its one-of rules.
fn rewrite_struct(s: &mut syn::ItemStruct, place: AllowPlace, cx: &mut Ctxt) -> ReadAllows {
    reject_conditional_naming(s, cx);
    let serde = ContainerSerde {
        rename_all: serde_str(&s.attrs, "rename_all"),
        default: serde_has(&s.attrs, "default"),
    };
    let (mut type_args, type_span) = take_k8s(&mut s.attrs, cx);
    let type_allows = allow::parse_allows(&allow::take_allows(&mut type_args), place, cx);
    let named = matches!(s.fields, syn::Fields::Named(_));
    let mut container = Patch::default();
    let fields: Vec<FieldInfo> = s
        .fields
        .iter_mut()
        .map(|field| rewrite_field(field, &serde, named, &mut container, cx))
        .collect();
    let mut validations = match type_span {
        Some(_) => type_rules(&type_args, named, &fields, &mut container, cx),
        None => Vec::new(),
    };
    // The type's own rules come first, then those its fields add.
    validations.append(&mut container.validations);
    container.validations = validations;
    if !container.is_empty() {
        let span = type_span.unwrap_or_else(|| s.ident.span());
        s.attrs.push(transform_attr(&container, span));
    }
    ReadAllows {
        type_allows,
        field_allows: fields.into_iter().map(|f| f.allows).collect(),
    }
}

/// The markers name fields by their JSON names; a naming attribute the build may or may not
/// apply would make those names guesses (a `required` never met, a CEL rule on a field that
/// does not exist).
fn reject_conditional_naming(s: &syn::ItemStruct, cx: &mut Ctxt) {
    let marked = s.attrs.iter().any(|a| a.path().is_ident("k8s"))
        || s.fields
            .iter()
            .any(|f| f.attrs.iter().any(|a| a.path().is_ident("k8s")));
    if !marked {
        return;
    }
    let naming = std::iter::once(&s.attrs[..])
        .chain(s.fields.iter().map(|f| &f.attrs[..]))
        .filter_map(conditional_naming);
    for span in naming {
        cx.error_at(
            span,
            "#[k8s] markers need the JSON names of the fields, and a `cfg_attr` around \
             #[serde(...)] or #[schemars(...)] makes them depend on the build: write the \
             attribute without `cfg_attr`",
        );
    }
}

/// The field's markers become a transform of its schema; what they ask of the struct goes into
/// `container`.
fn rewrite_field(
    field: &mut syn::Field,
    serde: &ContainerSerde,
    named: bool,
    container: &mut Patch,
    cx: &mut Ctxt,
) -> FieldInfo {
    let flatten = serde_has(&field.attrs, "flatten");
    let (_, option) = strip_wrappers(&field.ty);
    let json_name = json_name(field, serde.rename_all.as_deref());
    let optional = option || serde.default || serde_has(&field.attrs, "default");
    let (mut args, span) = take_k8s(&mut field.attrs, cx);
    let allows = allow::parse_allows(&allow::take_allows(&mut args), AllowPlace::Field, cx);
    if let Some(span) = span {
        let parsed = vocabulary::parse(
            &args,
            Place::Field,
            shape_of(&field.ty),
            item_type(&field.ty),
            cx,
        );
        let name = json_name.clone().unwrap_or_default();
        apply_field_flags(&parsed.flags, &name, optional, named, container, cx);
        if !parsed.patch.is_empty() {
            field.attrs.push(transform_attr(&parsed.patch, span));
        }
    }
    FieldInfo {
        json_name,
        optional,
        flatten,
        skip: serde_has(&field.attrs, "skip"),
        allows,
    }
}

/// What a field's `required`, `optional` and `immutable` ask of the struct: the field `name`
/// in its `required` or `optional` list, a rule that keeps an optional field set once set.
fn apply_field_flags(
    flags: &FieldFlags,
    name: &str,
    optional: bool,
    named: bool,
    container: &mut Patch,
    cx: &mut Ctxt,
) {
    if let Some(r) = flags.required {
        if named {
            container.required.push(name.to_string());
        } else {
            cx.error_at(r, "`required` needs a named field");
        }
    }
    if let Some(o) = flags.optional {
        if !named {
            cx.error_at(o, "`optional` needs a named field");
        } else if !optional {
            cx.error_at(
                o,
                "`optional` needs a field serde can leave out when deserializing: make it \
                 `Option<T>` or add `#[serde(default)]` (otherwise objects the API server \
                 accepts would fail to deserialize)",
            );
        } else {
            container.optional.push(name.to_string());
        }
    }
    if let Some(immutable) = flags.immutable
        && optional
        && named
        && let Some(property) = rule_property(name, "immutable", immutable, cx)
    {
        container
            .validations
            .push(immutable_once_set_rule(&property));
    }
}

/// The struct's own markers: what they set goes into `container`; returned are their rules,
/// then the one-of rules.
fn type_rules(
    args: &[Arg],
    named: bool,
    fields: &[FieldInfo],
    container: &mut Patch,
    cx: &mut Ctxt,
) -> Vec<serde_json::Value> {
    let parsed = vocabulary::parse(args, Place::Type, Shape::Unknown, None, cx);
    let mut patch = parsed.patch;
    let mut rules = std::mem::take(&mut patch.validations);
    merge_into(container, patch);
    // controller-gen's order: type rules, then at-most, exactly, at-least one-of rules.
    let mut one_ofs: Vec<&OneOf> = parsed.one_ofs.iter().collect();
    one_ofs.sort_by_key(|o| {
        ["at_most_one_of", "exactly_one_of", "at_least_one_of"]
            .iter()
            .position(|k| *k == o.kind)
    });
    for one_of in one_ofs {
        if !named {
            cx.error_at(
                one_of.span,
                format!("`{}` needs a struct with named fields", one_of.kind),
            );
            continue;
        }
        rules.extend(one_of_struct_rule(one_of, fields, cx));
    }
    rules
}

/// The rule of a one-of group, when CEL can name every field it names. Records each field that
/// is not an optional field of the struct, or that CEL cannot name.
fn one_of_struct_rule(
    one_of: &OneOf,
    fields: &[FieldInfo],
    cx: &mut Ctxt,
) -> Option<serde_json::Value> {
    let mut properties = Vec::new();
    for (name, span) in &one_of.fields {
        check_one_of_field(name, *span, one_of.kind, fields, cx);
        if let Some(property) = rule_property(name, one_of.kind, *span, cx) {
            properties.push(property);
        }
    }
    (properties.len() == one_of.fields.len()).then(|| one_of_rule(one_of.kind, &properties))
}

/// A field of a one-of group of `kind` is one the struct may leave out. A name not found may be
/// one of a flattened field's.
fn check_one_of_field(name: &str, span: Span, kind: &str, fields: &[FieldInfo], cx: &mut Ctxt) {
    match fields
        .iter()
        .find(|f| f.json_name.as_deref() == Some(name))
    {
        Some(f) if f.flatten => cx.error_at(
            span,
            format!(
                "`{name}` is `#[serde(flatten)]`: its fields stand in this object, not under \
                 `{name}`, so `{kind}` could never see it; name its fields instead"
            ),
        ),
        Some(f) if f.skip => cx.error_at(
            span,
            format!(
                "`{name}` is `#[serde(skip)]`: it is never in the object, so `{kind}` could \
                 never see it"
            ),
        ),
        Some(f) if !f.optional => cx.error_at(
            span,
            format!(
                "`{name}` is required, so `{kind}` could never hold: make it `Option<T>` or `#[serde(default)]`"
            ),
        ),
        Some(_) => {}
        None if fields.iter().any(|f| f.flatten) => {}
        None => {
            let known: Vec<&str> = fields
                .iter()
                .filter_map(|f| f.json_name.as_deref())
                .collect();
            let hint = crate::suggest::did_you_mean(name, &known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_at(
                span,
                format!("no field named `{name}` (JSON name) in this struct{hint}"),
            );
        }
    }
}

fn merge_into(into: &mut Patch, from: Patch) {
    into.schemaless |= from.schemaless;
    into.unset.extend(from.unset);
    into.set.extend(from.set);
    if from.items.is_some() {
        into.items = from.items;
    }
    into.validations.extend(from.validations);
    into.required.extend(from.required);
    into.optional.extend(from.optional);
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn errors(item: TokenStream) -> String {
        let out = expand_schema(TokenStream::new(), item).to_string();
        assert!(out.contains("compile_error"), "{out}");
        out
    }

    #[test]
    fn optional_needs_a_named_field() {
        let out = errors(quote!(
            #[derive(JsonSchema)]
            struct Pair(#[k8s(optional)] Option<String>);
        ));
        assert!(out.contains("`optional` needs a named field"), "{out}");
        assert!(!out.contains("optional = [\"\"]"), "{out}");
    }

    #[test]
    fn a_one_of_cannot_name_a_flattened_or_skipped_field() {
        let out = errors(quote!(
            #[derive(JsonSchema)]
            #[k8s(exactly_one_of = ["a", "extra", "hidden"])]
            struct S {
                a: Option<String>,
                #[serde(flatten)]
                extra: Extra,
                #[serde(skip)]
                hidden: Option<String>,
            }
        ));
        assert!(out.contains("`extra` is `#[serde(flatten)]`"), "{out}");
        assert!(out.contains("`hidden` is `#[serde(skip)]`"), "{out}");
        assert!(!out.contains("`extra` is required"), "{out}");
    }
}
