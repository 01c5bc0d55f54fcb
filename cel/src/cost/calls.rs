//! What one call costs: cel-go's standard overloads, the ext libraries' estimators and
//! Kubernetes' `library.CostEstimator`, over the sizes the rest of the estimate tracks.

use super::*;

impl Coster<'_> {
    /// One overload's cost and result size, without the target's cost.
    pub(super) fn function_cost(
        &mut self,
        e: &Expr,
        function: &str,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
        arg_costs: &[Estimate],
    ) -> (Estimate, Option<Estimate>) {
        let arg_sum = arg_costs.iter().fold(Estimate::fixed(0), |s, c| s.add(*c));
        if let Some((c, size)) = self.extension_cost(overload, target, args) {
            return (c.add(arg_sum), size);
        }
        if let Some((c, size)) = self.kubernetes_cost(function, overload, target, args) {
            return (c.add(arg_sum), size);
        }
        let size_of = |n: &Node<'_>, me: &Self| me.node_size(n);
        match overload {
            "string_format" if target.is_some() => {
                return (
                    size_of(target.unwrap(), self)
                        .factor(STRING_TRAVERSAL)
                        .add(arg_sum),
                    None,
                );
            }
            "string_to_bytes" if args.len() == 1 => {
                let s = size_of(&args[0], self);
                return (
                    s.factor(STRING_TRAVERSAL).add(arg_sum),
                    Some(Estimate {
                        min: s.min,
                        max: s.max.saturating_mul(4),
                    }),
                );
            }
            "bytes_to_string" if args.len() == 1 => {
                let s = size_of(&args[0], self);
                return (
                    s.factor(STRING_TRAVERSAL).add(arg_sum),
                    Some(Estimate {
                        min: s.min / 4,
                        max: s.max,
                    }),
                );
            }
            "strings_quote" if args.len() == 1 => {
                let s = size_of(&args[0], self);
                let r = Estimate {
                    min: s.min.saturating_add(2),
                    max: s.max.saturating_mul(2).saturating_add(2),
                };
                return (s.factor(STRING_TRAVERSAL).add(arg_sum), Some(r));
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return (
                    size_of(&args[0], self)
                        .factor(STRING_TRAVERSAL)
                        .add(arg_sum),
                    None,
                );
            }
            "in_list" if args.len() == 2 => {
                return (size_of(&args[1], self).factor(1.0).add(arg_sum), None);
            }
            "matches_string" if target.is_some() && args.len() == 1 => {
                let s = size_of(target.unwrap(), self)
                    .add(Estimate::fixed(1))
                    .factor(STRING_TRAVERSAL);
                let r = size_of(&args[0], self).factor(REGEX_STRING_LENGTH);
                return (s.mul(r).add(arg_sum), None);
            }
            "contains_string" if target.is_some() && args.len() == 1 => {
                let s = size_of(target.unwrap(), self).factor(STRING_TRAVERSAL);
                let sub = size_of(&args[0], self).factor(STRING_TRAVERSAL);
                return (s.mul(sub).add(arg_sum), None);
            }
            "logical_or" | "logical_and" => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                return (
                    Estimate {
                        min: l.min,
                        max: l.add(r).max,
                    },
                    None,
                );
            }
            "conditional" => {
                let size = size_of(&args[1], self).union(size_of(&args[2], self));
                let (t, f) = (args[1].expr.unwrap(), args[2].expr.unwrap());
                if let Some(s) = union_entries(self.entry_size(t), self.entry_size(f)) {
                    self.entries.insert(e.id, s);
                }
                return (
                    arg_costs[0].add(arg_costs[1].union(arg_costs[2])),
                    Some(size),
                );
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let size = size_of(&args[0], self).add(size_of(&args[1], self));
                let (l, r) = (args[0].expr.unwrap(), args[1].expr.unwrap());
                if let Some(s) = union_entries(self.entry_size(l), self.entry_size(r)) {
                    self.entries.insert(e.id, s);
                }
                if overload == "add_list" {
                    return (Estimate::fixed(1).add(arg_sum), Some(size));
                }
                return (size.factor(STRING_TRAVERSAL).add(arg_sum), Some(size));
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals" => {
                let (l, r) = (size_of(&args[0], self), size_of(&args[1], self));
                let smallest = l.max.min(r.max);
                let min = u64::from(smallest > 0);
                return (
                    Estimate { min, max: smallest }
                        .factor(STRING_TRAVERSAL)
                        .add(arg_sum),
                    None,
                );
            }
            _ => {}
        }
        (Estimate::fixed(1).add(arg_sum), None)
    }

    /// ext.Lists v3's and ext.Sets' overload estimators.
    fn extension_cost(
        &self,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
    ) -> Option<(Estimate, Option<Estimate>)> {
        let list_call = |factor: f64, size: Estimate| {
            let c = size
                .factor(factor)
                .add(Estimate::fixed(1))
                .add(Estimate::fixed(LIST_CREATE));
            Some((c, Some(size)))
        };
        // The element type of ext.Lists' templated sort overloads is in their ids.
        let sort_factor = |id: &str| {
            if id.starts_with("list_string_") || id.starts_with("list_bytes_") {
                2.0 + STRING_TRAVERSAL
            } else {
                2.0
            }
        };
        match overload {
            "list_sets_contains_list"
            | "list_sets_intersects_list"
            | "list_sets_equivalent_list" => {
                if args.len() != 2 {
                    return None;
                }
                let f = if overload == "list_sets_equivalent_list" {
                    2.0
                } else {
                    1.0
                };
                let c = self
                    .node_size(&args[0])
                    .mul(self.node_size(&args[1]))
                    .factor(f)
                    .add(Estimate::fixed(1));
                Some((c, None))
            }
            "list_slice" => {
                let t = target?;
                if args.len() != 2 {
                    return None;
                }
                let sz = self.node_size(t);
                let start = uint_literal(&args[0], 0);
                let end = uint_literal(&args[1], sz.max);
                list_call(1.0, Estimate::fixed(end.wrapping_sub(start)))
            }
            "lists_range" if target.is_none() && args.len() == 1 => {
                list_call(1.0, Estimate::fixed(uint_literal(&args[0], u64::MAX)))
            }
            "list_reverse" if args.is_empty() => list_call(1.0, self.node_size(target?)),
            "list_flatten" | "list_flatten_int" if args.len() <= 1 => {
                let depth = args.first().map_or(1, |a| uint_literal(a, u64::MAX));
                list_call(depth as f64, self.node_size(target?))
            }
            "list_distinct" if args.is_empty() => {
                let sz = self.node_size(target?);
                list_call(2.0, sz.mul(sz))
            }
            o if o.starts_with("list_") && o.ends_with("_sort") && args.is_empty() => {
                let sz = self.node_size(target?);
                list_call(sort_factor(o), sz.mul(sz))
            }
            o if o.ends_with("_sortByAssociatedKeys") && target.is_some() && args.len() == 1 => {
                let sz = self.node_size(&args[0]);
                list_call(sort_factor(o), sz.mul(sz))
            }
            _ => None,
        }
    }

    /// Kubernetes' `library.CostEstimator.EstimateCallCost`, by function name.
    fn kubernetes_cost(
        &self,
        function: &str,
        overload: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
    ) -> Option<(Estimate, Option<Estimate>)> {
        let one = Estimate::fixed(1);
        let arg0 = || args.first().map(|a| self.node_size(a));
        match function {
            "check" => Some((Estimate::fixed(350_000), None)),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored" => Some((one, None)),
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                let t = target?;
                let size = self.node_size(t);
                match list_element(t) {
                    Some((path, elem)) => {
                        let mut el = one;
                        if matches!(elem, Type::String | Type::Bytes) {
                            let s = self.estimate_size(&path).unwrap_or(UNKNOWN);
                            el = el.add(s.factor(STRING_TRAVERSAL));
                        }
                        Some((size.mul(el), None))
                    }
                    None if function == "includes" => Some((size.mul(one), None)),
                    None => Some((size.factor(STRING_TRAVERSAL), None)),
                }
            }
            "url" | "jsonpatch.escapeKey" if args.len() == 1 => {
                let s = arg0()?;
                Some((s.factor(STRING_TRAVERSAL), Some(s)))
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let s = self.node_size(target?);
                Some((s.factor(STRING_TRAVERSAL), Some(s)))
            }
            "replace" if target.is_some() && args.len() >= 2 => {
                let sz = self.node_size(target?);
                let (to, with) = (self.node_size(&args[0]), self.node_size(&args[1]));
                let (mut count, mut retained) = (Estimate::fixed(0), Estimate::fixed(0));
                if to.min == 0 {
                    count.max = if sz.max < u64::MAX {
                        sz.max + 1
                    } else {
                        sz.max
                    };
                    retained.max = sz.max;
                } else if with.max <= to.min {
                    retained.max = sz.max;
                } else {
                    count.max = (sz.max as f64 / to.min as f64).ceil() as u64;
                }
                if to.max == 0 {
                    count.min = if sz.min < u64::MAX {
                        sz.min + 1
                    } else {
                        sz.min
                    };
                    retained.min = sz.min;
                } else if to.max <= with.min {
                    retained.min = sz.min;
                } else {
                    count.min = (sz.min as f64 / to.max as f64).ceil() as u64;
                }
                let size = count.mul(with).add(retained);
                Some((sz.factor(2.0 * STRING_TRAVERSAL), Some(size)))
            }
            "split" => {
                let sz = self.node_size(target?);
                let mut max = sz.max;
                if let Some(Node {
                    expr:
                        Some(Expr {
                            kind: ExprKind::Literal(Literal::Int(i)),
                            ..
                        }),
                    ..
                }) = args.get(1)
                {
                    max = *i as u64;
                }
                Some((
                    sz.factor(2.0 * STRING_TRAVERSAL),
                    Some(Estimate { min: 0, max }),
                ))
            }
            "join" => {
                let t = target?;
                let list = self.node_size(t);
                let mut sz = Estimate::fixed(0);
                if let Some((path, _)) = list_element(t) {
                    sz = list.mul(self.estimate_size(&path).unwrap_or(UNKNOWN));
                }
                if let Some(sep) = args.first() {
                    let sep = self.node_size(sep);
                    let seps = Estimate {
                        min: list.min.saturating_sub(1),
                        max: list.max.saturating_sub(1),
                    };
                    sz = sz.add(sep.mul(seps));
                }
                Some((sz.factor(STRING_TRAVERSAL), Some(sz)))
            }
            "find" | "findAll" if target.is_some() && !args.is_empty() => {
                let sz = self.node_size(target?);
                let s = sz.add(one).factor(STRING_TRAVERSAL);
                let r = self.node_size(&args[0]).factor(REGEX_STRING_LENGTH);
                Some((
                    s.mul(r),
                    Some(Estimate {
                        min: 0,
                        max: sz.max,
                    }),
                ))
            }
            "cidr" | "isIP" | "isCIDR" if !args.is_empty() => {
                Some((arg0()?.factor(STRING_TRAVERSAL), None))
            }
            "ip" if overload == "cidr_ip" => Some((one, None)),
            "ip" if !args.is_empty() => Some((arg0()?.factor(STRING_TRAVERSAL), None)),
            "ip.isCanonical" if !args.is_empty() => {
                Some((arg0()?.factor(2.0 * STRING_TRAVERSAL), None))
            }
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast" => Some((one, None)),
            "containsIP" | "containsCIDR" if !args.is_empty() => {
                let ip = Estimate { min: 4, max: 16 };
                let mut c = ip.add(ip).factor(STRING_TRAVERSAL);
                if function == "containsCIDR" {
                    c = c.add(ip.factor(STRING_TRAVERSAL)).add(one);
                }
                if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string"
                {
                    c = c.add(arg0()?.factor(STRING_TRAVERSAL));
                }
                Some((c, None))
            }
            "quantity" | "isQuantity" | "semver" | "isSemver" if !args.is_empty() => {
                Some((arg0()?.factor(STRING_TRAVERSAL), None))
            }
            "validate" if !args.is_empty() => Some((
                arg0()?
                    .factor(STRING_TRAVERSAL)
                    .factor(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH),
                None,
            )),
            "format.named" => Some((one, None)),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => {
                Some((one, None))
            }
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                Some((one, None))
            }
            "_==_" if args.len() == 2 && args[0].ty == args[1].ty => match &args[0].ty {
                Type::Opaque(n, _) if n == "net.IP" || n == "net.CIDR" => Some((one, None)),
                Type::Struct(n)
                    if n == "kubernetes.Quantity"
                        || n == "kubernetes.Semver"
                        || n.starts_with("kubernetes.authorization.") =>
                {
                    Some((one, None))
                }
                Type::Struct(n) if n == "kubernetes.NamedFormat" => Some((
                    Estimate {
                        min: 1,
                        max: MAX_FORMAT_SIZE,
                    }
                    .factor(STRING_TRAVERSAL),
                    None,
                )),
                Type::Struct(n) if n == "kubernetes.URL" => {
                    // Kubernetes takes both sizes from the right-hand side.
                    let size = args[1].computed.map_or(one, |r| r.union(r));
                    Some((
                        Estimate {
                            min: 1,
                            max: size.max,
                        }
                        .factor(STRING_TRAVERSAL),
                        None,
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }
}
