//! The functions of kube-apiserver 1.37's CEL environment for CRD rules, as declared by cel-go's
//! standard library and the libraries `k8s.io/apiserver/pkg/cel/environment/base.go` enables
//! for new expressions (compatibility version 1.36 on a 1.37 server): ext.Strings v2, ext.Sets,
//! ext.Lists v3, ext.TwoVarComprehensions, optional types, cross-type numeric comparisons, and
//! Kubernetes' lists v0, regex, URLs, quantity, IP, CIDR, format, semver v1 and authz.
//!
//! Overload order is cel-go's: when several overloads match, the first decides the result type.

use crate::types::{Type, parse_decl_type};
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Debug)]
pub struct Overload {
    pub id: String,
    pub member: bool,
    /// With the receiver first for member overloads.
    pub params: Vec<Type>,
    pub result: Type,
    pub type_params: Vec<String>,
}

/// Each line: `function overload_id (params) -> result` or `function overload_id recv.(params) -> result`.
const STANDARD: &str = r#"
_?_:_ conditional (bool, A, A) -> A
_&&_ logical_and (bool, bool) -> bool
_||_ logical_or (bool, bool) -> bool
!_ logical_not (bool) -> bool
@not_strictly_false not_strictly_false (bool) -> bool
_==_ equals (A, A) -> bool
_!=_ not_equals (A, A) -> bool
_+_ add_bytes (bytes, bytes) -> bytes
_+_ add_double (double, double) -> double
_+_ add_duration_duration (duration, duration) -> duration
_+_ add_duration_timestamp (duration, timestamp) -> timestamp
_+_ add_timestamp_duration (timestamp, duration) -> timestamp
_+_ add_int64 (int, int) -> int
_+_ add_list (list(A), list(A)) -> list(A)
_+_ add_string (string, string) -> string
_+_ add_uint64 (uint, uint) -> uint
_/_ divide_double (double, double) -> double
_/_ divide_int64 (int, int) -> int
_/_ divide_uint64 (uint, uint) -> uint
_%_ modulo_int64 (int, int) -> int
_%_ modulo_uint64 (uint, uint) -> uint
_*_ multiply_double (double, double) -> double
_*_ multiply_int64 (int, int) -> int
_*_ multiply_uint64 (uint, uint) -> uint
-_ negate_double (double) -> double
-_ negate_int64 (int) -> int
_-_ subtract_double (double, double) -> double
_-_ subtract_duration_duration (duration, duration) -> duration
_-_ subtract_int64 (int, int) -> int
_-_ subtract_timestamp_duration (timestamp, duration) -> timestamp
_-_ subtract_timestamp_timestamp (timestamp, timestamp) -> duration
_-_ subtract_uint64 (uint, uint) -> uint
_[_] index_list (list(A), int) -> A
_[_] index_map (map(A, B), A) -> B
@in in_list (A, list(A)) -> bool
@in in_map (A, map(A, B)) -> bool
size size_bytes (bytes) -> int
size bytes_size bytes.() -> int
size size_list (list(A)) -> int
size list_size list(A).() -> int
size size_map (map(A, B)) -> int
size map_size map(A, B).() -> int
size size_string (string) -> int
size string_size string.() -> int
type type (A) -> type(A)
bool bool_to_bool (bool) -> bool
bool string_to_bool (string) -> bool
bytes bytes_to_bytes (bytes) -> bytes
bytes string_to_bytes (string) -> bytes
double double_to_double (double) -> double
double int64_to_double (int) -> double
double string_to_double (string) -> double
double uint64_to_double (uint) -> double
duration duration_to_duration (duration) -> duration
duration string_to_duration (string) -> duration
dyn to_dyn (A) -> dyn
int int64_to_int64 (int) -> int
int double_to_int64 (double) -> int
int duration_to_int64 (duration) -> int
int string_to_int64 (string) -> int
int timestamp_to_int64 (timestamp) -> int
int uint64_to_int64 (uint) -> int
string string_to_string (string) -> string
string bool_to_string (bool) -> string
string bytes_to_string (bytes) -> string
string double_to_string (double) -> string
string duration_to_string (duration) -> string
string int64_to_string (int) -> string
string timestamp_to_string (timestamp) -> string
string uint64_to_string (uint) -> string
timestamp timestamp_to_timestamp (timestamp) -> timestamp
timestamp int64_to_timestamp (int) -> timestamp
timestamp string_to_timestamp (string) -> timestamp
uint uint64_to_uint64 (uint) -> uint
uint double_to_uint64 (double) -> uint
uint int64_to_uint64 (int) -> uint
uint string_to_uint64 (string) -> uint
contains contains_string string.(string) -> bool
endsWith ends_with_string string.(string) -> bool
startsWith starts_with_string string.(string) -> bool
matches matches (string, string) -> bool
matches matches_string string.(string) -> bool
getFullYear timestamp_to_year timestamp.() -> int
getFullYear timestamp_to_year_with_tz timestamp.(string) -> int
getMonth timestamp_to_month timestamp.() -> int
getMonth timestamp_to_month_with_tz timestamp.(string) -> int
getDayOfYear timestamp_to_day_of_year timestamp.() -> int
getDayOfYear timestamp_to_day_of_year_with_tz timestamp.(string) -> int
getDayOfMonth timestamp_to_day_of_month timestamp.() -> int
getDayOfMonth timestamp_to_day_of_month_with_tz timestamp.(string) -> int
getDate timestamp_to_day_of_month_1_based timestamp.() -> int
getDate timestamp_to_day_of_month_1_based_with_tz timestamp.(string) -> int
getDayOfWeek timestamp_to_day_of_week timestamp.() -> int
getDayOfWeek timestamp_to_day_of_week_with_tz timestamp.(string) -> int
getHours timestamp_to_hours timestamp.() -> int
getHours timestamp_to_hours_with_tz timestamp.(string) -> int
getHours duration_to_hours duration.() -> int
getMinutes timestamp_to_minutes timestamp.() -> int
getMinutes timestamp_to_minutes_with_tz timestamp.(string) -> int
getMinutes duration_to_minutes duration.() -> int
getSeconds timestamp_to_seconds timestamp.() -> int
getSeconds timestamp_to_seconds_with_tz timestamp.(string) -> int
getSeconds duration_to_seconds duration.() -> int
getMilliseconds timestamp_to_milliseconds timestamp.() -> int
getMilliseconds timestamp_to_milliseconds_with_tz timestamp.(string) -> int
getMilliseconds duration_to_milliseconds duration.() -> int
"#;

/// `_<_` and friends with cross-type numeric comparisons, in cel-go's order.
fn comparisons() -> String {
    let mut out = String::new();
    for (op, name) in [
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ] {
        for (suffix, l, r) in [
            ("bool", "bool", "bool"),
            ("int64", "int", "int"),
            ("int64_double", "int", "double"),
            ("int64_uint64", "int", "uint"),
            ("uint64", "uint", "uint"),
            ("uint64_double", "uint", "double"),
            ("uint64_int64", "uint", "int"),
            ("double", "double", "double"),
            ("double_int64", "double", "int"),
            ("double_uint64", "double", "uint"),
            ("string", "string", "string"),
            ("bytes", "bytes", "bytes"),
            ("timestamp", "timestamp", "timestamp"),
            ("duration", "duration", "duration"),
        ] {
            out.push_str(&format!("{op} {name}_{suffix} ({l}, {r}) -> bool\n"));
        }
    }
    out
}

const EXTENSIONS: &str = r#"
charAt string_char_at_int string.(int) -> string
indexOf string_index_of_string string.(string) -> int
indexOf string_index_of_string_int string.(string, int) -> int
lastIndexOf string_last_index_of_string string.(string) -> int
lastIndexOf string_last_index_of_string_int string.(string, int) -> int
lowerAscii string_lower_ascii string.() -> string
replace string_replace_string_string string.(string, string) -> string
replace string_replace_string_string_int string.(string, string, int) -> string
split string_split_string string.(string) -> list(string)
split string_split_string_int string.(string, int) -> list(string)
substring string_substring_int string.(int) -> string
substring string_substring_int_int string.(int, int) -> string
trim string_trim string.() -> string
upperAscii string_upper_ascii string.() -> string
format string_format string.(list(dyn)) -> string
strings.quote strings_quote (string) -> string
join list_join list(string).() -> string
join list_join_string list(string).(string) -> string
sets.contains list_sets_contains_list (list(T), list(T)) -> bool
sets.equivalent list_sets_equivalent_list (list(T), list(T)) -> bool
sets.intersects list_sets_intersects_list (list(T), list(T)) -> bool
slice list_slice list(T).(int, int) -> list(T)
flatten list_flatten list(list(T)).() -> list(T)
flatten list_flatten_int list(dyn).(int) -> list(dyn)
lists.range lists_range (int) -> list(int)
reverse list_reverse list(T).() -> list(T)
distinct list_distinct list(T).() -> list(T)
cel.@mapInsert @mapInsert_map_key_value (map(K, V), K, V) -> map(K, V)
cel.@mapInsert @mapInsert_map_map (map(K, V), map(K, V)) -> map(K, V)
optional.of optional_of (V) -> optional(V)
optional.ofNonZeroValue optional_ofNonZeroValue (V) -> optional(V)
optional.none optional_none () -> optional(T)
first list_first list(V).() -> optional(V)
last list_last list(V).() -> optional(V)
optional.unwrap optional_unwrap (list(optional(V))) -> list(V)
unwrapOpt optional_unwrapOpt list(optional(V)).() -> list(V)
value optional_value optional(V).() -> V
hasValue optional_hasValue optional(V).() -> bool
or optional_or_optional optional(V).(optional(V)) -> optional(V)
orValue optional_orValue_value optional(V).(V) -> V
_?._ select_optional_field (dyn, string) -> dyn
_[?_] map_optindex_optional_value (map(K, V), K) -> optional(V)
_[?_] optional_map_optindex_optional_value (optional(map(K, V)), K) -> optional(V)
_[?_] list_optindex_optional_int (list(V), int) -> optional(V)
_[?_] optional_list_optindex_optional_int (optional(list(V)), int) -> optional(V)
_[_] optional_map_index_value (optional(map(K, V)), K) -> optional(V)
_[_] optional_list_index_int (optional(list(V)), int) -> optional(V)
indexOf list_a_index_of_int list(A).(A) -> int
lastIndexOf list_a_last_index_of_int list(A).(A) -> int
find string_find_string string.(string) -> string
findAll string_find_all_string string.(string) -> list(string)
findAll string_find_all_string_int string.(string, int) -> list(string)
url string_to_url (string) -> kubernetes.URL
getScheme url_get_scheme kubernetes.URL.() -> string
getHost url_get_host kubernetes.URL.() -> string
getHostname url_get_hostname kubernetes.URL.() -> string
getPort url_get_port kubernetes.URL.() -> string
getEscapedPath url_get_escaped_path kubernetes.URL.() -> string
getQuery url_get_query kubernetes.URL.() -> map(string, list(string))
isURL is_url_string (string) -> bool
quantity string_to_quantity (string) -> kubernetes.Quantity
isQuantity is_quantity_string (string) -> bool
sign quantity_sign (kubernetes.Quantity) -> int
isGreaterThan quantity_is_greater_than kubernetes.Quantity.(kubernetes.Quantity) -> bool
isLessThan quantity_is_less_than kubernetes.Quantity.(kubernetes.Quantity) -> bool
compareTo quantity_compare_to kubernetes.Quantity.(kubernetes.Quantity) -> int
asApproximateFloat quantity_get_float kubernetes.Quantity.() -> double
asInteger quantity_get_int kubernetes.Quantity.() -> int
isInteger quantity_is_integer kubernetes.Quantity.() -> bool
add quantity_add kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity
add quantity_add_int kubernetes.Quantity.(int) -> kubernetes.Quantity
sub quantity_sub kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity
sub quantity_sub_int kubernetes.Quantity.(int) -> kubernetes.Quantity
ip string_to_ip (string) -> net.IP
ip cidr_ip net.CIDR.() -> net.IP
family ip_family net.IP.() -> int
ip.isCanonical ip_is_canonical (string) -> bool
isUnspecified ip_is_unspecified net.IP.() -> bool
isLoopback ip_is_loopback net.IP.() -> bool
isLinkLocalMulticast ip_is_link_local_multicast net.IP.() -> bool
isLinkLocalUnicast ip_is_link_local_unicast net.IP.() -> bool
isGlobalUnicast ip_is_global_unicast net.IP.() -> bool
isIP is_ip (string) -> bool
string ip_to_string (net.IP) -> string
cidr string_to_cidr (string) -> net.CIDR
containsIP cidr_contains_ip_string net.CIDR.(string) -> bool
containsIP cidr_contains_ip_ip net.CIDR.(net.IP) -> bool
containsCIDR cidr_contains_cidr_string net.CIDR.(string) -> bool
containsCIDR cidr_contains_cidr net.CIDR.(net.CIDR) -> bool
prefixLength cidr_prefix_length net.CIDR.() -> int
masked cidr_masked net.CIDR.() -> net.CIDR
isCIDR is_cidr (string) -> bool
string cidr_to_string (net.CIDR) -> string
validate format-validate kubernetes.NamedFormat.(string) -> optional(list(string))
format.named format-named (string) -> optional(kubernetes.NamedFormat)
semver string_to_semver (string) -> kubernetes.Semver
semver string_bool_to_semver (string, bool) -> kubernetes.Semver
isSemver is_semver_string (string) -> bool
isSemver is_semver_string_bool (string, bool) -> bool
isGreaterThan semver_is_greater_than kubernetes.Semver.(kubernetes.Semver) -> bool
isLessThan semver_is_less_than kubernetes.Semver.(kubernetes.Semver) -> bool
compareTo semver_compare_to kubernetes.Semver.(kubernetes.Semver) -> int
major semver_major kubernetes.Semver.() -> int
minor semver_minor kubernetes.Semver.() -> int
patch semver_patch kubernetes.Semver.() -> int
path authorizer_path kubernetes.authorization.Authorizer.(string) -> kubernetes.authorization.PathCheck
group authorizer_group kubernetes.authorization.Authorizer.(string) -> kubernetes.authorization.GroupCheck
serviceAccount authorizer_serviceaccount kubernetes.authorization.Authorizer.(string, string) -> kubernetes.authorization.Authorizer
resource groupcheck_resource kubernetes.authorization.GroupCheck.(string) -> kubernetes.authorization.ResourceCheck
subresource resourcecheck_subresource kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck
namespace resourcecheck_namespace kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck
name resourcecheck_name kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck
check pathcheck_check kubernetes.authorization.PathCheck.(string) -> kubernetes.authorization.Decision
check resourcecheck_check kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.Decision
errored decision_errored kubernetes.authorization.Decision.() -> bool
error decision_error kubernetes.authorization.Decision.() -> string
allowed decision_allowed kubernetes.authorization.Decision.() -> bool
reason decision_reason kubernetes.authorization.Decision.() -> string
fieldSelector authorizer_fieldselector kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck
labelSelector authorizer_labelselector kubernetes.authorization.ResourceCheck.(string) -> kubernetes.authorization.ResourceCheck
"#;

/// Kubernetes' `comparableTypes` and `summableTypes` (lists v0, and ext.Lists' sort).
const COMPARABLE: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "duration",
    "timestamp",
    "string",
    "bytes",
];
const SUMMABLE: &[&str] = &["int", "uint", "double", "duration"];
const FORMATS: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

fn templated() -> String {
    let mut out = String::new();
    for t in COMPARABLE {
        out.push_str(&format!(
            "isSorted list_{t}_is_sorted_bool list({t}).() -> bool\n"
        ));
    }
    for t in SUMMABLE {
        out.push_str(&format!("sum list_{t}_sum_{t} list({t}).() -> {t}\n"));
    }
    for f in ["max", "min"] {
        for t in COMPARABLE {
            out.push_str(&format!("{f} list_{t}_{f}_{t} list({t}).() -> {t}\n"));
        }
    }
    for t in COMPARABLE {
        out.push_str(&format!("sort list_{t}_sort list({t}).() -> list({t})\n"));
    }
    for t in COMPARABLE {
        out.push_str(&format!(
            "@sortByAssociatedKeys list_{t}_sortByAssociatedKeys list(T).(list({t})) -> list(T)\n"
        ));
    }
    for f in FORMATS {
        out.push_str(&format!(
            "format.{f} format.{f} () -> kubernetes.NamedFormat\n"
        ));
    }
    out
}

pub struct Functions {
    pub by_name: HashMap<String, Vec<Overload>>,
}

impl Functions {
    pub fn get() -> &'static Functions {
        static F: OnceLock<Functions> = OnceLock::new();
        F.get_or_init(|| {
            let mut by_name: HashMap<String, Vec<Overload>> = HashMap::new();
            let text = [
                STANDARD.to_string(),
                comparisons(),
                EXTENSIONS.to_string(),
                templated(),
            ]
            .concat();
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let (name, overload) = parse_line(line);
                by_name.entry(name).or_default().push(overload);
            }
            Functions { by_name }
        })
    }
}

fn parse_line(line: &str) -> (String, Overload) {
    let mut parts = line.splitn(3, ' ');
    let name = parts.next().expect("name").to_string();
    let id = parts.next().expect("overload id").to_string();
    let sig = parts.next().expect("signature");
    let (args, result) = sig.rsplit_once(" -> ").expect("-> result");
    let (receiver, args) = match args.rsplit_once(".(") {
        Some((recv, rest)) if !args.starts_with('(') => (Some(recv), &rest[..rest.len() - 1]),
        _ => (None, &args[1..args.len() - 1]),
    };
    let mut params: Vec<Type> = receiver.map(parse_decl_type).into_iter().collect();
    if !args.trim().is_empty() {
        params.extend(split_top(args).into_iter().map(parse_decl_type));
    }
    let result = parse_decl_type(result);
    let mut type_params = Vec::new();
    for t in params.iter().chain(std::iter::once(&result)) {
        collect_params(t, &mut type_params);
    }
    (
        name,
        Overload {
            id,
            member: receiver.is_some(),
            params,
            result,
            type_params,
        },
    )
}

fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn collect_params(t: &Type, out: &mut Vec<String>) {
    match t {
        Type::TypeParam(n) if !out.contains(n) => out.push(n.clone()),
        Type::List(e) => collect_params(e, out),
        Type::Map(k, v) => {
            collect_params(k, out);
            collect_params(v, out);
        }
        Type::Opaque(_, p) => p.iter().for_each(|p| collect_params(p, out)),
        Type::TypeOf(Some(p)) => collect_params(p, out),
        _ => {}
    }
}

/// Identifiers the environment declares besides `self` and `oldSelf`: the type names.
pub fn type_ident(name: &str) -> Option<Type> {
    let t = match name {
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "string" => Type::String,
        "null_type" => Type::Null,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "type" => Type::TypeOf(None),
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        _ => return None,
    };
    Some(Type::TypeOf(Some(Box::new(t))))
}
