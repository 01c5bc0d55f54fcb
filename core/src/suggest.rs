//! "Did you mean …?" suggestions for misspelled keys and verbs.

/// Edit distance counting an adjacent transposition (`lsit` → `list`) as one edit
/// (optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidate closest to `input`, if it is close enough to be a plausible typo.
///
/// Case and `_`/`-` differences are ignored first, so `resourceNames` suggests `resource_names`.
pub fn did_you_mean<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let fold = |s: &str| s.to_ascii_lowercase().replace(['_', '-'], "");
    let folded = fold(input);
    if let Some(exact) = candidates.iter().find(|c| fold(c) == folded) {
        return Some(exact);
    }
    let (best, dist) = candidates
        .iter()
        .map(|c| (*c, distance(&folded, &fold(c))))
        .min_by_key(|(_, d)| *d)?;
    // Allow roughly one typo per three characters, and always at least one.
    let limit = (input.chars().count() / 3).max(1);
    (dist <= limit).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["groups", "resources", "resource_names", "verbs"];
        assert_eq!(did_you_mean("verb", &keys), Some("verbs"));
        assert_eq!(did_you_mean("resourcenames", &keys), Some("resource_names"));
        assert_eq!(did_you_mean("ResourceNames", &keys), Some("resource_names"));
        assert_eq!(did_you_mean("gropus", &keys), Some("groups"));
        assert_eq!(did_you_mean("namespace", &keys), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("lsit", "list"), 1);
    }
}
