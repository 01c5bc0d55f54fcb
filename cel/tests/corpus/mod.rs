//! The differential corpus: CRD schemas with rules, generated deterministically, whose
//! verdicts kube-apiserver recorded (`tests/data/verdicts.json`, by
//! `envtest/tests/cel_differential.rs`). Each case is one version's `openAPIV3Schema`.

use serde_json::{Value, json};

pub struct Case {
    pub id: String,
    pub schema: Value,
}

/// xorshift64*: deterministic across platforms, so ids name the same cases forever.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// `None` or one of `bounds`.
    fn bound(&mut self, bounds: &[u64]) -> Option<u64> {
        let i = self.below(bounds.len() as u64 + 1) as usize;
        bounds.get(i).copied()
    }
}

fn set_bound(node: &mut Value, key: &str, bound: Option<u64>) {
    if let Some(b) = bound {
        node[key] = json!(b);
    }
}

/// The `spec` object of a random case, with random size bounds.
fn spec_schema(r: &mut Rng) -> Value {
    let mut s = json!({"type": "string"});
    set_bound(&mut s, "maxLength", r.bound(&[1, 8, 64, 1024]));
    let mut xs_items = json!({"type": "string"});
    set_bound(&mut xs_items, "maxLength", r.bound(&[4, 16, 256]));
    let mut xs = json!({"type": "array", "items": xs_items});
    set_bound(&mut xs, "maxItems", r.bound(&[1, 5, 100, 1000]));
    let mut ns = json!({"type": "array", "items": {"type": "integer"}});
    set_bound(&mut ns, "maxItems", r.bound(&[10, 10000]));
    let mut m = json!({"type": "object", "additionalProperties": {"type": "string"}});
    set_bound(&mut m, "maxProperties", r.bound(&[3, 50]));
    let mut a = json!({"type": "string"});
    set_bound(&mut a, "maxLength", r.bound(&[10, 100]));
    let mut obj = json!({"type": "object", "properties": {"a": a, "k": {"type": "integer"}}});
    if r.chance(50) {
        obj["required"] = json!(["a"]);
    }
    let mut item = json!({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "maxLength": 32}, "k": {"type": "integer"}}});
    if r.chance(30) {
        item["x-kubernetes-validations"] = json!([{"rule": r.pick(&[
            "self.a != ''", "self.k > 0", "self == oldSelf", "has(self.k) || self.a.size() < 5",
            "self.a.matches('^[a-z]+$')", "self.nope == 1",
        ])}]);
    }
    let mut objs = json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["a"], "items": item});
    set_bound(&mut objs, "maxItems", r.bound(&[8, 64]));
    if r.chance(20) {
        xs["items"]["x-kubernetes-validations"] = json!([{"rule": r.pick(&["self.size() < 10", "self.startsWith('a')", "self == oldSelf", "self > 1"])}]);
    }
    let mut props = json!({
        "s": s,
        "e": {"type": "string", "enum": ["a", "bb", "ccc"]},
        "n": {"type": "integer"},
        "d": {"type": "number"},
        "b": {"type": "boolean"},
        "xs": xs,
        "ns": ns,
        "m": m,
        "obj": obj,
        "objs": objs,
        "q": {"x-kubernetes-int-or-string": true},
        "t": {"type": "string", "format": "date-time"},
        "dur": {"type": "string", "format": "duration"},
        "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "my-field": {"type": "string", "maxLength": 20},
    });
    if r.chance(30) {
        props["set"] = json!({"type": "object", "x-kubernetes-map-type": "atomic",
            "properties": {"v": {"type": "string", "maxLength": 5,
                "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}});
    }
    json!({"type": "object", "properties": props})
}

const STRINGS: &[&str] = &[
    "self.s",
    "self.e",
    "self.obj.a",
    "'lit'",
    "self.s.lowerAscii()",
    "self.s + 'x'",
    "self.xs[0]",
    "string(self.n)",
    "self.s.substring(1)",
    "self.s.trim()",
    "self.s.replace('a', 'b')",
    "self.xs.join(',')",
    "self.m['k']",
    "self.?s.orValue('z')",
    "(self.b ? self.s : 'y')",
    "self.my__dash__field",
    "self.objs[0].a",
    "self.s.upperAscii()",
    "strings.quote(self.s)",
    "self.s.charAt(0)",
    "self.s.format([1])",
    "string(self.t)",
    "string(self.dur)",
];
const INTS: &[&str] = &[
    "self.n",
    "size(self.s)",
    "self.s.size()",
    "self.xs.size()",
    "self.ns[0]",
    "self.n + 1",
    "self.n * 2",
    "self.obj.k",
    "self.ns.sum()",
    "self.s.indexOf('a')",
    "self.m.size()",
    "int(self.d)",
    "self.ns.max()",
    "self.dur.getSeconds()",
    "self.t.getFullYear()",
    "self.objs.size()",
    "self.s.lastIndexOf('a')",
    "lists.range(3).size()",
    "self.ns.min()",
];
const LISTS: &[&str] = &[
    "self.xs",
    "self.xs.map(x, x + 'a')",
    "self.xs.filter(x, x != '')",
    "self.s.split(',')",
    "self.xs.sort()",
    "self.xs.distinct()",
    "self.xs.reverse()",
    "self.xs.slice(0, 1)",
    "self.s.findAll('[a-z]')",
    "self.m.map(k, k)",
    "self.objs.map(o, o.a)",
    "self.xs + ['a']",
];
const ATOMS: &[&str] = &[
    "self.b",
    "has(self.s)",
    "has(self.obj.a)",
    "'a' in self.xs",
    "'k' in self.m",
    "sets.contains(self.xs, ['a'])",
    "sets.intersects(self.xs, ['a'])",
    "sets.equivalent(self.xs, ['a'])",
    "isURL(self.s)",
    "quantity(self.s).isLessThan(quantity('1Gi'))",
    "isQuantity(self.s)",
    "isSemver(self.s)",
    "isIP(self.s)",
    "isCIDR(self.s)",
    "cidr('10.0.0.0/8').containsIP(self.s)",
    "format.dns1123Label().validate(self.s).hasValue()",
    "self.t < timestamp('2020-01-01T00:00:00Z')",
    "self.dur > duration('1s')",
    "self == oldSelf",
    "oldSelf.s == self.s",
    "self.q == 1",
    "type(self.q) == string",
    "self.xs.all(i, v, i < 10)",
    "self.m.exists(k, v, v == k)",
    "self.xs.transformList(i, v, v + 'a').size() > 0",
    "self.s.find('[a-z]+') != ''",
    "self.xs.isSorted()",
    "self.ns.indexOf(1) >= 0",
    "optional.of(self.s).hasValue()",
    "self.?obj.?a.hasValue()",
    "self.raw.foo == 1",
    "self.nope == 1",
    "self.n == 'a'",
    "self.s + 1 == 's'",
    "unknownFn(self.s)",
    "self.xs.all(x, x)",
    "self.s.size() > 1.0",
    "self.objs.all(o, o.a != '')",
    "self.ns.all(v, v > 0)",
    "self.xs.exists_one(x, x == 'a')",
    "self.m.all(k, self.m[k] != '')",
    "self.xs.all(x, self.xs.exists(y, x == y))",
    "self.xs.all(x, self.xs.all(y, x == y || x.contains(y)))",
    "self.s.matches(self.s)",
    "self.xs.all(x, x.matches('^[a-z]+$'))",
    "url(self.s).getHost() == 'a'",
    "semver(self.s).major() == 1",
    "ip(self.s).family() == 4",
    "self.q.size() > 0",
    "self.xs.exists(x, self.ns.exists(n, x.size() == n))",
    "self.objs.exists(o, o.k == self.n)",
    "self.e == 'a'",
    "self.s.startsWith(self.e)",
    "[1, 'a'].size() == 2",
    "{'a': 1}.a == 1",
    "self.m.transformMap(k, v, v + 'x').size() > 0",
    "self.xs.sortBy(x, x).size() > 0",
    "self.t.getMonth() == 1",
    "self.s.endsWith('a')",
    "self.b == null",
    "self.obj != null",
    "dyn(self.s) == 1",
    "self.xs.flatten().size() > 0",
    "self.ns.filter(n, n > 0).size() > 0",
];

fn gen_bool(r: &mut Rng, depth: u32) -> String {
    let choice = if depth == 0 { r.below(4) } else { r.below(12) };
    match choice {
        0 | 1 => r.pick(ATOMS).to_string(),
        2 => format!(
            "{} {} {}",
            r.pick(INTS),
            r.pick(&["<", "<=", "==", "!=", ">", ">="]),
            r.pick(INTS)
        ),
        3 => format!(
            "{} {} {}",
            r.pick(STRINGS),
            r.pick(&["==", "!=", "<"]),
            r.pick(STRINGS)
        ),
        4 => format!(
            "{}.{}({})",
            r.pick(STRINGS),
            r.pick(&["startsWith", "endsWith", "contains", "matches"]),
            r.pick(STRINGS)
        ),
        5 => format!(
            "{}.size() {} {}",
            r.pick(LISTS),
            r.pick(&["<", "=="]),
            r.pick(INTS)
        ),
        6 => format!("!({})", gen_bool(r, depth - 1)),
        7 => format!("{} && {}", gen_bool(r, depth - 1), gen_bool(r, depth - 1)),
        8 => format!("{} || {}", gen_bool(r, depth - 1), gen_bool(r, depth - 1)),
        9 => format!(
            "{} ? {} : {}",
            gen_bool(r, depth - 1),
            gen_bool(r, depth - 1),
            gen_bool(r, depth - 1)
        ),
        10 => format!(
            "{}.{}(x, x.size() {} {})",
            r.pick(LISTS),
            r.pick(&["all", "exists", "exists_one"]),
            r.pick(&["<", ">"]),
            r.pick(INTS)
        ),
        _ => format!(
            "{}.all(x, {}.exists(y, x == y))",
            r.pick(LISTS),
            r.pick(LISTS)
        ),
    }
}

const MESSAGES: &[&str] = &[
    "'bad: ' + self.s",
    "self.s",
    "string(self.n)",
    "'n=' + string(self.n)",
    "self.n",
    "self.xs.join(', ')",
    "'x'",
    "self.s + self.s",
    "'e=' + self.e",
    "self.nope",
    "self.obj.a",
    "'q'.upperAscii()",
];

/// The random cases: a spec with random bounds and one to three random rules on it.
pub fn random_cases(count: usize) -> Vec<Case> {
    let mut r = Rng(0x9E3779B97F4A7C15);
    (0..count)
        .map(|i| {
            let mut spec = spec_schema(&mut r);
            let rules: Vec<Value> = (0..1 + r.below(3))
                .map(|_| {
                    let mut rule = json!({"rule": gen_bool(&mut r, 2)});
                    if r.chance(25) {
                        rule["messageExpression"] = json!(r.pick(MESSAGES));
                    }
                    if r.chance(8) {
                        rule["optionalOldSelf"] = json!(true);
                        if r.chance(50) {
                            rule["rule"] =
                                json!("oldSelf.hasValue() ? oldSelf.value().s == self.s : true");
                        }
                    }
                    rule
                })
                .collect();
            spec["x-kubernetes-validations"] = Value::Array(rules);
            let schema = json!({"type": "object", "properties": {"spec": spec}});
            Case {
                id: format!("random-{i:04}"),
                schema,
            }
        })
        .collect()
}

/// The pairwise rule of the issue on lists and strings of random bounds: the verdict flips at
/// an exact size, which only the server's own arithmetic finds.
pub fn threshold_cases(count: usize) -> Vec<Case> {
    let mut r = Rng(0xD1B54A32D192ED03);
    (0..count)
        .map(|i| {
            let items = 1 + r.below(3000);
            let len = 1 + r.below(400);
            let rule = r.pick(&[
                "self.xs.all(x, self.xs.all(y, x == y))",
                "self.xs.all(x, self.xs.exists(y, x.startsWith(y)))",
                "self.xs.all(x, x.matches('^[a-z]+$'))",
                "self.xs.all(x, self.xs.filter(y, y.contains(x)).size() < 3)",
                "self.xs.map(x, x + 'a').all(x, x.size() < 100)",
            ]);
            let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
                "x-kubernetes-validations": [{"rule": rule}],
                "properties": {"xs": {"type": "array", "maxItems": items,
                    "items": {"type": "string", "maxLength": len}}}}}});
            Case {
                id: format!("threshold-{i:04}"),
                schema,
            }
        })
        .collect()
}

/// `schema` with every `maxItems`, `maxProperties` and `maxLength` removed.
pub fn strip_bounds(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "maxItems" | "maxProperties" | "maxLength"))
                .map(|(k, v)| (k.clone(), strip_bounds(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_bounds).collect()),
        other => other.clone(),
    }
}

/// The real-world corpus fetched by `scripts/crd-corpus.sh` (cert-manager, Cluster API,
/// Karpenter, Kueue, prometheus-operator, Knative Serving, Argo CD), when it is complete.
pub fn fetched_corpus() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.assets/crd-corpus");
    dir.join(".complete-v1").is_file().then_some(dir)
}

/// Why the fetched corpus is left out, for the tests' output.
pub const CORPUS_ABSENT: &str = "SKIPPED: the real-world CRD corpus is absent \
    (.assets/crd-corpus; `bash scripts/crd-corpus.sh` fetches it with Go): only Gateway API's \
    CRDs (tests/data) are checked";

/// Every version schema of the CRD files under `dir`, parsed by `parse` (YAML to documents),
/// each named `{prefix}{file relative to dir}#{version}`.
pub fn schemas_under(
    dir: &std::path::Path,
    prefix: &str,
    parse: &impl Fn(&str) -> Vec<Value>,
) -> Vec<Case> {
    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    let mut out = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for crd in parse(&std::fs::read_to_string(&file).unwrap()) {
            for version in crd["spec"]["versions"].as_array().into_iter().flatten() {
                let id = format!("{prefix}{rel}#{}", version["name"].as_str().unwrap_or("?"));
                out.push(Case {
                    id,
                    schema: version["schema"]["openAPIV3Schema"].clone(),
                });
            }
        }
    }
    out
}

/// The real CRDs: Gateway API's under `tests/data`, and the fetched corpus when present
/// (its ids start with `corpus:`).
pub fn real_schemas(parse: impl Fn(&str) -> Vec<Value>) -> Vec<Case> {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cel/tests/data");
    let mut out = schemas_under(&data, "", &parse);
    if let Some(corpus) = fetched_corpus() {
        out.extend(schemas_under(&corpus, "corpus:", &parse));
    }
    out
}

/// Hand-picked cases for what the random ones do not reach: the environment's edges,
/// escaping, embedded resources, the root's metadata, literal validators.
pub fn fixed_cases() -> Vec<Case> {
    let spec = |rules: Value| {
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": rules,
        "properties": {
            "xs": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
            "s": {"type": "string", "maxLength": 10},
            "a-b": {"type": "string", "maxLength": 10},
            "namespace": {"type": "string", "maxLength": 10},
            "x.y": {"type": "string", "maxLength": 10},
            "emb": {"type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true},
            "q": {"x-kubernetes-int-or-string": true, "maxLength": 10},
        }}}})
    };
    let rules = [
        "self.xs.includes(1)",
        "duration('1x') > duration('1s')",
        "timestamp('bad') > timestamp('2020-01-01T00:00:00Z')",
        "self.s.matches('[')",
        "self.s.matches('^a$')",
        "self.`a-b` == 'x'",
        "self.a__dash__b == 'x'",
        "self.__namespace__ == 'x'",
        "self.namespace == 'x'",
        "self.x__dot__y == 'x'",
        "self.emb.metadata.name == 'x' && self.emb.kind == 'K' && self.emb.apiVersion == 'v1'",
        "self.emb.metadata.labels == {}",
        "self.emb.spec == 1",
        "self.q == 'a' || self.q == 1",
        "self.q.size() > 0",
        "[1, 2.0].size() == 2",
        "{'a': 1, 'b': 'c'}.size() == 2",
        "[self.s, self.q].size() == 2",
        "[?optional.of(1)].size() == 1",
        "{?'a': optional.none()}.size() == 0",
        "self.?s.optMap(v, v + 'x').orValue('') != ''",
        "cel.bind(v, self.s, v == 'a')",
        "math.greatest(1, 2) == 2",
        "self.xs.first().hasValue()",
        "self.s.reverse() == ''",
        "strings.quote(self.s) != ''",
        "self.s.format(['a']) != ''",
        "base64.encode(b'a') != ''",
        "ip.isCanonical('::1')",
        "self.s.quantity()",
        "quantity('1').sign() == 1",
        "self.xs.all(x, x in self.xs)",
        "self.xs.exists(x, x > 1 && self.xs.exists(y, y > x && self.xs.exists(z, z > y)))",
        "1 / 0 == 1",
        "9223372036854775807 + 1 > 0",
        "-9223372036854775808 < 0",
        "18446744073709551615u > 0u",
        "0x1F == 31",
        "1e3 > 1.5",
        r"r'\d' != '' && b'\x00' != b''",
        "'''a\nb''' != ''",
        "self.s in ['a', 'b']",
        "type(self) == map",
        "has(self.xs) && !has(self.s) || self.xs.size() == 0",
        "self.xs.map(x, x * 2).filter(x, x > 2).size() < 5",
        "self.xs.sortBy(x, -x).size() == self.xs.size()",
        "lists.range(5).all(i, i < 5)",
        "sets.contains([1], [1.0])",
        "dyn(self.s) == dyn(1)",
        "self.xs[0] == self.xs[?1].orValue(0)",
        "-0x8000000000000000 < 0",
        r"br'\x' == b'\\x'",
        ".self.s == 'a' && .size(.self.s) < 5",
        r"self.s.matches('\\Qa.b\\E') && self.s.matches('\\012') && self.s.matches('a{,3}')",
        "self.s.matches('(?x)a')",
        "self.s.matches('a{1001}')",
        "self.s.matches('a**')",
        "lists.range(-1).size() == 0 && self.xs.slice(-1, 0).size() == 0",
        "[1].all(__result__, true)",
        "self.xs.all(x, .x > 0)",
        "int('x') == 1",
        "uint(-1) == 1u",
        r"string(b'\xff') == ''",
        "false && timestamp(253402300800) > timestamp(0)",
        "matches('(', self.s)",
        "matches(self.s, '(')",
    ];
    let mut out: Vec<Case> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| Case {
            id: format!("fixed-{i:03}"),
            schema: spec(json!([{"rule": r}])),
        })
        .collect();
    // cel-go's parser limits: 250 nested rules (`size(` is one), 250 nested operators
    // (`.s`, `.size()` and `> 0` are three).
    let nested = |n: usize| format!("size({}1{}) == 1", "[".repeat(n), "]".repeat(n));
    let limits = [
        nested(248),
        nested(249),
        format!("{}true{}", "(".repeat(250), ")".repeat(250)),
        format!("self.s.size(){} > 0", " + 1".repeat(246)),
        format!("self.s.size(){} > 0", " + 1".repeat(247)),
    ];
    for (i, rule) in limits.iter().enumerate() {
        out.push(Case {
            id: format!("fixed-limit-{i}"),
            schema: spec(json!([{"rule": rule}])),
        });
    }
    // apiextensions' checks of a rule's texts.
    for (i, rule) in [
        json!({"rule": "self.s == 'a'\n"}),
        json!({"rule": "\nself.s == 'a'"}),
        json!({"rule": "self.s ==\n'a'"}),
        json!({"rule": "self.s == 'a'", "message": "a\nb"}),
        json!({"rule": "self.s == 'a'", "message": "  "}),
        json!({"rule": "self.s == 'a'", "messageExpression": ""}),
        json!({"rule": "self.s == 'a'", "messageExpression": "string(uint(-1))"}),
        json!({"rule": "true", "fieldPath": ".s"}),
        json!({"rule": "true", "fieldPath": "['x.y']"}),
        json!({"rule": "true", "fieldPath": ".nope"}),
        json!({"rule": "true", "fieldPath": ".xs[0]"}),
        json!({"rule": "true", "fieldPath": "  "}),
        json!({"rule": "true", "fieldPath": ".s\n"}),
        json!({"rule": "true", "fieldPath": ".emb.metadata"}),
    ]
    .into_iter()
    .enumerate()
    {
        out.push(Case {
            id: format!("fixed-text-{i}"),
            schema: spec(json!([rule])),
        });
    }
    // Sizes at Go's int64 edge: maxLength * 4 wraps.
    for (i, max_length) in [1i64 << 61, 1 << 62, i64::MAX].into_iter().enumerate() {
        out.push(Case {
            id: format!("fixed-size-{i}"),
            schema: json!({"type": "object", "properties": {"spec": {"type": "object",
                "x-kubernetes-validations": [{"rule": "self.s.contains('a')"}],
                "properties": {"s": {"type": "string", "maxLength": max_length}}}}}),
        });
    }
    // The root's metadata: name and generateName only, bounded at 253 and 252 characters.
    for (i, rule) in [
        "self.metadata.name.size() < 300",
        "self.metadata.generateName.size() < 300",
        "self.metadata.labels.size() > 0",
        "self.metadata.name.matches('^[a-z]+$') && self.kind == 'Thing'",
    ]
    .iter()
    .enumerate()
    {
        out.push(Case {
            id: format!("fixed-root-{i}"),
            schema: json!({"type": "object", "x-kubernetes-validations": [{"rule": rule}],
                "properties": {"spec": {"type": "object"}}}),
        });
    }
    out
}

/// `string.format()`, which cel-go's strings extension checks when a rule compiles: every
/// clause against an argument of every type, then counts, clause syntax, format strings and
/// argument lists that are not literals, nested and repeated calls, message expressions.
pub fn format_cases() -> Vec<Case> {
    let spec = |rules: Value| {
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": rules,
        "properties": {
            "s": {"type": "string", "maxLength": 10},
            "n": {"type": "integer"},
            "d": {"type": "number"},
            "b": {"type": "boolean"},
            "by": {"type": "string", "format": "byte", "maxLength": 12},
            "xs": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 5}},
            "ns": {"type": "array", "maxItems": 5, "items": {"type": "integer"}},
            "m": {"type": "object", "maxProperties": 5,
                "additionalProperties": {"type": "string", "maxLength": 5}},
            "obj": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}}},
            "t": {"type": "string", "format": "date-time"},
            "dur": {"type": "string", "format": "duration"},
            "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "any": {"x-kubernetes-preserve-unknown-fields": true},
            "q": {"x-kubernetes-int-or-string": true, "maxLength": 10},
            "qs": {"type": "array", "maxItems": 5,
                "items": {"x-kubernetes-int-or-string": true, "maxLength": 10}},
        }}}})
    };
    const CLAUSES: &[&str] = &[
        "%s", "%d", "%f", "%e", "%b", "%o", "%x", "%X", "%.2f", "%.3e",
    ];
    const ARGS: &[&str] = &[
        "self.n",
        "2u",
        "self.d",
        "self.s",
        "self.b",
        "self.by",
        "self.xs",
        "self.m",
        "null",
        "self.t",
        "self.dur",
        "self.q",
        "self.qs[0]",
        "dyn('a')",
        "self.?s",
        "type(self.n)",
        "self.obj",
        "[1, 'a']",
    ];
    let mut rules: Vec<Value> = Vec::new();
    for clause in CLAUSES {
        for arg in ARGS {
            rules.push(json!({"rule": format!("'{clause}'.format([{arg}]) != ''")}));
        }
    }
    for clause in ["%s", "%d", "%f", "%e", "%b", "%o", "%x", "%X"] {
        for arg in ["self.s", "self.n", "self.d"] {
            rules.push(json!({"rule": "true",
                "messageExpression": format!("'bad: {clause}'.format([{arg}])")}));
        }
    }
    for rule in [
        // Counts.
        "'%s %s'.format(['a']) != ''",
        "'%s'.format(['a', 'b']) != ''",
        "'x'.format([1]) != ''",
        "'x'.format([]) != ''",
        "'%s'.format([]) != ''",
        "'%s %d %f'.format(['a', 1]) != ''",
        "'%s %d'.format(['a', 1, 2.0]) != ''",
        "'%%'.format([1]) != ''",
        "'100%% %s'.format(['a']) != ''",
        "'%%%d%%'.format([1]) != ''",
        // Clause syntax.
        "'%'.format([1]) != ''",
        "'a%'.format([1]) != ''",
        "'%z'.format([1]) != ''",
        "'%.3z'.format([1]) != ''",
        "'%.'.format([1]) != ''",
        "'%.2'.format([1.0]) != ''",
        "'%.f'.format([1.0]) != ''",
        "'%.99999999999999999999f'.format([1.0]) != ''",
        "'%.9223372036854775807f'.format([1.0]) != ''",
        "'%.0e %.000f'.format([1.0, 2.0]) != ''",
        "'%é'.format([1]) != ''",
        "'%D'.format([1]) != ''",
        "'%S'.format(['a']) != ''",
        "'%'.format([]) != ''",
        "'%s %'.format(['a', 1]) != ''",
        // Strings for the floating-point clauses, and everything `%s` takes.
        "'%f %e'.format(['NaN', 'x']) != ''",
        "'%s %s %s %s %s %s %s'.format([1, 2u, 1.5, true, 'a', b'a', null]) != ''",
        "'%s %s %s %s %s'.format([self.t, self.dur, [1], {'a': 1}, type(1)]) != ''",
        "'%s'.format([timestamp('2020-01-01T00:00:00Z')]) != ''",
        "'%s'.format([duration('1s')]) != ''",
        "'%s'.format([quantity('1')]) != ''",
        "'%s'.format([ip('1.2.3.4')]) != ''",
        "'%s'.format([optional.of(1)]) != ''",
        "'%s'.format([?optional.of(1)]) != ''",
        "'%s'.format([self.raw]) != ''",
        "'%s'.format([self.any]) != ''",
        "'%s'.format([self.raw.foo]) != ''",
        "'%d'.format([dyn(self.obj)]) != ''",
        // List and map literals: `%s` looks into them, other clauses do not.
        "'%s'.format([[1, [optional.none()]]]) != ''",
        "'%s'.format([[self.obj]]) != ''",
        "'%s'.format([{'a': self.obj}]) != ''",
        "'%s'.format([{self.?s: 1}]) != ''",
        "'%s'.format([[self.obj].map(o, o)]) != ''",
        "'%s'.format([[1, 'a', {'k': [2u, null]}]]) != ''",
        "'%s'.format([{'a': 1, 'b': 'c'}]) != ''",
        "'%d'.format([[self.obj]]) != ''",
        "'%s'.format([self.xs.map(x, [x, 1])]) != ''",
        "[1, 'a'].size() == 2 && '%s'.format([[1, 'a']]) != ''",
        "['%s'.format([[1, 'a']]), 1].size() == 2",
        // Not checked: a format string or an argument list that is not a literal.
        "self.s.format(['a', 1]) != ''",
        "('%' + 'd').format(['a']) != ''",
        "'%d'.format(self.xs) != ''",
        "'%d'.format(self.xs + ['a']) != ''",
        "'%d'.format(dyn(['a'])) != ''",
        "'%s'.format(self.ns.map(n, n)) != ''",
        // Nested, repeated, in comprehensions, after type errors, across lines.
        "'%s'.format(['%d'.format(['a'])]) != ''",
        "'%d'.format(['%s'.format(['a'])]) != ''",
        "'%s'.format(['%s'.format([1, 2])]) != ''",
        "'%d'.format([1]) != '' && '%d'.format(['x']) != '' && '%s'.format([1, 2]) != ''",
        "self.xs.all(x, '%d'.format([x]) != '')",
        "self.ns.all(n, '%d %s'.format([n, x]) != '')",
        "self.ns.exists(n, '%s %d'.format([n, n]) != '')",
        "self.xs.map(x, '%s'.format([x, x])).size() > 0",
        "'%d'.format(['a']) == 1",
        "'%d'.format(['a']) != '' && self.nope",
        "'%s' .format ( [ 1 ] ) != ''",
        r"r'%d\n'.format([1]) != ''",
        "'%s'.format([b'%d']) != '' && b'%d' != b''",
        "self.xs.exists_one(v, '%d'.format([v]) != '')",
        "'%s'.format([self.s]).size() < 20",
        "'%d'.format([self.ns.size()]) != '' && '%x'.format([self.by]) != ''",
        "'%o %b %x %X'.format([self.qs[0], self.q, self.q, dyn(1)]) != ''",
    ] {
        rules.push(json!({"rule": rule}));
    }
    for msg in [
        "'%s %s'.format(['a'])",
        "'%s'.format(['a', 1])",
        "'%.f'.format([1.0])",
        "'%s'.format([self.obj])",
        "'%d %s'.format([self.n, self.xs])",
        "self.s.format([self.obj])",
    ] {
        rules.push(json!({"rule": "true", "messageExpression": msg}));
    }
    // Across lines (a rule with line breaks needs a message).
    for rule in [
        "'%d'\n.format(\n['a'])\n!= ''",
        "'''%d\n%s'''.format([1, 2u]) != ''",
        "'''%d\n%s'''.format([1, self.obj]) != ''",
        "true &&\n  '%s'.format([1,\n  2]) != ''",
    ] {
        rules.push(json!({"rule": rule, "message": "m"}));
    }
    // A refused rule and a refused message expression together.
    rules.push(json!({"rule": "'%d'.format(['a']) != ''",
        "messageExpression": "'%s'.format([1, 2])"}));
    rules
        .into_iter()
        .enumerate()
        .map(|(i, rule)| Case {
            id: format!("format-{i:03}"),
            schema: spec(json!([rule])),
        })
        .collect()
}

/// The whole corpus: real CRDs as released and with their bounds stripped, the hand-picked,
/// threshold and random cases.
pub fn all_cases(parse: impl Fn(&str) -> Vec<Value>) -> Vec<Case> {
    let real = real_schemas(parse);
    let stripped: Vec<Case> = real
        .iter()
        .map(|c| Case {
            id: format!("stripped:{}", c.id),
            schema: strip_bounds(&c.schema),
        })
        .collect();
    let mut out = real;
    out.extend(stripped);
    out.extend(fixed_cases());
    out.extend(format_cases());
    out.extend(threshold_cases(200));
    out.extend(random_cases(1200));
    out
}

/// A problem as the server words a cause: (field from `openAPIV3Schema` on, message).
pub fn normalize_server(field: &str, message: &str) -> (String, String) {
    let field = match field.find("openAPIV3Schema") {
        Some(i) => field[i..].to_string(),
        None => field.to_string(),
    };
    // Paths inside messages name the CRD's field too.
    let message = message.replace("spec.validation.openAPIV3Schema", "openAPIV3Schema");
    (field, normalize_type_names(&message))
}

/// kube-apiserver names a rule's type `selfType<nanoseconds>`; kube-markers-cel `selfType`.
pub fn normalize_type_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find("selfType") {
        out.push_str(&rest[..i + "selfType".len()]);
        rest = rest[i + "selfType".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Whether the server's cause (`Invalid value: …: detail`, `Forbidden: detail`) is ours.
pub fn same_problem(server: &(String, String), ours: &kube_markers_cel::Problem) -> bool {
    use kube_markers_cel::Severity;
    let prefix = match ours.severity {
        Severity::Invalid => "Invalid value: ",
        Severity::Forbidden => "Forbidden: ",
        Severity::Required => "Required value: ",
        Severity::InternalError => "Internal error: ",
    };
    server.0 == ours.path && server.1.starts_with(prefix) && server.1.ends_with(&ours.detail)
}

const CONTRIBUTED: &str =
    "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";

/// Whether the server's causes are the report's problems, one for one. The API server names
/// the four costliest expressions as contributors; among expressions of equal cost which ones
/// it names follows Go's map iteration order, which varies from run to run. So contributors
/// are compared as the server can name them: as many, each one of the costliest.
pub fn agrees(server: &[(String, String)], report: &kube_markers_cel::SchemaReport) -> bool {
    let is_contributed = |m: &str| m.ends_with(CONTRIBUTED);
    let (server_contributed, server_rest): (Vec<_>, Vec<_>) =
        server.iter().partition(|c| is_contributed(&c.1));
    let (ours_contributed, ours_rest): (Vec<_>, Vec<_>) = report
        .problems
        .iter()
        .partition(|p| p.detail == CONTRIBUTED);
    if server_rest.len() != ours_rest.len()
        || !server_rest
            .iter()
            .all(|c| ours_rest.iter().any(|o| same_problem(c, o)))
    {
        return false;
    }
    if server_contributed.len() != ours_contributed.len() {
        return false;
    }
    let Some(cut) = ours_contributed
        .iter()
        .filter_map(|p| report.costs.iter().find(|c| c.path == p.path))
        .map(|c| c.cost)
        .min()
    else {
        return true;
    };
    server_contributed.iter().all(|c| {
        c.1.starts_with("Forbidden: ")
            && report.costs.iter().any(|e| e.path == c.0 && e.cost >= cut)
    })
}
