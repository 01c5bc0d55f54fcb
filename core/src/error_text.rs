//! How an error prints with its sources: the generator's messages and the operator library's.

/// An error's message, then each of its sources after `: `: how lists of problems print each
/// one (a problem's own message leaves out its source, as `std::error::Error` asks).
pub fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}
