//! What a run is asked to do: the options every stage reads, below all of them; the command
//! line (`cli::generate`) parses into them.

use std::path::PathBuf;

/// The directory under `--out` the CRD reference docs go to by default.
pub const DOCS_DIR: &str = "docs";

/// What the generator is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Directory the manifests go to (`--out`, default `rbac-out`).
    pub out_dir: PathBuf,
    /// `--out` was not given: the relative default is the workspace root's `rbac-out`, wherever
    /// in the workspace the generator runs (see [`Options::out_in_workspace`]).
    pub out_dir_is_default: bool,
    /// Directory the CRDs go to (`--crd-out`, default `<out>/crd`).
    pub crd_out_dir: Option<PathBuf>,
    /// Directory the webhook manifests go to (`--webhook-out`, default `<out>/webhook`).
    pub webhook_out_dir: Option<PathBuf>,
    /// Directory the CRD reference docs go to (`--docs-out`, default `<out>/docs`).
    pub docs_out_dir: Option<PathBuf>,
    /// Name of roles whose attributes give no `role_name` (`--role-name`).
    pub role_name: String,
    /// File name of the RBAC manifest inside `out_dir` (`--file-name`).
    pub file_name: String,
    /// A file whose text is put before the manifests, ` YEAR` replaced (`--header-file`).
    pub header_file: Option<PathBuf>,
    /// What ` YEAR` becomes in the header (`--year`); empty, as in controller-gen, if unset.
    pub year: String,
    /// Compare instead of writing; stale or missing files fail with a diff (`--check`).
    pub check: bool,
    /// The workspace to scan for attributes (`--manifest-path`, default: cargo's search from
    /// the current directory).
    pub manifest_path: Option<PathBuf>,
    /// Skip the workspace scan (`--no-scan`): then nothing catches an unlinked crate.
    pub no_scan: bool,
    /// Names this generator's ledger in each directory it writes to
    /// (`.kube-markers-<name>.sha256`), which is how it knows the files it may remove
    /// (`--generator-name`, default: the generator's package, as `kube_markers::link!`
    /// recorded it; never the binary's name, which a rename or a rebuild changes).
    pub generator_name: String,
    /// The deploy bundle's flags (`--no-bundle`, `--operator-name`, ...).
    pub bundle: BundleFlags,
    /// Write no CRD reference docs into `<out>/docs` (`--no-docs`).
    pub no_docs: bool,
    /// Fail, writing nothing, when the run has any warning: a lint no `allow(...)` accepts,
    /// or any other (`--deny-warnings`).
    pub deny_warnings: bool,
    /// Let CRD changes that break the CRDs written before through, for this run
    /// (`--allow-breaking`).
    pub allow_breaking: bool,
    /// Regenerate the roles (and the deploy bundle) from the workspace's sources, not from this
    /// binary's registry: no rebuild after an `#[rbac]` edit (`--rbac-from-source`).
    pub rbac_from_source: bool,
    /// How the user runs this generator, for advice (`cargo run -p <package>`).
    pub invocation: crate::invocation::Invocation,
}

impl Options {
    /// Where CRDs go: `--crd-out`, else `<out>/crd`.
    pub fn crd_dir(&self) -> PathBuf {
        self.crd_out_dir
            .clone()
            .unwrap_or_else(|| self.out_dir.join("crd"))
    }

    /// Where the CRD reference docs go: `--docs-out`, else `<out>/docs`.
    pub fn docs_dir(&self) -> PathBuf {
        self.docs_out_dir
            .clone()
            .unwrap_or_else(|| self.out_dir.join(DOCS_DIR))
    }

    /// Where `manifests.yaml` of the webhooks goes: `--webhook-out`, else `<out>/webhook`.
    pub fn webhook_dir(&self) -> PathBuf {
        self.webhook_out_dir
            .clone()
            .unwrap_or_else(|| self.out_dir.join("webhook"))
    }
}

impl Options {
    /// These options with the default `--out` placed in the workspace at `root`: `cargo run -p
    /// codegen` run in a member's directory writes the workspace's one bundle, not a second
    /// one under the member. A `--out` given stays relative to the current directory, as
    /// every path on the command line is. Unchanged when the current directory is `root`, so
    /// that messages keep showing `rbac-out/...`.
    pub fn out_in_workspace(&self, root: &std::path::Path) -> Options {
        let mut opts = self.clone();
        if self.out_dir_is_default {
            opts.out_dir = default_in_workspace(&self.out_dir, root);
        }
        opts
    }
}

/// A default path (`rbac-out`) placed in the workspace at `root`: `root/rbac-out`, unless it
/// is absolute or the current directory is `root` (so that messages keep showing
/// `rbac-out/...`). The default `--out` and `can-i`'s default `--from` are both placed so.
pub(crate) fn default_in_workspace(path: &std::path::Path, root: &std::path::Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let cwd = std::env::current_dir().ok();
    let same = |a: &std::path::Path, b: &std::path::Path| {
        a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    };
    if cwd.as_deref().is_some_and(|cwd| same(cwd, root)) {
        return path.to_path_buf();
    }
    root.join(path)
}

impl Default for Options {
    fn default() -> Self {
        let invocation = crate::invocation::Invocation::current();
        Options {
            out_dir: PathBuf::from("rbac-out"),
            out_dir_is_default: true,
            crd_out_dir: None,
            webhook_out_dir: None,
            docs_out_dir: None,
            role_name: kube_markers_rbac::DEFAULT_ROLE_NAME.to_string(),
            file_name: "role.yaml".to_string(),
            header_file: None,
            year: String::new(),
            check: false,
            manifest_path: None,
            no_scan: false,
            generator_name: invocation.generator_name(),
            bundle: Default::default(),
            no_docs: false,
            deny_warnings: false,
            allow_breaking: false,
            rbac_from_source: false,
            invocation,
        }
    }
}

/// The generator flags that set the identity (`--no-bundle`, `--operator-name`,
/// `--operator-namespace`, `--image`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BundleFlags {
    /// `--no-bundle`: write only the roles and CRDs.
    pub off: bool,
    /// `--operator-name`.
    pub name: Option<String>,
    /// `--operator-namespace`.
    pub namespace: Option<String>,
    /// `--image`.
    pub image: Option<String>,
}

impl BundleFlags {
    pub(crate) fn any_identity(&self) -> bool {
        self.name.is_some() || self.namespace.is_some() || self.image.is_some()
    }
}
