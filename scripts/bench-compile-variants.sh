#!/usr/bin/env bash
# Where the compile time of `#[rbac]` goes: the crate of scripts/bench-compile-time.sh (N async
# functions) with each attribute replaced by a hand-written equivalent of (parts of) its
# expansion. Stable rustc has no self-profile, so the differences between variants are the data:
#   none          no attribute
#   macro         #[rbac(...)], as users write it
#   <name>        hand-written expansions (see `variant` below)
# Best of 3 clean rebuilds of each crate (debug, a workspace of its own, dependencies untimed).
# The `record*` variants are today's expansion and its parts (`RBAC_RECORDS`, `RbacRecord`).
# The others name what the expansion used before the registry records (commit 79a6d0f:
# `RBAC_ENTRIES`, `__private::same_str`): run them against that tree, exported with
# `git archive 79a6d0f | tar -x -C /tmp/km-before` and `KUBE_MARKERS=/tmp/km-before`.
# Usage: scripts/bench-compile-variants.sh [N] [variant...]   (default 1000, today's variants)
# INSTRUCTIONS=1: instead of timing, count the instructions rustc executes building each crate
# (one build under valgrind's cachegrind, proc-macros included: they run inside rustc), which
# the other engineers' builds on a shared machine do not disturb.
set -euo pipefail

n="${1:-1000}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
km="${KUBE_MARKERS:-$root}"
work="$root/target/bench-compile-time/variants"
target="$root/target/bench-compile-time/target"
mkdir -p "$work" "$target"

# Today's expansion and its parts (the default); then the variants of the tree before the records.
today=(none macro record_linkme_macro record_cfg record_cfg_attr record_cfg_linux record_literals record record_no_check
  record_unused record_folded record_check_fn record_check_loop record_check_call record_folded_call record_folded_hoisted record_folded_len record_folded_call_cfg record_folded_fn record_bare record_bare_folded_fn
  assert_bytes_pattern assert_plain
  assert_line_column one_str)
before=(full no_assert linkme_macro link_section link_section_no_assert assert_only flat
  flat_no_assert unused_static)
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then variants=("${today[@]}"); fi

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
if variant == "record_folded_hoisted":
    # The loop of record_folded_call with the length read once (each call is a frame to the
    # interpreter), as kube_markers' rbac_written_here does it.
    lines.append("pub const fn rbac_site(line: u32, column: u32, file: &str, expected_line: u32, expected_column: u32, expected_file: &str) -> u32 { let (a, b) = (file.as_bytes(), expected_file.as_bytes()); let len = a.len(); let mut same = line == expected_line && column == expected_column && len == b.len(); let mut i = 0; while same && i < len { same = a[i] == b[i]; i += 1; } if !same { panic!(\"%s\") } line }" % msg)
if variant == "record_folded_len":
    # Line, column and the file's length only: what the byte loop costs.
    lines.append("pub const fn rbac_site(line: u32, column: u32, file: &str, expected_line: u32, expected_column: u32, expected_file: &str) -> u32 { if !(line == expected_line && column == expected_column && file.len() == expected_file.len()) { panic!(\"%s\") } line }" % msg)
if variant in ("record_folded_call", "record_check_call", "record_folded_call_cfg"):
    # Every comparison in one const fn, called with plain arguments: no control flow in the
    # expansion (the function's MIR is built once; only its evaluation is per attribute).
    lines.append("pub const fn rbac_site(line: u32, column: u32, file: &str, expected_line: u32, expected_column: u32, expected_file: &str) -> u32 { let (a, b) = (file.as_bytes(), expected_file.as_bytes()); let mut same = line == expected_line && column == expected_column && a.len() == b.len(); let mut i = 0; while same && i < a.len() { same = a[i] == b[i]; i += 1; } if !same { panic!(\"%s\") } line }" % msg)
if variant == "record_check_loop":
    # The file compared by a loop in a const fn (interpreted per attribute, built once).
    lines.append("pub const fn rbac_site(ok: bool, file: &str, expected: &str) { let (a, b) = (file.as_bytes(), expected.as_bytes()); let mut same = ok && a.len() == b.len(); let mut i = 0; while same && i < a.len() { same = a[i] == b[i]; i += 1; } if !same { panic!(\"%s\") } }" % msg)
if variant in ("record_check_fn", "record_folded_fn", "record_bare_folded_fn"):
    # The check's panic in one const fn of the crate (the expansion would name one in kube_markers).
    lines.append("pub const fn rbac_site(line: u32, ok: bool) -> u32 { if !ok { panic!(\"%s\") } line }" % msg)
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
    # The same condition, passed to the crate's const fn, in a const of its own or as the record's line.
    def cond(before, prefix):
        pre = head + before + prefix + "::core::line!() == %d && " % line
        return "::core::line!() == %d && ::core::column!() == %d && ::core::matches!(::core::file!().as_bytes(), b\"src/lib.rs\")" % (line, len(pre) + 1)
    fn_check = "const _: u32 = crate::rbac_site(0, %s); " % cond("", "const _: u32 = crate::rbac_site(0, ")
    data = "\\0".join([";".join(groups), ";".join(resources), ";".join(verbs), "reconcile_%d" % i])
    record = ("::kube_markers::__private::RbacRecord { data: \"%s\", file: ::core::file!(), line: ::core::line!(), "
              "column: ::core::column!(), module_path: ::core::module_path!() }" % data)
    record_ty = "::kube_markers::__private::RbacRecord"
    record_section = '#[used] #[unsafe(link_section = "linkme_RBAC_RECORDS")] '
    record_macro = ("::kube_markers::__private::RBAC_RECORDS! { #![linkme_macro = ::kube_markers::__private::RBAC_RECORDS] "
                    "static ENTRY: %s = %s; } " % (record_ty, record))
    # The ELF targets whose link section linkme names plainly (`linkme_<SLICE>`).
    elf = ('target_os = "none", target_os = "linux", target_os = "android", target_os = "fuchsia", '
           'target_os = "psp", target_os = "freebsd", target_os = "openbsd"')
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
    bodies = {
        "full": check() + linkme_attr + "static ENTRY: %s = %s; " % (ty, value),
        "no_assert": linkme_attr + "static ENTRY: %s = %s; " % (ty, value),
        "linkme_macro": check() + linkme_macro,
        "link_section": check() + link_section + "static ENTRY: %s = %s; " % (ty, value),
        "link_section_no_assert": link_section + "static ENTRY: %s = %s; " % (ty, value),
        "assert_only": check(),
        "assert_line_column": check(None),
        "assert_bytes_pattern": check("pattern"),
        # One plain-data static per attribute (the validated attribute encoded in one string),
        # through linkme's slice macro, which adds every target's link section: the expansion
        # before the link section was written directly.
        "record_linkme_macro": check("pattern") + record_macro,
        # The link section written directly on the ELF targets, linkme's slice macro elsewhere
        # (cfg'd out here, so never expanded): today's expansion.
        "record_cfg": check("pattern") + "#[cfg(any(%s))] " % elf + record_section
            + "static ENTRY: %s = %s; " % (record_ty, record)
            + "#[cfg(not(any(%s)))] " % elf + record_macro,
        # The cfg pair on Linux alone (one predicate each).
        "record_cfg_linux": check("pattern") + '#[cfg(target_os = "linux")] ' + record_section
            + "static ENTRY: %s = %s; " % (record_ty, record)
            + '#[cfg(not(target_os = "linux"))] ' + record_macro,
        # The record's place written as literals (what the proc-macro knows) rather than by
        # file!(), line!() and column!(); no check.
        "record_literals": record_section + "static ENTRY: %s = %s; " % (record_ty, record.replace(
            "file: ::core::file!(), line: ::core::line!(), column: ::core::column!()",
            "file: \"src/lib.rs\", line: %d, column: 1" % line)),
        # The same without the cfg pair: the static in its link section.
        "record": check("pattern") + record_section + "static ENTRY: %s = %s; " % (record_ty, record),
        "record_no_check": record_section + "static ENTRY: %s = %s; " % (record_ty, record),
        # Neither #[used] nor a link section: rustc evaluates the static but emits no code for it.
        "record_unused": check("pattern") + "static ENTRY: %s = %s; " % (record_ty, record),
        # The link section written directly on the ELF targets, linkme's element attribute
        # elsewhere (both in cfg_attr: the static written once).
        "record_cfg_attr": check("pattern") + "#[cfg_attr(any(%s), used, unsafe(link_section = \"linkme_RBAC_RECORDS\"))] " % elf
            + "#[cfg_attr(not(any(%s)), ::kube_markers::__private::linkme::distributed_slice(::kube_markers::__private::RBAC_RECORDS), "
              "linkme(crate = ::kube_markers::__private::linkme))] " % elf
            + "static ENTRY: %s = %s; " % (record_ty, record),
        "record_check_loop": "const _: () = crate::rbac_site(%s, ::core::file!(), \"src/lib.rs\"); " % cond("", "const _: () = crate::rbac_site(").split(" && ::core::matches!")[0]
            + record_section + "static ENTRY: %s = %s; " % (record_ty, record),
        "record_check_call": "const _: u32 = crate::rbac_site(::core::line!(), ::core::column!(), ::core::file!(), %d, %d, \"src/lib.rs\"); " % (line, len(head + "const _: u32 = crate::rbac_site(::core::line!(), ") + 1)
            + record_section + "static ENTRY: %s = %s; " % (record_ty, record),
        "record_folded_call": record_section + "static ENTRY: %s = %s; " % (record_ty, record.replace(
            "line: ::core::line!()", "line: crate::rbac_site(::core::line!(), ::core::column!(), ::core::file!(), %d, %d, \"src/lib.rs\")" % (
                line, len(head + record_section + "static ENTRY: %s = %s" % (record_ty, record.split("line: ::core::line!()")[0]) + "line: crate::rbac_site(::core::line!(), ") + 1))),
        "record_folded_hoisted": None,
        "record_folded_len": None,
        # The same, left out of unit-test builds by a cfg on the field (and line!() there).
        "record_folded_call_cfg": record_section + "static ENTRY: %s = %s; " % (record_ty, record.replace(
            "line: ::core::line!()", "#[cfg(not(test))] line: crate::rbac_site(::core::line!(), ::core::column!(), ::core::file!(), %d, %d, \"src/lib.rs\"), #[cfg(test)] line: ::core::line!()" % (
                line, len(head + record_section + "static ENTRY: %s = %s" % (record_ty, record.split("line: ::core::line!()")[0]) + "#[cfg(not(test))] line: crate::rbac_site(::core::line!(), ") + 1))),
        # The check's panic in a const fn: no assert!/panic!/format_args! expanded per attribute.
        "record_check_fn": fn_check + record_section + "static ENTRY: %s = %s; " % (record_ty, record),
        # The same condition checked while evaluating the record's `line` (no const of its own).
        "record_folded_fn": record_section + "static ENTRY: %s = %s; " % (record_ty, record.replace(
            "line: ::core::line!()", "line: crate::rbac_site(::core::line!(), %s)" % cond(
                record_section + "static ENTRY: %s = %s" % (record_ty, record.split("line: ::core::line!()")[0]),
                "line: crate::rbac_site(::core::line!(), "))),
        # No `const _` block around the static (`head` opens one: closed at once, empty).
        "record_bare": "}; " + record_section + "static ENTRY: %s = %s; const _: () = { " % (record_ty, record),
        "record_bare_folded_fn": "}; " + record_section + "static ENTRY: %s = %s; const _: () = { " % (record_ty, record.replace(
            "line: ::core::line!()", "line: crate::rbac_site(::core::line!(), %s)" % cond(
                "}; " + record_section + "static ENTRY: %s = %s" % (record_ty, record.split("line: ::core::line!()")[0]),
                "line: crate::rbac_site(::core::line!(), "))),
        # assert! without a message (no format_args!): what the message costs.
        "assert_plain": "const _: () = ::core::assert!(::core::line!() == %d); " % line,
        # The check in the static's initializer rather than a const of its own.
        "record_folded": record_section + "static ENTRY: %s = { " % record_ty
            + check("pattern", prefix="", before=record_section + "static ENTRY: %s = { " % record_ty) + record + " }; ",
        "flat": check() + link_section + "static ENTRY: crate::Entry = %s; " % flat,
        "flat_no_assert": link_section + "static ENTRY: crate::Entry = %s; " % flat,
        # Neither #[used] nor a link section: rustc evaluates the static but emits no code for it.
        "unused_static": "static ENTRY: %s = %s; " % (ty, value),
        # The least an entry can be: one string of its data and the call site, in the section.
        "one_str": link_section + "static ENTRY: (&str, &str, u32, u32) = (\"%s\\0%s\\0%s\\0reconcile_%d\", ::core::file!(), ::core::line!(), ::core::column!()); "
            % (";".join(groups), ";".join(resources), ";".join(verbs), i),
    }
    body = bodies[variant] if bodies[variant] is not None else bodies["record_folded_call"]
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

# Runs rustc under cachegrind for the variant crates only (their dependencies are built as usual).
wrapper="$work/rustc-cachegrind.sh"
cat > "$wrapper" <<'SH'
#!/bin/sh
rustc="$1"
shift
case " $* " in
*" --crate-name v_"*)
  exec valgrind --tool=cachegrind --cache-sim=no --log-file="$KM_CACHEGRIND_OUT.log" \
    --cachegrind-out-file="$KM_CACHEGRIND_OUT" "$rustc" "$@" ;;
esac
exec "$rustc" "$@"
SH
chmod +x "$wrapper"

count_crate() { # variant -> prints "instructions-in-millions"
  local dir="$work/v_$1" out="$work/v_$1/cachegrind.out"
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build -q) >&2 || return 1 # dependencies
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo clean -q -p "v_$1") >&2
  rm -f "$out" "$out.log"
  (cd "$dir" && KM_CACHEGRIND_OUT="$out" RUSTC_WRAPPER="$wrapper" CARGO_TARGET_DIR="$target" \
    cargo "${CARGO_COMMAND:-build}" -q) >&2 || return 1
  awk '/^summary:/ { printf "%.1f\n", $2 / 1e6 }' "$out"
}

if [ "${INSTRUCTIONS:-}" = 1 ]; then
  echo "instructions rustc executes (millions, cachegrind); cargo ${CARGO_COMMAND:-build}"
  printf '%-24s %10s   %s\n' variant Minstr "per attribute over none"
  base=""
  for v in "${variants[@]}"; do
    make_crate "$v"
    m=$(count_crate "$v") || { echo "$v: build failed" >&2; exit 1; }
    if [ "$v" = none ]; then base=$m; fi
    per=""
    if [ -n "$base" ]; then per="$(echo "scale=3; ($m - $base) / $n" | bc) M"; fi
    printf '%-24s %10s   %s\n' "$v" "$m" "$per"
  done
  exit 0
fi

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
