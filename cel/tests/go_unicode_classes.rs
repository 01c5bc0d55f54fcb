//! `\p{...}` names are checked against a table generated from Go's own `regexp` and `unicode`
//! packages (`cel/src/go_regex/unicode_classes.rs`): with the Go that builds this repository's
//! kube-apiserver (go1.26), the table must be what that Go says. Skipped without Go, or with
//! another Go, whose tables may differ.

use std::path::Path;
use std::process::Command;

#[test]
fn the_unicode_class_table_is_what_go_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let script = root.join("scripts/go-unicode-classes.sh");
    let version = Command::new("go").arg("version").output();
    let Ok(version) = version else {
        eprintln!("no Go: the table is not compared");
        return;
    };
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    if !version.contains("go1.26") || !script.exists() {
        eprintln!("{version}: the table is go1.26's, not compared");
        return;
    }
    let out = Command::new("bash")
        .arg(&script)
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the table differs from {version}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
