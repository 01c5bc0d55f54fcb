//! Kubernetes' version priority (apimachinery's `CompareKubeAwareVersionStrings`): GA above
//! beta above alpha, then by major and minor number; names that are not `vN[alpha|betaM]`
//! below all of them, in reverse lexical order.

use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Track {
    Alpha,
    Beta,
    Ga,
}

fn parse(version: &str) -> Option<(Track, u64, u64)> {
    let rest = version.strip_prefix('v')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let major = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    if rest.is_empty() {
        return Some((Track::Ga, major, 0));
    }
    let (track, minor) = if let Some(m) = rest.strip_prefix("alpha") {
        (Track::Alpha, m)
    } else {
        (Track::Beta, rest.strip_prefix("beta")?)
    };
    if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((track, major, minor.parse().ok()?))
}

/// `Less` when `a` has the lower priority (sorts first, as crdify orders served versions).
pub fn compare(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse(a), parse(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_as_kubernetes_prioritizes_them() {
        let mut versions = vec![
            "v1", "v2", "v1beta1", "v1alpha1", "v10", "v2beta3", "v1beta2", "foo", "bar", "v1alpha",
        ];
        versions.sort_by(|a, b| compare(a, b));
        assert_eq!(
            versions,
            [
                "v1alpha", "foo", "bar", "v1alpha1", "v1beta1", "v1beta2", "v2beta3", "v1", "v2",
                "v10"
            ]
        );
    }
}
