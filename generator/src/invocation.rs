//! How the user runs this generator: its package and binary, as the `kube_markers::link!` in
//! its `main.rs` recorded them, so that advice names `cargo run -p <package>` (an `xtask`, a
//! `gen` binary), not this repository's `codegen`.

/// The running generator, as its user invokes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The package whose binary this is, when `link!` recorded it.
    pub package: Option<String>,
    /// The binary's name: `link!`'s, else the executable's file name.
    pub bin: String,
}

impl Invocation {
    /// This process: the registry's record of its `link!`, else its executable's name.
    pub fn current() -> Invocation {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.file_stem()?.to_str().map(str::to_string));
        match kube_markers_registry::generator() {
            Some((package, bin)) => Invocation {
                package: Some(package.to_string()),
                bin: bin
                    .map(str::to_string)
                    .or(exe)
                    .unwrap_or_else(|| package.to_string()),
            },
            None => Invocation {
                package: None,
                bin: exe.unwrap_or_else(|| "codegen".to_string()),
            },
        }
    }

    /// The binary `bin` of the package of the same name.
    pub fn cargo(package: &str) -> Invocation {
        Invocation {
            package: Some(package.to_string()),
            bin: package.to_string(),
        }
    }

    /// The command that rebuilds and runs it: `cargo run -p <package>` (with `--bin` when the
    /// binary is named otherwise), or the binary itself when its package is unknown.
    pub fn rerun(&self) -> String {
        match &self.package {
            Some(package) if *package == self.bin => format!("cargo run -p {package}"),
            Some(package) => format!("cargo run -p {package} --bin {}", self.bin),
            None => self.bin.clone(),
        }
    }

    /// The command that runs it with `args` (`cargo run -p codegen -- --check`).
    pub fn rerun_with(&self, args: &str) -> String {
        match &self.package {
            Some(_) => format!("{} -- {args}", self.rerun()),
            None => format!("{} {args}", self.bin),
        }
    }
}

impl Default for Invocation {
    fn default() -> Self {
        Invocation::current()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_names_the_package_and_binary() {
        assert_eq!(Invocation::cargo("codegen").rerun(), "cargo run -p codegen");
        let xtask = Invocation {
            package: Some("xtask".into()),
            bin: "gen".into(),
        };
        assert_eq!(xtask.rerun(), "cargo run -p xtask --bin gen");
        assert_eq!(
            xtask.rerun_with("--check"),
            "cargo run -p xtask --bin gen -- --check"
        );
        let bare = Invocation {
            package: None,
            bin: "gen".into(),
        };
        assert_eq!(bare.rerun_with("--check"), "gen --check");
        // This test binary links no `link!`: it is named by its file.
        assert_eq!(Invocation::current().package, None);
    }
}
