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
