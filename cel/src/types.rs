//! CEL's checker types and their unification, as cel-go's `checker/types.go` defines them.

use std::collections::HashMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Dyn,
    Error,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// An opaque type: `optional_type(T)`, `net.IP`, `net.CIDR`.
    Opaque(String, Vec<Type>),
    /// A message type: the schema's objects (`selfType….spec`) and Kubernetes' library types
    /// (`kubernetes.Quantity`, `kubernetes.URL`, `kubernetes.Semver`, `kubernetes.NamedFormat`).
    Struct(String),
    TypeParam(String),
    /// `type` or `type(T)`.
    TypeOf(Option<Box<Type>>),
}

pub const OPTIONAL: &str = "optional_type";

impl Type {
    pub fn list(t: Type) -> Type {
        Type::List(Box::new(t))
    }
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Box::new(k), Box::new(v))
    }
    pub fn optional(t: Type) -> Type {
        Type::Opaque(OPTIONAL.into(), vec![t])
    }
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }
    pub fn unwrap_optional(&self) -> Option<&Type> {
        match self {
            Type::Opaque(name, params) if name == OPTIONAL => params.first(),
            _ => None,
        }
    }
    fn params(&self) -> Vec<&Type> {
        match self {
            Type::List(e) => vec![e],
            Type::Map(k, v) => vec![k, v],
            Type::Opaque(_, p) => p.iter().collect(),
            Type::TypeOf(Some(t)) => vec![t],
            _ => vec![],
        }
    }
    /// The kind, as cel-go's `types.Kind` distinguishes types for assignability.
    fn kind(&self) -> u8 {
        match self {
            Type::Dyn => 0,
            Type::Error => 1,
            Type::Null => 2,
            Type::Bool => 3,
            Type::Int => 4,
            Type::Uint => 5,
            Type::Double => 6,
            Type::String => 7,
            Type::Bytes => 8,
            Type::Duration => 9,
            Type::Timestamp => 10,
            Type::List(_) => 11,
            Type::Map(..) => 12,
            Type::Opaque(..) => 13,
            Type::Struct(_) => 14,
            Type::TypeParam(_) => 15,
            Type::TypeOf(_) => 16,
        }
    }
    fn type_name(&self) -> &str {
        match self {
            Type::Opaque(n, _) | Type::Struct(n) | Type::TypeParam(n) => n,
            _ => "",
        }
    }
    /// Scalars in cel-go's cost model: their size is 1.
    pub fn is_scalar(&self) -> bool {
        match self {
            Type::Bool
            | Type::Double
            | Type::Duration
            | Type::Int
            | Type::Timestamp
            | Type::Uint => true,
            _ => self.unwrap_optional().is_some_and(Type::is_scalar),
        }
    }
}

/// cel-go's `FormatCELType`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Error => f.write_str("!error!"),
            Type::Null => f.write_str("null"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Duration => f.write_str("duration"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Opaque(n, p) if p.is_empty() => f.write_str(n),
            Type::Opaque(n, p) => {
                write!(f, "{n}(")?;
                for (i, t) in p.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Type::Struct(n) | Type::TypeParam(n) => f.write_str(n),
            Type::TypeOf(None) => f.write_str("type"),
            Type::TypeOf(Some(t)) => write!(f, "type({t})"),
        }
    }
}

/// Type-parameter substitutions found so far (cel-go's `mapping`).
#[derive(Clone, Debug, Default)]
pub struct Mapping(HashMap<String, Type>);

impl Mapping {
    fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::TypeParam(n) => self.0.get(n),
            _ => None,
        }
    }
    fn add(&mut self, param: &Type, t: Type) {
        if let Type::TypeParam(n) = param {
            self.0.insert(n.clone(), t);
        }
    }

    /// Whether `from` may be given where `to` is expected, committing substitutions if so.
    pub fn assign(&mut self, to: &Type, from: &Type) -> bool {
        let mut copy = self.clone();
        if copy.internal_assignable(to, from) {
            *self = copy;
            true
        } else {
            false
        }
    }

    pub fn assign_list(&mut self, to: &[Type], from: &[Type]) -> bool {
        let mut copy = self.clone();
        if to.len() == from.len()
            && to
                .iter()
                .zip(from)
                .all(|(t, f)| copy.internal_assignable(t, f))
        {
            *self = copy;
            true
        } else {
            false
        }
    }

    fn internal_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        if let Type::TypeParam(_) = t2 {
            let (valid, has_sub) = self.valid_substitution(t1, t2);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if let Type::TypeParam(_) = t1 {
            return self.valid_substitution(t2, t1).0;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        if *t1 == Type::Null {
            return nullable(t2);
        }
        if *t2 == Type::Null {
            return nullable(t1);
        }
        match t1 {
            Type::TypeOf(_) => matches!(t2, Type::TypeOf(_)),
            Type::List(_) | Type::Map(..) | Type::Opaque(..) => {
                let (p1, p2) = (t1.params(), t2.params());
                t1.kind() == t2.kind()
                    && t1.type_name() == t2.type_name()
                    && p1.len() == p2.len()
                    && p1
                        .iter()
                        .zip(&p2)
                        .all(|(a, b)| self.internal_assignable(a, b))
            }
            _ => t1.kind() == t2.kind() && t1.type_name() == t2.type_name(),
        }
    }

    fn valid_substitution(&mut self, t1: &Type, t2: &Type) -> (bool, bool) {
        if t1 == t2 {
            return (true, true);
        }
        if let Some(sub) = self.find(t2).cloned() {
            if *t1 == sub {
                return (true, true);
            }
            if self.internal_assignable(t1, &sub) {
                let general = most_general(t1, &sub).clone();
                if self.not_referenced_in(t2, &general) {
                    self.add(t2, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1) {
            self.add(t2, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    fn not_referenced_in(&self, t: &Type, within: &Type) -> bool {
        if t == within {
            return false;
        }
        match within {
            Type::TypeParam(_) => match self.find(within) {
                None => true,
                Some(sub) => self.not_referenced_in(t, sub),
            },
            Type::Opaque(..) | Type::List(_) | Type::Map(..) | Type::TypeOf(_) => {
                within.params().iter().all(|p| self.not_referenced_in(t, p))
            }
            _ => true,
        }
    }

    /// The type with substitutions applied; unbound parameters become `dyn` if `to_dyn`.
    pub fn substitute(&self, t: &Type, to_dyn: bool) -> Type {
        if let Some(sub) = self.find(t) {
            return self.substitute(sub, to_dyn);
        }
        match t {
            Type::TypeParam(_) if to_dyn => Type::Dyn,
            Type::List(e) => Type::list(self.substitute(e, to_dyn)),
            Type::Map(k, v) => Type::map(self.substitute(k, to_dyn), self.substitute(v, to_dyn)),
            Type::Opaque(n, p) => Type::Opaque(
                n.clone(),
                p.iter().map(|p| self.substitute(p, to_dyn)).collect(),
            ),
            Type::TypeOf(Some(p)) => Type::TypeOf(Some(Box::new(self.substitute(p, to_dyn)))),
            _ => t.clone(),
        }
    }
}

fn nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Null | Type::Opaque(..) | Type::Struct(_) | Type::Duration | Type::Timestamp
    )
}

fn less_specific(t1: &Type, t2: &Type) -> bool {
    if t1.is_dyn() || matches!(t1, Type::TypeParam(_)) {
        return true;
    }
    if t2.is_dyn() || matches!(t2, Type::TypeParam(_)) {
        return false;
    }
    if t1.kind() != t2.kind() {
        return false;
    }
    match (t1, t2) {
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(a, b)| less_specific(a, b))
        }
        (Type::List(a), Type::List(b)) => less_specific(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => less_specific(k1, k2) && less_specific(v1, v2),
        (Type::TypeOf(_), _) => true,
        _ => t1 == t2,
    }
}

pub fn most_general<'a>(t1: &'a Type, t2: &'a Type) -> &'a Type {
    if less_specific(t1, t2) { t1 } else { t2 }
}

/// Parses a type as the declaration tables spell it: `list(A)`, `map(K, V)`, `optional(T)`,
/// `net.IP`, `kubernetes.Quantity`; a single capital letter is a type parameter.
pub fn parse_decl_type(s: &str) -> Type {
    let s = s.trim();
    let (name, args) = match s.find('(') {
        Some(i) => {
            let inner = &s[i + 1..s.len() - 1];
            let mut args = Vec::new();
            let (mut depth, mut start) = (0, 0);
            for (j, c) in inner.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        args.push(parse_decl_type(&inner[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            args.push(parse_decl_type(&inner[start..]));
            (&s[..i], args)
        }
        None => (s, vec![]),
    };
    let mut args = args.into_iter();
    match name {
        "dyn" => Type::Dyn,
        "null" => Type::Null,
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "duration" => Type::Duration,
        "timestamp" => Type::Timestamp,
        "list" => Type::list(args.next().expect("list(T)")),
        "map" => {
            let k = args.next().expect("map(K, V)");
            Type::map(k, args.next().expect("map(K, V)"))
        }
        "optional" => Type::optional(args.next().expect("optional(T)")),
        "type" => Type::TypeOf(args.next().map(Box::new)),
        n if n.starts_with("net.") => Type::Opaque(n.into(), vec![]),
        n if n.starts_with("kubernetes.") => Type::Struct(n.into()),
        n if n.len() == 1 && n.chars().all(|c| c.is_ascii_uppercase()) => Type::TypeParam(n.into()),
        n => panic!("unknown type `{n}` in a declaration table"),
    }
}
