//! The serving certificate: read from PEM files, and read again when they change, so that a
//! rotated certificate (cert-manager renews it in the mounted Secret) is served to new
//! connections without restarting the listener.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use tokio_rustls::rustls::crypto::CryptoProvider;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

use super::{CertificateProblem, ServerError};

/// The certificate chain and private key files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CertFiles {
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

/// The files' bytes as last loaded: a change in either means a reload.
type Contents = (Vec<u8>, Vec<u8>);

/// Serves the last certificate that loaded; [`Self::reload`] swaps in a changed one.
#[derive(Debug)]
pub(crate) struct ReloadingCert {
    files: CertFiles,
    provider: Arc<CryptoProvider>,
    current: RwLock<Arc<CertifiedKey>>,
    loaded: Mutex<Contents>,
}

impl ReloadingCert {
    /// Loads the files; an error names the file and what is wrong with it.
    pub(crate) fn load(
        files: CertFiles,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, ServerError> {
        let contents = (read(&files.cert)?, read(&files.key)?);
        let key = certified_key(&files, &contents, &provider)?;
        Ok(ReloadingCert {
            files,
            provider,
            current: RwLock::new(Arc::new(key)),
            loaded: Mutex::new(contents),
        })
    }

    /// Reads the files again: `Ok(true)` when they changed and the new pair is served from now
    /// on, `Ok(false)` when they are unchanged. On an error (a half-written rotation, a key
    /// that does not match the certificate yet) the previous certificate stays in use, and
    /// the next call tries again.
    pub(crate) async fn reload(&self) -> Result<bool, ServerError> {
        let cert = tokio::fs::read(&self.files.cert)
            .await
            .map_err(|e| unreadable(&self.files.cert, e))?;
        let key = tokio::fs::read(&self.files.key)
            .await
            .map_err(|e| unreadable(&self.files.key, e))?;
        let contents = (cert, key);
        if *lock(&self.loaded) == contents {
            return Ok(false);
        }
        let key = certified_key(&self.files, &contents, &self.provider)?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(key);
        *lock(&self.loaded) = contents;
        Ok(true)
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(
            self.current
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        )
    }
}

fn lock(contents: &Mutex<Contents>) -> std::sync::MutexGuard<'_, Contents> {
    contents.lock().unwrap_or_else(|e| e.into_inner())
}

fn read(path: &Path) -> Result<Vec<u8>, ServerError> {
    std::fs::read(path).map_err(|e| unreadable(path, e))
}

fn unreadable(path: &Path, e: std::io::Error) -> ServerError {
    ServerError::Certificate {
        path: path.to_path_buf(),
        problem: CertificateProblem::Unreadable(e),
    }
}

fn certified_key(
    files: &CertFiles,
    (cert, key): &Contents,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, ServerError> {
    let bad = |path: &Path, problem: CertificateProblem| ServerError::Certificate {
        path: path.to_path_buf(),
        problem,
    };
    let chain = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(&files.cert, CertificateProblem::NotPem(e.into())))?;
    if chain.is_empty() {
        return Err(bad(&files.cert, CertificateProblem::NoCertificate));
    }
    let private_key = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| bad(&files.key, CertificateProblem::NoPrivateKey(e.into())))?;
    CertifiedKey::from_der(chain, private_key, provider).map_err(|e| {
        bad(
            &files.key,
            CertificateProblem::UnusableKey {
                certificate: files.cert.clone(),
                error: e.into(),
            },
        )
    })
}
