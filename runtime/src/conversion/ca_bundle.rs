//! The CA bundle of the CRDs that convert, without cert-manager (feature
//! `conversion-ca-bundle`): the webhook server writes the CA that signed its certificate into
//! `spec.conversion.webhook.clientConfig.caBundle` of each CRD whose conversions it serves, at
//! start, when the certificate rotates, and every resync interval (a re-applied CRD may have
//! lost it). It reads and patches those CRDs by name only: `get` and `patch` on
//! `customresourcedefinitions` with their `resourceNames`, the rule the generator writes.
//!
//! The CA is `ca.crt` beside the certificate (a `kubernetes.io/tls` Secret's), or the
//! certificate file itself when there is no `ca.crt` (a self-signed certificate is its own CA).

use std::path::{Path, PathBuf};

use k8s_openapi::ByteString;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};

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

    /// Writes the CA into every CRD; each CRD's outcome, in order.
    pub(crate) async fn patch_all(&self) -> Vec<(String, Result<Patched, String>)> {
        let bundle = match self.bundle().await {
            Ok(bundle) => bundle,
            Err(e) => {
                return self
                    .crds
                    .iter()
                    .map(|c| (c.clone(), Err(e.clone())))
                    .collect();
            }
        };
        let mut outcomes = Vec::new();
        for crd in &self.crds {
            outcomes.push((crd.clone(), self.patch(crd, &bundle).await));
        }
        outcomes
    }

    async fn patch(&self, name: &str, bundle: &[u8]) -> Result<Patched, String> {
        let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let crd = api
            .get(name)
            .await
            .map_err(|e| format!("CRD {name} cannot be read: {e}"))?;
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

/// Keeps the CRDs' bundles: patches them now (retrying every few seconds, up to `resync`, until
/// every CRD has it), then again when `rotated` signals a new certificate and every `resync`,
/// until `stopped`. Each write and each failure is logged.
pub(crate) async fn keep(
    patcher: CaBundlePatcher,
    resync: std::time::Duration,
    mut rotated: tokio::sync::watch::Receiver<()>,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) {
    use std::time::Duration;
    let mut retry = Duration::from_secs(1);
    loop {
        let mut failed = false;
        for (crd, outcome) in patcher.patch_all().await {
            match outcome {
                Ok(Patched::Written) => tracing::info!(%crd, "conversion webhook caBundle written"),
                Ok(Patched::Unchanged) => {}
                Err(e) => {
                    failed = true;
                    tracing::warn!(%crd, "conversion webhook caBundle not written, retrying: {e}");
                }
            }
        }
        let wait = if failed {
            retry = (retry * 2).min(resync);
            retry
        } else {
            retry = Duration::from_secs(1);
            resync
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            changed = rotated.changed() => if changed.is_err() { return },
            _ = stopped.changed() => return,
        }
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
