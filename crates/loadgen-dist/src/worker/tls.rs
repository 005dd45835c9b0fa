//! HTTPS for the worker's API: a certificate chain and key from PEM files,
//! HTTP/1.1 offered by ALPN.

use rustls::ServerConfig;
use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// An acceptor for `cert` (PEM chain) and `key` (PEM private key).
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    let read = |flag: &str, path: &Path| {
        std::fs::read(path).map_err(|e| format!("{flag}: cannot read '{}': {e}", path.display()))
    };
    let cert_pem = read("--cert", cert)?;
    let key_pem = read("--key", key)?;
    let chain = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--cert: '{}' is not PEM: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("--cert: '{}' holds no certificate", cert.display()));
    }
    let key_der = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .map_err(|e| format!("--key: '{}' is not PEM: {e}", key.display()))?
        .ok_or_else(|| format!("--key: '{}' holds no private key", key.display()))?;
    // An explicit provider, so the result does not depend on what else in
    // the process might have installed a default one.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("--cert: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| format!("--key: does not fit --cert: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
