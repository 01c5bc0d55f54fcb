//! The CA bundle of the CRDs that convert, without cert-manager (feature
//! `conversion-ca-bundle`): the webhook server writes the CA that signed its certificate into
//! `spec.conversion.webhook.clientConfig.caBundle` of each CRD whose conversions it serves, at
//! start, as soon as a watch shows the CRD created or changed (whatever the order the operator
//! and the CRD are applied in), when the certificate rotates, and every resync interval. It
//! reads, watches and patches those CRDs by name only: `get`, `watch` and `patch` on
//! `customresourcedefinitions` with their `resourceNames` (a watch with the field selector
//! `metadata.name=<crd>` is authorized by name), the rule the generator writes.
//!
//! The CA is `ca.crt` beside the certificate (a `kubernetes.io/tls` Secret's), or the
//! certificate file itself when there is no `ca.crt` (a self-signed certificate is its own CA).

use std::path::{Path, PathBuf};

use std::collections::BTreeSet;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::ByteString;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams, WatchEvent, WatchParams};
use tokio::sync::{mpsc, watch};

/// The field manager of the patches.
pub const FIELD_MANAGER: &str = "kube-markers-webhook-server";

/// Where the CA comes from, and which CRDs get it.
#[derive(Clone)]
pub(crate) struct CaBundlePatcher {
    client: kube::Client,
    /// The CA file, or the certificate file when there is no CA file.
    ca_candidates: Vec<PathBuf>,
    crds: Vec<String>,
}

impl std::fmt::Debug for CaBundlePatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaBundlePatcher")
            .field("ca_candidates", &self.ca_candidates)
            .field("crds", &self.crds)
            .finish_non_exhaustive()
    }
}

/// Whether one CRD's bundle was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Patched {
    /// It held another bundle, or none: it holds the CA now.
    Written,
    /// It held the CA already.
    Unchanged,
    /// It is not applied yet: the watch says when it is.
    Absent,
}

impl CaBundlePatcher {
    /// Patches `crds` with the CA `ca_file` holds, or if there is none, `cert_file`.
    pub(crate) fn new(
        client: kube::Client,
        ca_file: Option<PathBuf>,
        cert_file: &Path,
        crds: Vec<String>,
    ) -> Self {
        let ca_candidates = match ca_file {
            Some(ca) => vec![ca],
            None => vec![cert_file.with_file_name("ca.crt"), cert_file.to_path_buf()],
        };
        CaBundlePatcher {
            client,
            ca_candidates,
            crds,
        }
    }

    pub(crate) fn crds(&self) -> &[String] {
        &self.crds
    }

    /// The CA bundle: the PEM certificates of the first candidate file that exists.
    async fn bundle(&self) -> Result<Vec<u8>, String> {
        let last = self.ca_candidates.len() - 1;
        for (i, file) in self.ca_candidates.iter().enumerate() {
            match tokio::fs::read(file).await {
                Ok(pem) => return certificates_only(&pem, file),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && i < last => continue,
                Err(e) => return Err(format!("{}: cannot be read: {e}", file.display())),
            }
        }
        unreachable!("the last candidate returns")
    }

    /// Writes the CA into each of `crds`; each CRD's outcome, in order.
    pub(crate) async fn patch_some<'a>(
        &self,
        crds: impl IntoIterator<Item = &'a String>,
    ) -> Vec<(String, Result<Patched, String>)> {
        let bundle = self.bundle().await;
        let mut outcomes = Vec::new();
        for crd in crds {
            let outcome = match &bundle {
                Ok(bundle) => self.patch(crd, bundle).await,
                Err(e) => Err(e.clone()),
            };
            outcomes.push((crd.clone(), outcome));
        }
        outcomes
    }

    async fn patch(&self, name: &str, bundle: &[u8]) -> Result<Patched, String> {
        let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let crd = match api.get(name).await {
            Ok(crd) => crd,
            Err(kube::Error::Api(e)) if e.code == 404 => return Ok(Patched::Absent),
            Err(e) => return Err(format!("CRD {name} cannot be read: {e}")),
        };
        let conversion = crd.spec.conversion.unwrap_or_default();
        if conversion.strategy != "Webhook" {
            return Err(format!(
                "CRD {name} has spec.conversion.strategy {:?}, not Webhook: apply the CRD as \
                 generated (its conversions make it Webhook); its caBundle is left alone",
                conversion.strategy
            ));
        }
        let current = conversion
            .webhook
            .and_then(|w| w.client_config)
            .and_then(|c| c.ca_bundle);
        if current.as_ref().is_some_and(|c| c.0 == bundle) {
            return Ok(Patched::Unchanged);
        }
        let patch = serde_json::json!({
            "spec": {"conversion": {"webhook": {"clientConfig": {
                "caBundle": ByteString(bundle.to_vec()),
            }}}}
        });
        let params = PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..PatchParams::default()
        };
        api.patch(name, &params, &Patch::Merge(&patch))
            .await
            .map_err(|e| format!("CRD {name}: its caBundle cannot be patched: {e}"))?;
        Ok(Patched::Written)
    }
}

/// Keeps the CRDs' bundles: patches them now, then each CRD again as soon as its watch shows
/// it created or changed, all of them when `rotated` signals a new certificate and every
/// `resync`, until `stopped`. A CRD whose patch failed (no permission, not `Webhook`) is
/// retried after 1, 2, 4 ... s, up to `resync`. Each write and each failure is logged.
pub(crate) async fn keep(
    patcher: CaBundlePatcher,
    resync: Duration,
    mut rotated: watch::Receiver<()>,
    mut stopped: watch::Receiver<bool>,
) {
    let (changed, mut changes) = mpsc::unbounded_channel::<String>();
    for crd in patcher.crds() {
        tokio::spawn(watch_crd(
            patcher.client.clone(),
            crd.clone(),
            changed.clone(),
            stopped.clone(),
        ));
    }
    let all: BTreeSet<String> = patcher.crds().iter().cloned().collect();
    let mut due = all.clone();
    let mut failed: BTreeSet<String> = BTreeSet::new();
    let mut absent: BTreeSet<String> = BTreeSet::new();
    let mut retry = Duration::from_secs(1);
    let mut next = tokio::time::Instant::now();
    loop {
        if !due.is_empty() {
            for (crd, outcome) in patcher.patch_some(&due).await {
                failed.remove(&crd);
                let was_absent = absent.remove(&crd);
                match outcome {
                    Ok(Patched::Written) => {
                        tracing::info!(%crd, "conversion webhook caBundle written");
                    }
                    Ok(Patched::Unchanged) => {}
                    Ok(Patched::Absent) => {
                        if !was_absent {
                            tracing::info!(
                                %crd,
                                "CRD not applied yet: its conversion webhook caBundle is written \
                                 as soon as it is"
                            );
                        }
                        absent.insert(crd);
                    }
                    Err(e) => {
                        tracing::warn!(%crd, "conversion webhook caBundle not written, retrying: {e}");
                        failed.insert(crd);
                    }
                }
            }
            let now = tokio::time::Instant::now();
            next = if failed.is_empty() {
                retry = Duration::from_secs(1);
                now + resync
            } else {
                let wait = retry;
                retry = (retry * 2).min(resync);
                now + wait
            };
            due.clear();
        }
        tokio::select! {
            _ = tokio::time::sleep_until(next) => {
                due = if failed.is_empty() { all.clone() } else { failed.clone() };
            }
            changed = rotated.changed() => {
                if changed.is_err() { return }
                due = all.clone();
            }
            Some(crd) = changes.recv() => {
                due.insert(crd);
                while let Ok(crd) = changes.try_recv() {
                    due.insert(crd);
                }
            }
            _ = stopped.changed() => return,
        }
    }
}

/// Watches the CRD `name` (field selector `metadata.name`, which RBAC authorizes by name)
/// and sends its name on every event: created, changed (applied again, its bundle dropped)
/// or deleted. The watch starts at resourceVersion 0, which begins with the CRD as it is,
/// and starts over when it ends; a refused watch, or one that ends at once, is retried after
/// 1, 2, 4 ... 60 s.
async fn watch_crd(
    client: kube::Client,
    name: String,
    changed: mpsc::UnboundedSender<String>,
    mut stopped: watch::Receiver<bool>,
) {
    let api: Api<CustomResourceDefinition> = Api::all(client);
    let params = WatchParams::default()
        .fields(&format!("metadata.name={name}"))
        .timeout(290);
    let mut retry = Duration::from_secs(1);
    loop {
        let events = tokio::select! {
            events = api.watch(&params, "0") => events,
            _ = stopped.changed() => return,
        };
        let started = tokio::time::Instant::now();
        match events {
            Ok(events) => {
                let mut events = std::pin::pin!(events);
                loop {
                    let event = tokio::select! {
                        event = events.next() => event,
                        _ = stopped.changed() => return,
                    };
                    match event {
                        Some(Ok(
                            WatchEvent::Added(_) | WatchEvent::Modified(_) | WatchEvent::Deleted(_),
                        )) => {
                            if changed.send(name.clone()).is_err() {
                                return;
                            }
                        }
                        Some(Ok(WatchEvent::Bookmark(_))) => {}
                        Some(Ok(WatchEvent::Error(e))) => {
                            tracing::debug!(crd = %name, "the CRD's watch ended: {e}");
                            break;
                        }
                        Some(Err(e)) => {
                            tracing::debug!(crd = %name, "the CRD's watch ended: {e}");
                            break;
                        }
                        None => break,
                    }
                }
                // Ended by the server's timeout: start over at once; ended at once (an error
                // on every attempt): back off.
                if started.elapsed() < Duration::from_secs(5) {
                    if !continue_after(retry, &mut stopped).await {
                        return;
                    }
                    retry = (retry * 2).min(Duration::from_secs(60));
                } else {
                    retry = Duration::from_secs(1);
                }
            }
            Err(e) => {
                tracing::warn!(
                    crd = %name,
                    "the CRD cannot be watched (its caBundle is then checked every resync \
                     interval only; the role needs `watch` on it): {e}"
                );
                if !continue_after(retry, &mut stopped).await {
                    return;
                }
                retry = (retry * 2).min(Duration::from_secs(60));
            }
        }
        if *stopped.borrow() {
            return;
        }
    }
}

/// Waits `wait`; false if the server stopped meanwhile.
async fn continue_after(wait: Duration, stopped: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(wait) => true,
        _ = stopped.changed() => false,
    }
}

/// The `CERTIFICATE` blocks of a PEM file, re-encoded: a key in the same file stays out of the
/// CRD, and a file with no certificate is an error naming it.
fn certificates_only(pem: &[u8], file: &Path) -> Result<Vec<u8>, String> {
    use tokio_rustls::rustls::pki_types::CertificateDer;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    let mut out = Vec::new();
    for cert in CertificateDer::pem_slice_iter(pem) {
        let cert = cert.map_err(|e| format!("{}: is not PEM: {e}", file.display()))?;
        out.extend_from_slice(b"-----BEGIN CERTIFICATE-----\n");
        let encoded = serde_json::to_value(ByteString(cert.to_vec()))
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        for line in encoded.as_bytes().chunks(64) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        out.extend_from_slice(b"-----END CERTIFICATE-----\n");
    }
    if out.is_empty() {
        return Err(format!("{}: holds no PEM certificate", file.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_certificates_of_a_pem_file_go_into_the_bundle() {
        let cert = rcgen::generate_simple_self_signed(["localhost".to_string()]).unwrap();
        let pem = format!("{}{}", cert.signing_key.serialize_pem(), cert.cert.pem());
        let bundle = certificates_only(pem.as_bytes(), Path::new("tls.crt")).unwrap();
        assert_eq!(
            String::from_utf8(bundle).unwrap(),
            cert.cert.pem().replace("\r\n", "\n")
        );
        let err = certificates_only(
            cert.signing_key.serialize_pem().as_bytes(),
            Path::new("k.pem"),
        )
        .unwrap_err();
        assert_eq!(err, "k.pem: holds no PEM certificate");
    }
}
