//! What a field's Rust type says about its JSON shape, where the type is visible: what the
//! markers are checked against.

/// What a field's Rust type says about its JSON shape, where it is visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Integer,
    Number,
    String,
    Bool,
    List,
    Map,
    /// A type of the user's (or one we don't know): anything goes.
    Unknown,
}

impl Shape {
    /// The schema `type` of a value of this shape.
    pub fn json_type(self) -> Option<&'static str> {
        match self {
            Shape::Integer => Some("integer"),
            Shape::Number => Some("number"),
            Shape::String => Some("string"),
            Shape::Bool => Some("boolean"),
            Shape::List => Some("array"),
            Shape::Map => Some("object"),
            Shape::Unknown => None,
        }
    }

    /// How errors name a value of this shape.
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Integer => "an integer",
            Shape::Number => "a number",
            Shape::String => "a string",
            Shape::Bool => "a boolean",
            Shape::List => "a list",
            Shape::Map => "a map",
            Shape::Unknown => "a value",
        }
    }
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn first_generic(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// `Option<T>` → `T`; `Box<T>`/`Arc<T>` → `T`.
pub fn strip_wrappers(ty: &syn::Type) -> (&syn::Type, bool) {
    let mut ty = ty;
    let mut optional = false;
    loop {
        match last_segment(ty) {
            Some(seg) if seg.ident == "Option" => {
                optional = true;
                match first_generic(seg) {
                    Some(inner) => ty = inner,
                    None => return (ty, optional),
                }
            }
            Some(seg) if seg.ident == "Box" || seg.ident == "Arc" || seg.ident == "Rc" => {
                match first_generic(seg) {
                    Some(inner) => ty = inner,
                    None => return (ty, optional),
                }
            }
            _ => return (ty, optional),
        }
    }
}

/// The JSON shape of a Rust type, looking through `Option`, `Box` and references.
pub fn shape_of(ty: &syn::Type) -> Shape {
    let (ty, _) = strip_wrappers(ty);
    match ty {
        syn::Type::Reference(r) => return shape_of(&r.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) => return Shape::List,
        _ => {}
    }
    let Some(seg) = last_segment(ty) else {
        return Shape::Unknown;
    };
    match seg.ident.to_string().as_str() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Shape::Integer,
        "f32" | "f64" => Shape::Number,
        "String" | "str" => Shape::String,
        "bool" => Shape::Bool,
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList" => Shape::List,
        "HashMap" | "BTreeMap" => Shape::Map,
        _ => Shape::Unknown,
    }
}

/// The element type of a list type, if visible.
pub fn item_type(ty: &syn::Type) -> Option<&syn::Type> {
    let (ty, _) = strip_wrappers(ty);
    match ty {
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        _ => {
            let seg = last_segment(ty)?;
            matches!(
                seg.ident.to_string().as_str(),
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList"
            )
            .then(|| first_generic(seg))
            .flatten()
        }
    }
}

/// The name of the type a field's value is made of, inside `Option`, `Box`, references,
/// lists and maps (a map's value): `Port` for `Option<Vec<Port>>`, `Condition` for
/// `Vec<k8s_openapi::...::Condition>`. An alias (`type Ports = Vec<Port>;`) is not seen
/// through: its own name is returned.
pub fn inner_type_name(ty: &syn::Type) -> Option<String> {
    let (ty, _) = strip_wrappers(ty);
    match ty {
        syn::Type::Reference(r) => return inner_type_name(&r.elem),
        syn::Type::Array(a) => return inner_type_name(&a.elem),
        syn::Type::Slice(s) => return inner_type_name(&s.elem),
        syn::Type::Paren(p) => return inner_type_name(&p.elem),
        _ => {}
    }
    let seg = last_segment(ty)?;
    let element = match seg.ident.to_string().as_str() {
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList" => first_generic(seg),
        "HashMap" | "BTreeMap" | "IndexMap" => match &seg.arguments {
            syn::PathArguments::AngleBracketed(args) => args
                .args
                .iter()
                .filter_map(|a| match a {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .nth(1),
            _ => None,
        },
        _ => return Some(seg.ident.to_string()),
    };
    element.and_then(inner_type_name)
}
