//! GitHub-flavoured Markdown pieces: table cells that a `|`, a `<` or a line break in the
//! schema's text cannot break, code spans, and the anchors GitHub gives headings.

/// Text for a table cell: `|` escaped (GFM ends a cell at a bare one, even in a code span),
/// `<` and `&` outside code spans made entities (GitHub would read `<x>` as HTML and drop it),
/// and line breaks as `<br>` (a cell is one line). Code spans (`` `x` ``) keep their text,
/// since entities are not decoded inside them.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let lines: Vec<&str> = text.trim().lines().map(str::trim_end).collect();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            // A blank line is a paragraph break; a single break is a space, as Markdown reads it.
            if line.is_empty() {
                continue;
            }
            out.push_str(if lines[i - 1].is_empty() {
                "<br><br>"
            } else {
                " "
            });
        }
        for ch in line.chars() {
            match ch {
                '`' => {
                    in_code = !in_code;
                    out.push('`');
                }
                '|' => out.push_str("\\|"),
                '<' if !in_code => out.push_str("&lt;"),
                '>' if !in_code => out.push_str("&gt;"),
                '&' if !in_code => out.push_str("&amp;"),
                c => out.push(c),
            }
        }
    }
    out
}

/// A code span holding `text` exactly, for a table cell: fenced with more backticks than any
/// run inside it, `|` escaped, line breaks as spaces.
pub(crate) fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let body = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    // A span that starts or ends with a backtick (or a space) needs a space inside the fence,
    // which GFM strips again.
    let pad = body.starts_with(['`', ' ']) || body.ends_with(['`', ' ']);
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// The anchor GitHub gives a heading: lower case, spaces as `-`, punctuation other than `-`
/// and `_` dropped.
pub(crate) fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_and_html_but_not_code() {
        assert_eq!(cell("a | b <c> & d"), "a \\| b &lt;c&gt; &amp; d");
        assert_eq!(cell("`Vec<T>` or `a|b`"), "`Vec<T>` or `a\\|b`");
        assert_eq!(cell("one\ntwo\n\nthree"), "one two<br><br>three");
    }

    #[test]
    fn code_spans_hold_backticks_and_pipes() {
        assert_eq!(code("^(a|b)$"), "`^(a\\|b)$`");
        assert_eq!(code("x`y"), "``x`y``");
        assert_eq!(code("`x"), "`` `x ``");
    }

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("v1alpha1"), "v1alpha1");
        assert_eq!(anchor("Version v1 (deprecated)"), "version-v1-deprecated");
        assert_eq!(anchor("Printer columns"), "printer-columns");
    }
}
