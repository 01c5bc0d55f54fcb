//! `--output`: how `check-crds` (and its `--previous` comparison, [`super::upgrade`]) prints
//! what it found.

/// How the findings are printed: `--output`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Output {
    /// One line per finding, for people.
    #[default]
    Text,
    /// Every file's problems, warnings and cost report, for tools.
    Json,
    /// GitHub Actions workflow commands: an annotation on the file's line per finding.
    Github,
}

impl Output {
    pub(super) fn parse(v: &str) -> Output {
        // The flag's parser accepted only the choices.
        match v {
            "json" => Output::Json,
            "github" => Output::Github,
            _ => Output::Text,
        }
    }
}
