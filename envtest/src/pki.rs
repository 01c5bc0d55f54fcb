//! TLS and service-account key material, generated for each environment.

use super::Error;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};

pub struct Pki {
    pub ca_pem: String,
    pub ca_der: Vec<u8>,
    pub serving_cert_pem: String,
    pub serving_key_pem: String,
    pub sa_key_pem: String,
    pub sa_public_pem: String,
}

fn err(e: rcgen::Error) -> Error {
    Error::Start(format!("cannot generate TLS material: {e}"))
}

impl Pki {
    /// A CA, a serving certificate for 127.0.0.1/localhost signed by it, and an ECDSA key pair
    /// for signing service-account tokens.
    pub fn generate() -> Result<Pki, Error> {
        let ca_key = KeyPair::generate().map_err(err)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "kube-markers envtest CA");
        let ca_cert = ca_params.self_signed(&ca_key).map_err(err)?;
        let issuer = Issuer::new(ca_params, ca_key);

        let serving_key = KeyPair::generate().map_err(err)?;
        let mut serving = CertificateParams::new(vec!["localhost".to_string()]).map_err(err)?;
        serving
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        serving
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        let serving_cert = serving.signed_by(&serving_key, &issuer).map_err(err)?;

        let sa_key = KeyPair::generate().map_err(err)?;
        Ok(Pki {
            ca_pem: ca_cert.pem(),
            ca_der: ca_cert.der().to_vec(),
            serving_cert_pem: serving_cert.pem(),
            serving_key_pem: serving_key.serialize_pem(),
            sa_public_pem: sa_key.public_key_pem(),
            sa_key_pem: sa_key.serialize_pem(),
        })
    }
}

/// A certificate authority for a test's own TLS servers (a webhook server the API server
/// calls, say): its PEM is the `caBundle`, and it issues serving certificates for loopback.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

/// A serving certificate from [`TestCa::issue`], as PEM, with its private key.
#[derive(Debug, Clone)]
pub struct ServingCert {
    /// The certificate (`tls.crt`).
    pub cert_pem: String,
    /// Its private key, PKCS#8 (`tls.key`).
    pub key_pem: String,
}

impl ServingCert {
    /// Writes `tls.crt` and `tls.key` into `dir`, as a `kubernetes.io/tls` Secret is mounted.
    pub fn write_to(&self, dir: &std::path::Path) -> Result<(), Error> {
        for (name, content) in [("tls.crt", &self.cert_pem), ("tls.key", &self.key_pem)] {
            let path = dir.join(name);
            std::fs::write(&path, content)
                .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        }
        Ok(())
    }
}

impl TestCa {
    /// A new CA named `name`.
    pub fn new(name: &str) -> Result<TestCa, Error> {
        let key = KeyPair::generate().map_err(err)?;
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let pem = params.self_signed(&key).map_err(err)?.pem();
        Ok(TestCa {
            issuer: Issuer::new(params, key),
            pem,
        })
    }

    /// The CA certificate, PEM (a webhook configuration's `caBundle` is its base64).
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// A new serving certificate for `localhost` and `127.0.0.1`, with a new key, named
    /// `common_name` (so that tests can tell two apart).
    pub fn issue(&self, common_name: &str) -> Result<ServingCert, Error> {
        let key = KeyPair::generate().map_err(err)?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).map_err(err)?;
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        let cert = params.signed_by(&key, &self.issuer).map_err(err)?;
        Ok(ServingCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}
