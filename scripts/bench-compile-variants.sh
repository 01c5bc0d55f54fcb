#!/usr/bin/env bash
# Where the compile time of `#[rbac]` goes: the crate of scripts/bench-compile-time.sh (N async
# functions) with each attribute replaced by a hand-written equivalent of (parts of) its
# expansion. Stable rustc has no self-profile, so the differences between variants are the data:
#   none          no attribute
#   macro         #[rbac(...)], as users write it
#   <name>        hand-written expansions (see `variant` below)
# Best of 3 clean rebuilds of each crate (debug, a workspace of its own, dependencies untimed).
# The hand-written variants name what the expansion used before the registry records (commit
# 79a6d0f: `RBAC_ENTRIES`, `__private::same_str`): run them against that tree, exported with
# `git archive 79a6d0f | tar -x -C /tmp/km-before` and `KUBE_MARKERS=/tmp/km-before`.
# Usage: scripts/bench-compile-variants.sh [N] [variant...]   (default 1000, every variant)
set -euo pipefail

n="${1:-1000}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
km="${KUBE_MARKERS:-$root}"
work="$root/target/bench-compile-time/variants"
target="$root/target/bench-compile-time/target"
mkdir -p "$work" "$target"

all=(none macro full no_assert linkme_macro link_section link_section_no_assert assert_only
  assert_line_column assert_bytes_pattern flat flat_no_assert unused_static one_str record
  record_folded record_linkme_macro)
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then variants=("${all[@]}"); fi

make_crate() { # variant
  local dir="$work/v_$1"
  rm -rf "$dir"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "v_$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kube-markers = { path = "$km/runtime", default-features = false }
k8s-openapi = { version = "0.29", default-features = false, features = ["std", "latest", "schemars"] }

[workspace]
TOML
  python3 - "$1" "$n" > "$dir/src/lib.rs" <<'PY'
import sys
variant, n = sys.argv[1], int(sys.argv[2])
msg = ("this #[rbac] is produced by a macro: the generator's workspace scan cannot see "
       "attributes inside macro_rules! bodies, so it could silently go missing from the "
       "generated manifests; write the attribute directly on the item")
lines = ["#![allow(dead_code)]", "use kube_markers::rbac;" if variant == "macro" else ""]
if variant.startswith("record"):
    lines.append("pub struct Record { pub data: &'static str, pub file: &'static str, pub line: u32, pub column: u32, pub module_path: &'static str }")
if variant.startswith("flat"):
    # RbacEntry is #[non_exhaustive]: a struct of the same fields, built by a struct literal.
    lines.append("pub struct Source { pub file: &'static str, pub line: u32, pub column: u32, pub module_path: &'static str, pub item: &'static str }")
    lines.append("pub struct Entry { pub groups: &'static [&'static str], pub resources: &'static [&'static str], pub resource_names: &'static [&'static str], pub verbs: &'static [&'static str], pub urls: &'static [&'static str], pub namespace: Option<&'static str>, pub role_name: Option<&'static str>, pub allow: &'static [(&'static str, &'static str)], pub source: Source }")
def strs(v): return "&[" + ", ".join('"%s"' % s for s in v) + "]"
for i in range(1, n + 1):
    groups = ["group%d.example.com" % (i % 40)]
    resources = ["resource%d" % i, "resource%d/status" % i]
    verbs = ["get", "list", "watch", "update", "patch"]
    if variant == "none":
        lines.append("pub async fn reconcile_%d(x: u32) -> u32 { x + %d }" % (i, i))
        continue
    if variant == "macro":
        lines.append('#[rbac(groups = "%s", resources = "%s", verbs = "%s")]'
                     % (";".join(groups), ";".join(resources), ";".join(verbs)))
        lines.append("pub async fn reconcile_%d(x: u32) -> u32 { x + %d }" % (i, i))
        continue
    line = len(lines) + 1
    head = "pub async fn reconcile_%d(x: u32) -> u32 { const _: () = { " % i
    # The call-site check, as check_call_site writes it (line and column of the check itself);
    # the file compared by same_str's loop, by a byte-string pattern, or not at all.
    def check(file="same_str", prefix="const _: () = ", before=""):
        pre = head + before + prefix + "::core::assert!(::core::line!() == %d && " % line
        col = len(pre) + 1
        tail = {
            "same_str": " && ::kube_markers::__private::same_str(::core::file!(), \"src/lib.rs\")",
            "pattern": " && ::core::matches!(::core::file!().as_bytes(), b\"src/lib.rs\")",
            None: "",
        }[file]
        return "%s::core::assert!(::core::line!() == %d && ::core::column!() == %d%s, \"%s\"); " % (prefix, line, col, tail, msg)
    data = "\\0".join([";".join(groups), ";".join(resources), ";".join(verbs), "reconcile_%d" % i])
    record = ("crate::Record { data: \"%s\", file: ::core::file!(), line: ::core::line!(), "
              "column: ::core::column!(), module_path: ::core::module_path!() }" % data)
    source = ("::kube_markers::registry::Source::__new(::core::file!(), ::core::line!(), "
              "::core::column!(), ::core::module_path!(), \"reconcile_%d\")" % i)
    value = ("::kube_markers::registry::RbacEntry::__new(%s, %s, &[], %s, &[], "
             "::core::option::Option::None, ::core::option::Option::None, &[], %s)"
             % (strs(groups), strs(resources), strs(verbs), source))
    ty = "::kube_markers::registry::RbacEntry"
    linkme_attr = ("#[::kube_markers::__private::linkme::distributed_slice(::kube_markers::__private::RBAC_ENTRIES)] "
                   "#[linkme(crate = ::kube_markers::__private::linkme)] ")
    # linkme's own element expansion without its proc-macro and its type-check function: the
    # slice's macro_rules!, which adds the link section of every supported target.
    linkme_macro = ("::kube_markers::__private::RBAC_ENTRIES! { #![linkme_macro = ::kube_markers::__private::RBAC_ENTRIES] "
                    "static ENTRY: %s = %s; } " % (ty, value))
    link_section = '#[used] #[unsafe(link_section = "linkme_RBAC_ENTRIES")] '
    # One flat constructor call: what a plain-data entry costs (no nested const fn call).
    flat = ("crate::Entry { groups: %s, resources: %s, resource_names: &[], verbs: %s, urls: &[], "
            "namespace: ::core::option::Option::None, role_name: ::core::option::Option::None, allow: &[], "
            "source: crate::Source { file: ::core::file!(), line: ::core::line!(), column: ::core::column!(), "
            "module_path: ::core::module_path!(), item: \"reconcile_%d\" } }" % (strs(groups), strs(resources), strs(verbs), i))
    body = {
        "full": check() + linkme_attr + "static ENTRY: %s = %s; " % (ty, value),
        "no_assert": linkme_attr + "static ENTRY: %s = %s; " % (ty, value),
        "linkme_macro": check() + linkme_macro,
        "link_section": check() + link_section + "static ENTRY: %s = %s; " % (ty, value),
        "link_section_no_assert": link_section + "static ENTRY: %s = %s; " % (ty, value),
        "assert_only": check(),
        "assert_line_column": check(None),
        "assert_bytes_pattern": check("pattern"),
        # One plain-data static per attribute: the validated attribute encoded in one string.
        "record": check("pattern") + link_section + "static ENTRY: crate::Record = %s; " % record,
        # The same through linkme's slice macro (which adds every target's link section).
        "record_linkme_macro": check("pattern") + "::kube_markers::__private::RBAC_ENTRIES! { #![linkme_macro = ::kube_markers::__private::RBAC_ENTRIES] "
            "static ENTRY: crate::Record = %s; } " % record,
        # The same with the check in the static's initializer rather than a const of its own.
        "record_folded": link_section + "static ENTRY: crate::Record = { "
            + check("pattern", prefix="", before=link_section + "static ENTRY: crate::Record = { ") + record + " }; ",
        "flat": check() + link_section + "static ENTRY: crate::Entry = %s; " % flat,
        "flat_no_assert": link_section + "static ENTRY: crate::Entry = %s; " % flat,
        # Neither #[used] nor a link section: rustc evaluates the static but emits no code for it.
        "unused_static": "static ENTRY: %s = %s; " % (ty, value),
        # The least an entry can be: one string of its data and the call site, in the section.
        "one_str": link_section + "static ENTRY: (&str, &str, u32, u32) = (\"%s\\0%s\\0%s\\0reconcile_%d\", ::core::file!(), ::core::line!(), ::core::column!()); "
            % (";".join(groups), ";".join(resources), ";".join(verbs), i),
    }[variant]
    lines.append(head + body + "}; x + %d }" % i)
print("\n".join(lines))
PY
}

time_crate() { # variant -> prints "best-wall-seconds best-cpu-seconds" (cpu: user+sys of cargo and rustc)
  local dir="$work/v_$1" best="" best_cpu=""
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build -q) >&2 || return 1 # dependencies, untimed
  for _ in 1 2 3; do
    (cd "$dir" && CARGO_TARGET_DIR="$target" cargo clean -q -p "v_$1") >&2
    local t cpu
    read -r t cpu < <(cd "$dir" && CARGO_TARGET_DIR="$target" /usr/bin/time -f "%e %U %S" -o /dev/stdout \
      cargo "${CARGO_COMMAND:-build}" -q 2>/dev/null | tail -1 | awk '{print $1, $2 + $3}')
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc)" = 1 ]; then best_cpu=$cpu; fi
  done
  echo "$best $best_cpu"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cargo ${CARGO_COMMAND:-build}"
printf '%-24s %8s %8s   %s\n' variant wall cpu "per attribute over none (wall, cpu)"
base="" base_cpu=""
for v in "${variants[@]}"; do
  make_crate "$v"
  times=$(time_crate "$v") || { echo "$v: build failed" >&2; exit 1; }
  read -r t cpu <<< "$times"
  if [ "$v" = none ]; then base=$t base_cpu=$cpu; fi
  per=""
  if [ -n "$base" ]; then
    per="$(echo "scale=2; ($t - $base) * 1000 / $n" | bc) ms, $(echo "scale=2; ($cpu - $base_cpu) * 1000 / $n" | bc) ms"
  fi
  printf '%-24s %7ss %7ss   %s\n' "$v" "$t" "$cpu" "$per"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
