//! Serves admission handlers and conversions over HTTPS, as the API server calls them (feature
//! `webhook-server`).
//!
//! Each [`Route`] is a path and a handler ([`registered`](WebhookServerBuilder::registered) takes
//! those of every `#[kube_markers::webhook]` on an `async fn`); the server answers `POST` requests with
//! `Content-Type: application/json` on those paths with the handler's `AdmissionReview`, a
//! body that is not a review with 400 and the reason, any other path with 404. A dry-run
//! request to a webhook whose `sideEffects` are `Some` or `Unknown` is denied without calling
//! its handler. The certificate and key are PEM files (by default where cert-manager's Secret
//! is mounted for controller-runtime, [`DEFAULT_CERT_DIR`]`/tls.{crt,key}`), read again every
//! [`reload_interval`](WebhookServerBuilder::reload_interval): a rotated certificate is served
//! to new connections without restarting the listener. Shutdown stops accepting, lets the
//! requests under way finish, and closes idle connections.
//!
//! The conversions registered by `#[kube_markers::conversion]` are served at `/convert`
//! ([`Route::conversions`], added by [`registered`](WebhookServerBuilder::registered)): the
//! API server's `ConversionReview`s are answered as [`Conversions`](crate::conversion::Conversions)
//! describes, with the same limits and deadlines as the admission routes; a body that is not a
//! `ConversionReview` gets 400, and a conversion that fails or panics fails its review.
//!
//! Every route gets the same protection, whatever review it takes: a header deadline from a
//! request's first byte, a whole-request deadline for its body and handler, an idle timeout
//! longer than the API server's connection pool keeps connections, a connection cap, a body
//! read into one buffer under the body limit, and a decode limit checked before the handler
//! decodes (see the [builder](WebhookServerBuilder)'s methods for each default).
//!
//! ```
//! use kube::core::DynamicObject;
//! use kube::core::admission::{AdmissionRequest, AdmissionResponse};
//! use kube_markers::webhook::server::{Route, WebhookServer};
//!
//! async fn validate(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
//!     let response = AdmissionResponse::from(&request);
//!     match request.object.as_ref().and_then(|o| o.metadata.name.as_deref()) {
//!         Some(name) if name.starts_with("tmp-") => response.deny("tmp- names are reserved"),
//!         _ => response,
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let cert = rcgen::generate_simple_self_signed(["localhost".to_string()])?;
//! # std::fs::write(dir.path().join("tls.crt"), cert.cert.pem())?;
//! # std::fs::write(dir.path().join("tls.key"), cert.signing_key.serialize_pem())?;
//! let server = WebhookServer::builder()
//!     .route(Route::typed("/validate-names", validate))
//!     .cert_dir(dir.path()) // default: /tmp/k8s-webhook-server/serving-certs
//!     .bind(([127, 0, 0, 1], 0).into()) // default: 0.0.0.0:9443
//!     .build()?;
//! // `server.run(shutdown_signal).await` serves until the signal; `start` serves in the
//! // background:
//! let running = server.start().await?;
//! assert_ne!(running.local_addr().port(), 0);
//! running.shutdown().await;
//! # Ok(()) }
//! ```

mod body;
mod cap;
mod connection;
#[cfg(test)]
mod convert_fuzz;
mod envelope;
mod process;
mod routes;
#[cfg(test)]
mod tests;
mod tls;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;

use cap::{Accepted, accept_capped};
use connection::{Limits, TrackedBody};
pub use routes::Route;
use routes::RouteTable;
use tls::{CertFiles, ReloadingCert};

/// Where controller-runtime expects cert-manager's serving certificate, `tls.crt` and
/// `tls.key`: the default of [`WebhookServerBuilder::cert_dir`].
pub const DEFAULT_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";

/// The largest read buffer of a connection, and the largest request head.
const MAX_READ_BUFFER: usize = 64 << 10;

/// The default address: every interface, controller-runtime's webhook port.
pub const DEFAULT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 9443);

/// Why the server cannot start.
///
/// Its message names the cause (`cannot listen on 0.0.0.0:9443 for the webhooks: Address
/// already in use (os error 98)`), and its `Debug` is that message, so that a `main`
/// returning `Result<(), Box<dyn Error>>` prints it as `Error: cannot listen on ...` rather
/// than the variant's fields.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// No handler to serve.
    #[error(
        "no webhook handlers to serve (is every crate with #[kube_markers::webhook] or #[kube_markers::conversion] linked?)"
    )]
    NoRoutes,
    /// [`WebhookServerBuilder::patch_conversion_ca_bundle`] without conversions to serve.
    #[error(
        "patch_conversion_ca_bundle: the server serves no conversions, so no CRD's caBundle to keep (is every crate with #[kube_markers::conversion] linked, and `registered()` called?)"
    )]
    NoConversionCrds,
    /// A registered conversion that cannot be served.
    #[error("#[kube_markers::conversion] {0}")]
    Conversion(#[source] Box<crate::conversion::ConversionSetupError>),
    /// Two handlers for one path.
    #[error("two webhooks serve the path {path}: {first} and {second}")]
    DuplicatePath {
        /// The path.
        path: String,
        /// The first handler's origin.
        first: String,
        /// The second handler's origin.
        second: String,
    },
    /// A path that is not an absolute URL path.
    #[error("the webhook path {path:?} of {origin} is not a URL path starting with '/'")]
    InvalidPath {
        /// The path.
        path: String,
        /// The handler's origin.
        origin: String,
    },
    /// A certificate or key file that cannot be read or used.
    #[error("{}: {problem}", path.display())]
    Certificate {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        problem: CertificateProblem,
    },
    /// The TLS library offers no protocol version with the crypto provider.
    #[error("no TLS protocol version: {0}")]
    Tls(#[source] BoxError),
    /// The address cannot be listened on.
    #[error("cannot listen on {addr} for the webhooks: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
}

/// An error of the TLS library, whose types are not part of this API.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What is wrong with a certificate or key file (its `Debug` is its message, as
/// [`ServerError`]'s).
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum CertificateProblem {
    /// The file cannot be read.
    #[error("cannot be read: {0}")]
    Unreadable(#[source] std::io::Error),
    /// The certificate file is not PEM.
    #[error("is not a PEM certificate chain: {0}")]
    NotPem(#[source] BoxError),
    /// The certificate file holds no certificate.
    #[error("holds no PEM certificate")]
    NoCertificate,
    /// The key file holds no private key.
    #[error("holds no PEM private key: {0}")]
    NoPrivateKey(#[source] BoxError),
    /// The key does not fit the certificate, or is of a kind the TLS library cannot use.
    #[error("is not a usable key for the certificate {}: {error}", certificate.display())]
    UnusableKey {
        /// The certificate file.
        certificate: PathBuf,
        /// The TLS library's reason.
        #[source]
        error: BoxError,
    },
}

/// Every reason [`WebhookServerBuilder::build`] refused the configuration, one a line; its
/// `Debug` is its message, as [`ServerError`]'s.
pub struct BuildError(Vec<ServerError>);

/// The message, which already names each cause: what a `main` returning the error prints.
macro_rules! debug_is_display {
    ($($error:ty),*) => {$(
        impl std::fmt::Debug for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    )*};
}
debug_is_display!(ServerError, CertificateProblem, BuildError);

impl BuildError {
    /// The reasons, in the order the routes and files were given.
    pub fn errors(&self) -> &[ServerError] {
        &self.0
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}

/// The server's configuration, from [`WebhookServer::builder`].
#[derive(Debug)]
pub struct WebhookServerBuilder {
    routes: Vec<Route>,
    /// Whether [`registered`](Self::registered) asked for the registered conversions too.
    registered_conversions: bool,
    cert: PathBuf,
    key: PathBuf,
    addr: SocketAddr,
    reload_interval: Duration,
    shutdown_timeout: Duration,
    body_limit: usize,
    decode_limit: usize,
    header_timeout: Duration,
    request_timeout: Duration,
    idle_timeout: Duration,
    max_connections: usize,
    #[cfg(feature = "conversion-ca-bundle")]
    ca_bundle: Option<CaBundleRequest>,
}

/// What [`WebhookServerBuilder::patch_conversion_ca_bundle`] asked for.
#[cfg(feature = "conversion-ca-bundle")]
#[derive(Clone)]
struct CaBundleRequest {
    client: kube::Client,
    ca_file: Option<PathBuf>,
    resync: Duration,
}

#[cfg(feature = "conversion-ca-bundle")]
impl std::fmt::Debug for CaBundleRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaBundleRequest")
            .field("ca_file", &self.ca_file)
            .field("resync", &self.resync)
            .finish_non_exhaustive()
    }
}

impl Default for WebhookServerBuilder {
    fn default() -> Self {
        let dir = Path::new(DEFAULT_CERT_DIR);
        WebhookServerBuilder {
            routes: Vec::new(),
            registered_conversions: false,
            cert: dir.join("tls.crt"),
            key: dir.join("tls.key"),
            addr: DEFAULT_ADDR,
            reload_interval: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(30),
            // The API server's own limit on a request body is 3 MiB; a review carries the
            // object twice (object and oldObject) plus its envelope.
            body_limit: 8 << 20,
            // Eight times the body limit: an update (object and old object, 1.8 MB each, of
            // small entries) decodes to about 42 MiB; a 2 MB array of small numbers to 64.
            decode_limit: 64 << 20,
            // Go's servers (controller-runtime) allow 32 s; a TLS client that is slower is
            // not an API server.
            header_timeout: Duration::from_secs(10),
            // The API server's webhook timeout is 10 s by default, 30 s at most.
            request_timeout: Duration::from_secs(30),
            // Longer than the API server keeps idle connections (90 s, Go's
            // `IdleConnTimeout`), so that it is always the client that closes them: a POST
            // that meets the server's close is not retried, and fails the admission.
            idle_timeout: Duration::from_secs(120),
            max_connections: 1024,
            #[cfg(feature = "conversion-ca-bundle")]
            ca_bundle: None,
        }
    }
}

impl WebhookServerBuilder {
    /// Serves one more handler.
    pub fn route(mut self, route: Route) -> Self {
        self.routes.push(route);
        self
    }

    /// Serves every handler registered by `#[kube_markers::webhook]` in the linked crates
    /// (see [`Route::from_entry`]); two of them on one path are an error of
    /// [`build`](Self::build) naming both attributes. When the linked crates register
    /// conversions (`#[kube_markers::conversion]`), serves them at `/convert` too
    /// ([`Route::conversions`]); conversions that cannot be served together (two hubs of a
    /// kind, two conversions of a version, ...) are errors of [`build`](Self::build) naming
    /// the attributes.
    pub fn registered(mut self) -> Self {
        self.registered_conversions = true;
        self.routes(
            kube_markers_registry::webhook_entries()
                .into_iter()
                .filter_map(Route::from_entry),
        )
    }

    /// Serves more handlers.
    pub fn routes(mut self, routes: impl IntoIterator<Item = Route>) -> Self {
        self.routes.extend(routes);
        self
    }

    /// `tls.crt` and `tls.key` in `dir`, as a `kubernetes.io/tls` Secret is mounted.
    pub fn cert_dir(self, dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref();
        self.cert_files(dir.join("tls.crt"), dir.join("tls.key"))
    }

    /// The certificate chain (PEM, leaf first) and its private key (PEM).
    pub fn cert_files(mut self, cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        self.cert = cert.into();
        self.key = key.into();
        self
    }

    /// The address to listen on ([`DEFAULT_ADDR`] by default; port 0 picks a free one).
    pub fn bind(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// How often the certificate files are read again for a rotation (10 s by default).
    pub fn reload_interval(mut self, interval: Duration) -> Self {
        self.reload_interval = interval;
        self
    }

    /// How long shutdown waits for requests under way (30 s by default).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The largest request body accepted (8 MiB by default); larger ones get 413.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// The most bytes decoding one request's JSON may allocate (64 MiB by default), as the
    /// server estimates it for a [`DynamicObject`](kube::core::DynamicObject) handler, which
    /// decodes every field into `serde_json::Value`s; a body over it gets 413 before any
    /// handler sees it. Typed handlers skip the fields their type does not have, and usually
    /// take less.
    pub fn decode_limit(mut self, bytes: usize) -> Self {
        self.decode_limit = bytes;
        self
    }

    /// How long a client may take to send a request's headers, from its first byte (or from
    /// the end of the TLS handshake), and to finish the handshake; and how long a connection
    /// may stall reading an answer (10 s by default).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long one request may take from its first byte to its answer: headers, body and
    /// handler (30 s by default, the API server's longest webhook timeout). A body not read
    /// by then gets 408, a handler not done 503 (and is cancelled).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may wait for its next request (120 s by default).
    /// Keep it longer than the API server keeps idle connections (90 s): it does not retry
    /// a request whose connection the server closed under it.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How many connections are open at once (1,024 by default, fewer when the open-file
    /// limit is lower). At the cap a new connection takes the place of the one longest at a
    /// request it has not finished sending (a slow client's), else of the one idle longest;
    /// connections whose handler runs are kept, and a new one waits for the first of them to
    /// answer. Reaching the cap is logged once, until the open connections fall to three
    /// quarters of it. The server raises the soft open-file limit to the hard one when it
    /// starts, as Go programs do.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Writes the CA of the serving certificate into
    /// `spec.conversion.webhook.clientConfig.caBundle` of each CRD whose conversions the
    /// server serves (feature `conversion-ca-bundle`), for clusters without cert-manager's CA
    /// injection: at start, when the certificate rotates, and every five minutes (a CRD
    /// applied again may have lost it). It only reads and patches those CRDs, by name (the
    /// role the generator writes allows exactly that). Failures are logged and retried; the
    /// server serves meanwhile.
    ///
    /// The CA is `ca.crt` beside the certificate file, as a `kubernetes.io/tls` Secret is
    /// mounted, or the certificate file itself when there is no `ca.crt` (a self-signed
    /// certificate); [`conversion_ca_file`](Self::conversion_ca_file) names another file.
    /// Leave it off where cert-manager's cainjector fills the bundle: both would write it.
    #[cfg(feature = "conversion-ca-bundle")]
    #[cfg_attr(docsrs, doc(cfg(feature = "conversion-ca-bundle")))]
    pub fn patch_conversion_ca_bundle(mut self, client: kube::Client) -> Self {
        self.ca_bundle = Some(CaBundleRequest {
            client,
            ca_file: None,
            resync: Duration::from_secs(300),
        });
        self
    }

    /// The PEM file whose certificates [`patch_conversion_ca_bundle`](Self::patch_conversion_ca_bundle)
    /// writes into the CRDs (by default `ca.crt` beside the certificate, or the certificate).
    #[cfg(feature = "conversion-ca-bundle")]
    #[cfg_attr(docsrs, doc(cfg(feature = "conversion-ca-bundle")))]
    pub fn conversion_ca_file(mut self, file: impl Into<PathBuf>) -> Self {
        if let Some(request) = &mut self.ca_bundle {
            request.ca_file = Some(file.into());
        }
        self
    }

    /// How often [`patch_conversion_ca_bundle`](Self::patch_conversion_ca_bundle) checks the
    /// CRDs' bundles besides at start and on rotation (5 minutes by default).
    #[cfg(feature = "conversion-ca-bundle")]
    #[cfg_attr(docsrs, doc(cfg(feature = "conversion-ca-bundle")))]
    pub fn conversion_ca_resync(mut self, interval: Duration) -> Self {
        if let Some(request) = &mut self.ca_bundle {
            request.resync = interval.max(Duration::from_secs(1));
        }
        self
    }

    /// Checks the routes (at least one, paths absolute and distinct) and loads the
    /// certificate; every problem is reported at once.
    pub fn build(mut self) -> Result<WebhookServer, BuildError> {
        let mut errors = Vec::new();
        if self.registered_conversions {
            match crate::conversion::Conversions::registered() {
                Ok(conversions) if conversions.is_empty() => {}
                Ok(conversions) => self.routes.push(
                    Route::conversions(conversions)
                        .origin("the registered #[kube_markers::conversion]s"),
                ),
                Err(problems) => errors.extend(
                    problems
                        .into_iter()
                        .map(|p| ServerError::Conversion(Box::new(p))),
                ),
            }
        }
        #[cfg(feature = "conversion-ca-bundle")]
        let conversion_crds: Vec<String> = self
            .routes
            .iter()
            .flat_map(|r| r.conversion_crds.iter().cloned())
            .collect();
        let table = RouteTable::new(
            self.routes,
            self.body_limit,
            self.decode_limit,
            self.request_timeout,
        )
        .map_err(|e| errors.extend(e))
        .ok();
        let provider = Arc::new(ring::default_provider());
        #[cfg(feature = "conversion-ca-bundle")]
        let ca_bundle = match self.ca_bundle {
            Some(_) if conversion_crds.is_empty() => {
                errors.push(ServerError::NoConversionCrds);
                None
            }
            Some(request) => Some((
                crate::conversion::ca_bundle::CaBundlePatcher::new(
                    request.client,
                    request.ca_file,
                    &self.cert,
                    conversion_crds,
                ),
                request.resync,
            )),
            None => None,
        };
        let files = CertFiles {
            cert: self.cert,
            key: self.key,
        };
        let cert = ReloadingCert::load(files, provider.clone())
            .map_err(|e| errors.push(e))
            .ok();
        let (Some(table), Some(cert)) = (table, cert) else {
            return Err(BuildError(errors));
        };
        let cert = Arc::new(cert);
        let mut tls = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| BuildError(vec![ServerError::Tls(e.into())]))?
            .with_no_client_auth()
            .with_cert_resolver(cert.clone());
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(WebhookServer {
            table: Arc::new(table),
            cert,
            acceptor: TlsAcceptor::from(Arc::new(tls)),
            addr: self.addr,
            reload_interval: self.reload_interval,
            shutdown_timeout: self.shutdown_timeout,
            #[cfg(feature = "conversion-ca-bundle")]
            ca_bundle,
            limits: Limits {
                handshake_timeout: self.header_timeout,
                header_timeout: self.header_timeout,
                request_timeout: self.request_timeout,
                idle_timeout: self.idle_timeout,
                max_connections: self.max_connections,
            },
        })
    }
}

/// A configured server, ready to listen.
pub struct WebhookServer {
    table: Arc<RouteTable>,
    cert: Arc<ReloadingCert>,
    acceptor: TlsAcceptor,
    addr: SocketAddr,
    reload_interval: Duration,
    shutdown_timeout: Duration,
    limits: Limits,
    /// The CRDs whose `caBundle` the server keeps, and how often it checks them.
    #[cfg(feature = "conversion-ca-bundle")]
    ca_bundle: Option<(crate::conversion::ca_bundle::CaBundlePatcher, Duration)>,
}

impl std::fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookServer")
            .field("paths", &self.table.paths().collect::<Vec<_>>())
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl WebhookServer {
    /// A builder with the defaults: cert-manager's mount, `0.0.0.0:9443`, no routes.
    pub fn builder() -> WebhookServerBuilder {
        WebhookServerBuilder::default()
    }

    /// The paths served, sorted.
    pub fn paths(&self) -> Vec<&str> {
        self.table.paths().collect()
    }

    /// Listens and serves in background tasks of the current tokio runtime until
    /// [`RunningServer::shutdown`].
    pub async fn start(self) -> Result<RunningServer, ServerError> {
        let listener = TcpListener::bind(self.addr)
            .await
            .map_err(|source| ServerError::Bind {
                addr: self.addr,
                source,
            })?;
        let local_addr = listener.local_addr().map_err(|source| ServerError::Bind {
            addr: self.addr,
            source,
        })?;
        let mut limits = self.limits;
        limits.max_connections = process::connection_cap(limits.max_connections);
        process::keep_allocator_thresholds();
        let (stop, stopped) = watch::channel(false);
        let (rotated, _on_rotation) = watch::channel(());
        #[cfg(feature = "conversion-ca-bundle")]
        if let Some((patcher, resync)) = self.ca_bundle {
            tracing::info!(crds = ?patcher.crds(), "keeping the conversion webhook caBundle of the CRDs");
            tokio::spawn(crate::conversion::ca_bundle::keep(
                patcher,
                resync,
                rotated.subscribe(),
                stopped.clone(),
            ));
        }
        tokio::spawn(reload_certificate(
            self.cert.clone(),
            self.reload_interval,
            rotated,
            stopped.clone(),
        ));
        let paths: Vec<String> = self.table.paths().map(str::to_string).collect();
        let serves = crate::conversion::serving(&self.table.paths().collect::<Vec<_>>());
        let serving = tokio::spawn(accept(
            listener,
            self.acceptor,
            self.table,
            limits,
            stopped,
            self.shutdown_timeout,
        ));
        tracing::info!(addr = %local_addr, paths = ?paths, "serving {serves}");
        Ok(RunningServer {
            local_addr,
            stop,
            serving,
        })
    }

    /// Listens and serves until `shutdown` completes, then shuts down gracefully.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), ServerError> {
        let running = self.start().await?;
        shutdown.await;
        running.shutdown().await;
        Ok(())
    }
}

/// A server listening in the background.
#[derive(Debug)]
pub struct RunningServer {
    local_addr: SocketAddr,
    stop: watch::Sender<bool>,
    serving: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// The address it listens on (the port picked, for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting connections and waits (up to the shutdown timeout) for the requests
    /// under way; idle connections are closed.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.serving.await;
    }
}

async fn reload_certificate(
    cert: Arc<ReloadingCert>,
    interval: Duration,
    rotated: watch::Sender<()>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = ticks.tick() => match cert.reload().await {
                Ok(true) => {
                    tracing::info!("serving the rotated webhook certificate");
                    rotated.send_replace(());
                }
                Ok(false) => {}
                Err(e) => tracing::warn!("webhook certificate not reloaded, the previous one stays: {e}"),
            },
            _ = stopped.changed() => return,
        }
    }
}

async fn accept(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    table: Arc<RouteTable>,
    limits: Limits,
    mut stopped: watch::Receiver<bool>,
    shutdown_timeout: Duration,
) {
    let graceful = GracefulShutdown::new();
    accept_capped(&listener, limits, &mut stopped, |accepted| {
        connection(
            accepted,
            acceptor.clone(),
            table.clone(),
            graceful.watcher(),
        )
    })
    .await;
    drop(listener);
    if tokio::time::timeout(shutdown_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("webhook connections still open after {shutdown_timeout:?}: closed");
    }
}

async fn connection(
    accepted: Accepted,
    acceptor: TlsAcceptor,
    table: Arc<RouteTable>,
    watcher: Watcher,
) {
    let Accepted {
        stream,
        activity,
        peer,
        ..
    } = accepted;
    let tls = match connection::handshake(&activity, acceptor.accept(stream)).await {
        Ok(Ok(tls)) => tls,
        Ok(Err(e)) => {
            tracing::debug!(%peer, "TLS handshake failed: {e}");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "TLS handshake timed out");
            return;
        }
    };
    let service_activity = activity.clone();
    let service = service_fn(move |request| {
        let table = table.clone();
        let activity = service_activity.clone();
        async move {
            let deadline = activity.serve();
            let length = request.headers().get(hyper::header::CONTENT_LENGTH);
            if length
                .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
                .is_some_and(|length| length >= process::LARGE_BODY)
            {
                activity.saw_large_request();
            }
            let request = request.map(|body| TrackedBody::new(body, activity.clone()));
            let response = table.respond(request, deadline).await;
            activity.served();
            Ok::<_, Infallible>(response)
        }
    });
    // hyper's header timeout would also close idle keep-alive connections (it starts when
    // the connection waits for a request): `with_deadlines` keeps both deadlines instead.
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        // hyper grows a connection's read buffer to its maximum (about 400 KiB by default)
        // while a large body streams in, and keeps it: 25 MiB for 64 pooled connections.
        // 64 KiB reads four TLS records at a time.
        .max_buf_size(MAX_READ_BUFFER)
        // A larger head gets 431 (Go's default limit is 1 MB; the API server sends a few
        // hundred bytes).
        .max_header_size(MAX_READ_BUFFER)
        .serve_connection(TokioIo::new(tls), service);
    match connection::with_deadlines(&activity, watcher.watch(connection)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(%peer, "webhook connection ended: {e}"),
        Err(why) => tracing::debug!(%peer, "webhook connection closed: {why}"),
    }
    if activity.had_large_request() {
        // Its buffers are freed now: hand them back too.
        drop(process::LargeRequest::begin());
    }
}
