//! A real Kubernetes API server for tests: controller-runtime's envtest, for kube-rs.
//!
//! [`EnvtestBuilder::start`] runs `etcd` and `kube-apiserver` (no kubelet, no controllers) on free
//! loopback ports in a temporary directory, with TLS material generated at start, RBAC
//! authorization on, and a static token file holding an admin identity and, if asked for, an
//! operator identity (`system:serviceaccount:<namespace>:<name>` with its groups). Every
//! request is written to an audit log, so a test can ask which requests were forbidden.
//! Dropping the [`Envtest`] (also on panic) stops both processes and removes the directory. On
//! Linux, if the test process dies, the kernel kills them too (`PR_SET_PDEATHSIG`); other
//! systems have no such guarantee, so a test process killed there (not one that panics) can
//! leave both running.
//!
//! ```no_run
//! # async fn example() -> Result<(), kube_markers_envtest::Error> {
//! use kube_markers_envtest::Envtest;
//!
//! let env = Envtest::builder()
//!     .assets("/path/to/dir/with/kube-apiserver/and/etcd")
//!     .operator("my-system", "my-operator")
//!     .start()
//!     .await?;
//! env.apply_dir("rbac-out/crd").await?;      // CRDs first: waits until Established
//! env.apply_file("rbac-out/role.yaml").await?;
//! let admin = env.admin_client()?;
//! let operator = env.operator_client()?;    // runs under the generated role only
//! // ... run the reconciler with `operator`, then:
//! assert!(env.forbidden_requests()?.is_empty());
//! # Ok(()) }
//! ```
//!
//! The binaries come from `KUBEBUILDER_ASSETS` (setup-envtest's layout) when set, else from
//! [`EnvtestBuilder::assets`]; in this repository `scripts/envtest-assets.sh` builds pinned
//! versions. Call `start` inside a tokio runtime; the processes are tied to the thread that
//! starts them, so do not start from a short-lived blocking thread.

mod manifests;
mod pki;

use serde_json::Value;
use std::fmt;
use std::net::TcpListener;
#[cfg(target_os = "linux")]
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use manifests::{Applied, parse_manifests, point_webhooks_at};
pub use pki::{ServingCert, TestCa};

/// Why the environment could not be started or used.
#[derive(Debug)]
pub enum Error {
    /// The binaries were not found.
    Assets(String),
    /// A process failed to start or to become ready; the message includes its log's tail.
    Start(String),
    /// A file could not be read or written.
    Io(String),
    /// A manifest could not be parsed or applied.
    Manifest(String),
    /// A call to the API server failed.
    Kube(kube::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Assets(m) | Error::Start(m) | Error::Io(m) | Error::Manifest(m) => {
                f.write_str(m)
            }
            Error::Kube(e) => write!(f, "Kubernetes API call failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<kube::Error> for Error {
    fn from(e: kube::Error) -> Self {
        Error::Kube(e)
    }
}

fn io(what: impl fmt::Display, e: std::io::Error) -> Error {
    Error::Io(format!("{what}: {e}"))
}

/// A service-account identity a test can act as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceAccount {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
}

impl ServiceAccount {
    /// The user name the API server sees: `system:serviceaccount:<ns>:<name>`.
    pub fn user_name(&self) -> String {
        format!("system:serviceaccount:{}:{}", self.namespace, self.name)
    }
}

/// Options for [`EnvtestBuilder::start`], from [`Envtest::builder`].
#[derive(Debug, Clone, Default)]
pub struct EnvtestBuilder {
    assets: Option<PathBuf>,
    operator: Option<ServiceAccount>,
    extra_args: Vec<String>,
}

impl EnvtestBuilder {
    /// Directory holding `kube-apiserver` and `etcd`; `KUBEBUILDER_ASSETS` takes precedence.
    pub fn assets(mut self, dir: impl Into<PathBuf>) -> Self {
        self.assets = Some(dir.into());
        self
    }

    /// Adds an operator identity: a token for `system:serviceaccount:<namespace>:<name>`.
    pub fn operator(mut self, namespace: &str, name: &str) -> Self {
        self.operator = Some(ServiceAccount {
            namespace: namespace.into(),
            name: name.into(),
        });
        self
    }

    /// Extra `kube-apiserver` flags.
    pub fn apiserver_arg(mut self, arg: impl Into<String>) -> Self {
        self.extra_args.push(arg.into());
        self
    }

    /// Starts etcd and kube-apiserver and waits until the API server is ready.
    ///
    /// Free ports are picked by binding port 0 and letting go, so another process can take one
    /// before etcd or kube-apiserver binds it; such a start is retried with new ports.
    pub async fn start(self) -> Result<Envtest, Error> {
        let mut attempt = 1;
        loop {
            match Envtest::start_with(self.clone()).await {
                Err(Error::Start(message))
                    if attempt < 3 && message.contains("address already in use") =>
                {
                    attempt += 1;
                }
                result => return result,
            }
        }
    }
}

/// A running etcd + kube-apiserver. Stopped and cleaned up on drop.
pub struct Envtest {
    dir: tempfile::TempDir,
    etcd: Option<Child>,
    apiserver: Option<Child>,
    url: String,
    ca_der: Vec<u8>,
    operator: Option<ServiceAccount>,
    /// How long `start` took until the API server answered ready.
    pub startup: Duration,
}

const ADMIN_TOKEN: &str = "envtest-admin-token";
const OPERATOR_TOKEN: &str = "envtest-operator-token";

fn free_port() -> Result<u16, Error> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| io("cannot find a free port", e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| io("cannot find a free port", e))
}

fn find_assets(configured: Option<&Path>) -> Result<PathBuf, Error> {
    let dir = match std::env::var_os("KUBEBUILDER_ASSETS") {
        Some(dir) => PathBuf::from(dir),
        None => configured.map(Path::to_path_buf).ok_or_else(|| {
            Error::Assets(
                "no kube-apiserver/etcd: set KUBEBUILDER_ASSETS or EnvtestBuilder::assets \
                 (scripts/envtest-assets.sh builds them)"
                    .into(),
            )
        })?,
    };
    for bin in ["kube-apiserver", "etcd"] {
        if !binary(&dir, bin).is_file() {
            let suffix = std::env::consts::EXE_SUFFIX;
            return Err(Error::Assets(format!(
                "{} has no {bin}{suffix}",
                dir.display()
            )));
        }
    }
    Ok(dir)
}

/// The executable `name` in `dir` (`name.exe` on Windows).
fn binary(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Spawns `program`, its output to `log`; on Linux, killed by the kernel if this process dies.
fn spawn(program: &Path, args: &[String], log: &Path) -> Result<Child, Error> {
    let out = std::fs::File::create(log).map_err(|e| io(log.display(), e))?;
    let err = out.try_clone().map_err(|e| io(log.display(), e))?;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stdout(out).stderr(err);
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    #[cfg(target_os = "linux")]
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
        .map_err(|e| io(format!("cannot start {}", program.display()), e))
}

fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(25)..].join("\n")
}

impl Envtest {
    /// A builder with defaults.
    pub fn builder() -> EnvtestBuilder {
        EnvtestBuilder::default()
    }

    async fn start_with(opts: EnvtestBuilder) -> Result<Envtest, Error> {
        let began = Instant::now();
        let assets = find_assets(opts.assets.as_deref())?;
        let dir = tempfile::Builder::new()
            .prefix("kube-markers-envtest-")
            .tempdir()
            .map_err(|e| io("cannot create a temporary directory", e))?;
        let path = |name: &str| dir.path().join(name);
        let write = |name: &str, content: &str| {
            std::fs::write(path(name), content).map_err(|e| io(name, e))
        };

        let pki = pki::Pki::generate()?;
        write("ca.crt", &pki.ca_pem)?;
        write("serving.crt", &pki.serving_cert_pem)?;
        write("serving.key", &pki.serving_key_pem)?;
        write("sa.key", &pki.sa_key_pem)?;
        write("sa.pub", &pki.sa_public_pem)?;
        let mut tokens = format!(
            "{ADMIN_TOKEN},envtest-admin,envtest-admin-uid,\"system:masters,system:authenticated\"\n"
        );
        if let Some(sa) = &opts.operator {
            tokens.push_str(&format!(
                "{OPERATOR_TOKEN},{},envtest-operator-uid,\"system:serviceaccounts,system:serviceaccounts:{},system:authenticated\"\n",
                sa.user_name(),
                sa.namespace
            ));
        }
        write("tokens.csv", &tokens)?;
        write(
            "audit-policy.yaml",
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n",
        )?;

        let (client_port, peer_port, api_port) = (free_port()?, free_port()?, free_port()?);
        let etcd_args: Vec<String> = [
            format!("--data-dir={}", path("etcd").display()),
            format!("--listen-client-urls=http://127.0.0.1:{client_port}"),
            format!("--advertise-client-urls=http://127.0.0.1:{client_port}"),
            format!("--listen-peer-urls=http://127.0.0.1:{peer_port}"),
            format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}"),
            format!("--initial-cluster=default=http://127.0.0.1:{peer_port}"),
            "--unsafe-no-fsync=true".into(),
            "--log-level=warn".into(),
        ]
        .into();
        let etcd = spawn(&binary(&assets, "etcd"), &etcd_args, &path("etcd.log"))?;

        let mut api_args: Vec<String> = vec![
            format!("--etcd-servers=http://127.0.0.1:{client_port}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            format!("--secure-port={api_port}"),
            format!("--tls-cert-file={}", path("serving.crt").display()),
            format!("--tls-private-key-file={}", path("serving.key").display()),
            format!("--cert-dir={}", path("certs").display()),
            "--authorization-mode=RBAC".into(),
            format!("--token-auth-file={}", path("tokens.csv").display()),
            "--service-account-issuer=https://kubernetes.default.svc".into(),
            format!("--service-account-key-file={}", path("sa.pub").display()),
            format!(
                "--service-account-signing-key-file={}",
                path("sa.key").display()
            ),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--endpoint-reconciler-type=none".into(),
            "--disable-admission-plugins=ServiceAccount".into(),
            format!(
                "--audit-policy-file={}",
                path("audit-policy.yaml").display()
            ),
            format!("--audit-log-path={}", path("audit.log").display()),
            "--audit-log-mode=blocking".into(),
        ];
        api_args.extend(opts.extra_args);
        let apiserver = spawn(
            &binary(&assets, "kube-apiserver"),
            &api_args,
            &path("apiserver.log"),
        )?;

        let mut env = Envtest {
            url: format!("https://127.0.0.1:{api_port}"),
            ca_der: pki.ca_der,
            operator: opts.operator,
            dir,
            etcd: Some(etcd),
            apiserver: Some(apiserver),
            startup: Duration::ZERO,
        };
        env.wait_ready(Duration::from_secs(90)).await?;
        env.startup = began.elapsed();
        Ok(env)
    }

    async fn wait_ready(&mut self, timeout: Duration) -> Result<(), Error> {
        let client = self.admin_client()?;
        let deadline = Instant::now() + timeout;
        loop {
            for (name, child) in [
                ("etcd", &mut self.etcd),
                ("kube-apiserver", &mut self.apiserver),
            ] {
                if let Some(status) = child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                    let log = self.dir.path().join(if name == "etcd" {
                        "etcd.log"
                    } else {
                        "apiserver.log"
                    });
                    return Err(Error::Start(format!(
                        "{name} exited ({status}):\n{}",
                        log_tail(&log)
                    )));
                }
            }
            let request = http::Request::get("/readyz")
                .body(Vec::new())
                .map_err(|e| Error::Start(e.to_string()))?;
            if let Ok(body) = client.request_text(request).await
                && body.trim() == "ok"
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::Start(format!(
                    "kube-apiserver not ready after {timeout:?}:\n{}",
                    log_tail(&self.dir.path().join("apiserver.log"))
                )));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The API server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The working directory (logs, certificates, kubeconfigs).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The operator identity, if one was configured.
    pub fn operator(&self) -> Option<&ServiceAccount> {
        self.operator.as_ref()
    }

    fn config(&self, token: &str) -> Result<kube::Config, Error> {
        let uri = self
            .url
            .parse()
            .map_err(|e| Error::Start(format!("bad URL {}: {e}", self.url)))?;
        let mut config = kube::Config::new(uri);
        config.root_cert = Some(vec![self.ca_der.clone()]);
        config.auth_info = serde_json::from_value(serde_json::json!({ "token": token }))
            .map_err(|e| Error::Start(format!("token: {e}")))?;
        Ok(config)
    }

    /// A client with cluster-admin rights (`system:masters`).
    pub fn admin_client(&self) -> Result<kube::Client, Error> {
        Ok(kube::Client::try_from(self.config(ADMIN_TOKEN)?)?)
    }

    /// A token for the ServiceAccount `namespace/name` from the TokenRequest API, as the
    /// kubelet obtains one for a Pod: signed by the API server, valid for an hour, and
    /// authenticating as `system:serviceaccount:<namespace>:<name>` only while the account
    /// exists. The account must exist (apply it first).
    pub async fn service_account_token(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<String, Error> {
        use k8s_openapi::api::authentication::v1::TokenRequest;
        use k8s_openapi::api::core::v1::ServiceAccount as Account;
        // Built from JSON: the typed struct's shape differs between Kubernetes versions.
        let request: TokenRequest = serde_json::from_value(
            serde_json::json!({"spec": {"audiences": [], "expirationSeconds": 3600}}),
        )
        .map_err(|e| Error::Manifest(format!("TokenRequest: {e}")))?;
        let api: kube::Api<Account> = kube::Api::namespaced(self.admin_client()?, namespace);
        let response = api
            .create_token_request(name, &Default::default(), &request)
            .await?;
        let value = serde_json::to_value(&response)
            .map_err(|e| Error::Manifest(format!("TokenRequest: {e}")))?;
        value["status"]["token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| {
                Error::Manifest(format!(
                    "the TokenRequest for {namespace}/{name} returned no token: {value}"
                ))
            })
    }

    /// A client that authenticates with `token` (from [`Self::service_account_token`], say),
    /// `default_namespace` its namespace for namespaced calls without one.
    pub fn client_for_token(
        &self,
        token: &str,
        default_namespace: &str,
    ) -> Result<kube::Client, Error> {
        Ok(kube::Client::try_from(
            self.config_for_token(token, default_namespace)?,
        )?)
    }

    /// The configuration of [`Self::client_for_token`], to build a client with more layers
    /// (`kube::client::ClientBuilder::try_from(config)?.with_layer(..)`).
    pub fn config_for_token(
        &self,
        token: &str,
        default_namespace: &str,
    ) -> Result<kube::Config, Error> {
        let mut config = self.config(token)?;
        config.default_namespace = default_namespace.to_string();
        Ok(config)
    }

    /// A client acting as the user `user` in `groups` (the admin impersonating them): what RBAC
    /// grants that user, and nothing else.
    pub fn client_as(&self, user: &str, groups: &[&str]) -> Result<kube::Client, Error> {
        let mut config = self.config(ADMIN_TOKEN)?;
        config.auth_info.impersonate = Some(user.to_string());
        if !groups.is_empty() {
            config.auth_info.impersonate_groups =
                Some(groups.iter().map(|g| g.to_string()).collect());
        }
        Ok(kube::Client::try_from(config)?)
    }

    /// A client acting as the operator's service account: only what RBAC grants it.
    pub fn operator_client(&self) -> Result<kube::Client, Error> {
        if self.operator.is_none() {
            return Err(Error::Start(
                "no operator identity: use EnvtestBuilder::operator".into(),
            ));
        }
        let mut config = self.config(OPERATOR_TOKEN)?;
        if let Some(sa) = &self.operator {
            config.default_namespace = sa.namespace.clone();
        }
        Ok(kube::Client::try_from(config)?)
    }

    /// Writes a kubeconfig for `kubectl` (admin identity) and returns its path.
    pub fn admin_kubeconfig(&self) -> Result<PathBuf, Error> {
        let path = self.dir.path().join("admin.kubeconfig");
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    server: {}\n    certificate-authority: {}\nusers:\n- name: admin\n  user:\n    token: {ADMIN_TOKEN}\ncontexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: admin\ncurrent-context: envtest\n",
            self.url,
            self.dir.path().join("ca.crt").display()
        );
        std::fs::write(&path, config).map_err(|e| io(path.display(), e))?;
        Ok(path)
    }

    /// Every audit event so far (one JSON object per request).
    pub fn audit_events(&self) -> Result<Vec<Value>, Error> {
        let path = self.dir.path().join("audit.log");
        let text = std::fs::read_to_string(&path).map_err(|e| io(path.display(), e))?;
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }

    /// The permissions the operator was denied (HTTP 403), in order, deduplicated, as the API
    /// server named them: `verb group/resource[/sub]` or `verb /path`. Denials by RBAC and by
    /// admission plugins that check RBAC (`cannot update resource "x/finalizers"`) alike.
    pub fn forbidden_requests(&self) -> Result<Vec<String>, Error> {
        let user = self
            .operator
            .as_ref()
            .map(ServiceAccount::user_name)
            .unwrap_or_default();
        self.forbidden_requests_of(&user)
    }

    /// The permissions `user` (a user name as the API server sees it, e.g.
    /// [`ServiceAccount::user_name`]) was denied, as [`Self::forbidden_requests`] names them.
    pub fn forbidden_requests_of(&self, user: &str) -> Result<Vec<String>, Error> {
        let mut out: Vec<String> = Vec::new();
        for event in self.audit_events()? {
            if event["user"]["username"] != user || event["responseStatus"]["code"] != 403 {
                continue;
            }
            let message = event["responseStatus"]["message"]
                .as_str()
                .unwrap_or_default();
            // Some events carry no message; their request names the permission then.
            let line = denied_permission(message).unwrap_or_else(|| {
                let verb = event["verb"].as_str().unwrap_or("?");
                let r = &event["objectRef"];
                if r.is_null() {
                    let uri = event["requestURI"].as_str().unwrap_or("?");
                    format!("{verb} {}", uri.split('?').next().unwrap_or(uri))
                } else {
                    let sub = r["subresource"]
                        .as_str()
                        .map(|s| format!("/{s}"))
                        .unwrap_or_default();
                    format!(
                        "{verb} {}/{}{sub}",
                        r["apiGroup"].as_str().unwrap_or(""),
                        r["resource"].as_str().unwrap_or("?")
                    )
                }
            });
            if !out.contains(&line) {
                out.push(line);
            }
        }
        Ok(out)
    }

    /// Resident memory of kube-apiserver and etcd together, in bytes, from `/proc` (`None`
    /// where there is none, as off Linux).
    pub fn resident_memory(&self) -> Option<u64> {
        let mut total = 0;
        for child in [&self.apiserver, &self.etcd].into_iter().flatten() {
            let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
            let kib: u64 = status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            total += kib * 1024;
        }
        Some(total)
    }

    fn stop(&mut self) {
        for child in [self.apiserver.take(), self.etcd.take()]
            .into_iter()
            .flatten()
        {
            let mut child = child;
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The permission a 403 message names: `User "u" cannot list resource "pods" in API group ""
/// ...` → `list /pods`; `... cannot get path "/metrics"` → `get /metrics`.
pub fn denied_permission(message: &str) -> Option<String> {
    let rest = &message[message.find("\" cannot ")? + "\" cannot ".len()..];
    let (verb, rest) = rest.split_once(' ')?;
    let quoted = |s: &str| -> Option<(String, usize)> {
        let start = s.find('"')? + 1;
        let len = s[start..].find('"')?;
        Some((s[start..start + len].to_string(), start + len + 1))
    };
    if let Some(rest) = rest.strip_prefix("path ") {
        let (path, _) = quoted(rest)?;
        return Some(format!("{verb} {path}"));
    }
    let rest = rest.strip_prefix("resource ")?;
    let (resource, used) = quoted(rest)?;
    let rest = &rest[used..];
    let group = rest
        .strip_prefix(" in API group ")
        .and_then(|r| quoted(r).map(|(g, _)| g))
        .unwrap_or_default();
    Some(format!("{verb} {group}/{resource}"))
}

impl Drop for Envtest {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::denied_permission;

    #[test]
    fn denial_messages_name_the_permission() {
        assert_eq!(
            denied_permission(r#"memcacheds.cache.example.com is forbidden: User "system:serviceaccount:a:b" cannot list resource "memcacheds" in API group "cache.example.com" at the cluster scope"#).as_deref(),
            Some("list cache.example.com/memcacheds")
        );
        assert_eq!(
            denied_permission(r#"forbidden: User "u" cannot get path "/metrics""#).as_deref(),
            Some("get /metrics")
        );
        assert_eq!(
            denied_permission(r#"deployments.apps "mc" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: User "u" cannot update resource "memcacheds/finalizers" in API group "cache.example.com" in the namespace "e2e""#).as_deref(),
            Some("update cache.example.com/memcacheds/finalizers")
        );
        assert_eq!(
            denied_permission(r#"configmaps "x" is forbidden: User "u" cannot patch resource "configmaps" in API group "" in the namespace "db-tenants""#).as_deref(),
            Some("patch /configmaps")
        );
        assert_eq!(denied_permission("something else"), None);
    }
}
