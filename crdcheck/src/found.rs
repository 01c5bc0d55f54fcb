//! Problems found in a CRD's schema or version, each with the API server's verdict on it.

use kube_markers_registry::crd::SchemaProblem;

/// What the API server makes of a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Refuses,
    /// Accepts it, silently: a schema no value satisfies (`minimum` above `maximum`), a printer
    /// column or scale path that leads nowhere. A warning of `check-crds` and the generator.
    Accepts,
    /// Accepts it with a warning of its own (`unrecognized format "uint32"`), which the
    /// problem's message quotes.
    Warns,
}

/// Problems found, each with the API server's verdict on it. `check-crds` and the generator
/// both refuse what it refuses and warn of the rest.
#[derive(Debug, Default)]
pub struct Found {
    problems: Vec<(SchemaProblem, Verdict)>,
    /// Whether a refused problem makes the schema unfit for CEL: any but a default's.
    pub(crate) schema_refused: bool,
}

/// A version's problems by the API server's verdict.
#[derive(Debug, Clone, Default)]
pub struct Split {
    /// What it refuses.
    pub refused: Vec<SchemaProblem>,
    /// What it accepts, each with whether it warns of it itself.
    pub accepted: Vec<(SchemaProblem, bool)>,
}

impl Found {
    /// Records a problem once: the entries of a junctor share their node's path, and the same
    /// mistake in two of them (`type` in both of `anyOf`'s) is one line to fix.
    fn add(&mut self, problem: SchemaProblem, verdict: Verdict) {
        if !self
            .problems
            .iter()
            .any(|(p, v)| *p == problem && *v == verdict)
        {
            self.problems.push((problem, verdict));
        }
    }
    pub(crate) fn push(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Refuses);
        self.schema_refused = true;
    }
    /// A default the API server refuses: the schema itself stands, and its CEL rules are
    /// compiled all the same (the API server reports both).
    pub(crate) fn push_default(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Refuses);
    }
    pub(crate) fn server_accepts(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Accepts);
    }
    pub(crate) fn server_warns(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Warns);
    }
    /// Every problem, whatever the verdict.
    pub fn problems(&self) -> impl Iterator<Item = &SchemaProblem> {
        self.problems.iter().map(|(p, _)| p)
    }
    /// Whether the API server refuses any of them.
    pub fn refused(&self) -> bool {
        self.problems.iter().any(|(_, v)| *v == Verdict::Refuses)
    }
    /// (what the API server refuses, what it accepts).
    pub fn split(self) -> (Vec<SchemaProblem>, Vec<SchemaProblem>) {
        let split = self.split_warned();
        (
            split.refused,
            split.accepted.into_iter().map(|(p, _)| p).collect(),
        )
    }
    /// What the API server refuses, and what it accepts with whether it warns of it.
    pub fn split_warned(self) -> Split {
        let mut split = Split::default();
        for (p, v) in self.problems {
            match v {
                Verdict::Refuses => split.refused.push(p),
                Verdict::Accepts => split.accepted.push((p, false)),
                Verdict::Warns => split.accepted.push((p, true)),
            }
        }
        split
    }
}
