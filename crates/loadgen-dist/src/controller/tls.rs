//! The controller's TLS for `https://` workers: the web's roots, plus the
//! certificates of `--worker-ca` for workers with certificates of their own.

use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use std::path::Path;
use std::sync::Arc;

pub fn client_config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let fail = |why: String| format!("--worker-ca: '{}': {why}", path.display());
        let pem = std::fs::read(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_slice())
            .collect::<Result<_, _>>()
            .map_err(|e| fail(format!("not PEM: {e}")))?;
        if certs.is_empty() {
            return Err(fail("holds no certificate".into()));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| fail(format!("not a usable certificate: {e}")))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
