//! The text of every file the scaffold writes, with `{{name}}` holes (Rust code keeps its own
//! braces).

pub mod api;
pub mod init;
pub mod webhook;

/// `template` with every `{{key}}` replaced by its value.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (key, value) in values {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    debug_assert!(!out.contains("{{"), "a hole is left in:\n{out}");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn holes_are_filled() {
        assert_eq!(
            super::render("a {{x}} {b} {{x}}", &[("x", "1")]),
            "a 1 {b} 1"
        );
    }
}
