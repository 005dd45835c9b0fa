//! TLS configuration: the certificate (loaded or self-signed) and ALPN.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::ServerConfig;

use crate::error::TargetError;

/// Protocols offered in ALPN, preferred first.
pub(crate) const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// Names the generated certificate is valid for, so clients can verify it
/// when connecting to loopback by name or address.
const SELF_SIGNED_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A server config, the same certificate for QUIC, and the PEM text of
/// the certificate (chain).
pub(crate) struct Tls {
    pub config: Arc<ServerConfig>,
    /// TLS 1.3 only with ALPN `h3`, for the HTTP/3 side of the TLS port.
    pub quic: Arc<ServerConfig>,
    pub cert_pem: String,
}

pub(crate) fn load(cert: &Path, key: &Path) -> Result<Tls, TargetError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| TargetError::Tls {
            file: Some(path.to_owned()),
            message: e.to_string(),
        })
    };
    let cert_pem = read(cert)?;
    let key_pem = read(key)?;
    let bad = |path: &Path, message: String| TargetError::Tls {
        file: Some(path.to_owned()),
        message,
    };

    let certs = rustls_pemfile::certs(&mut &cert_pem[..])
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(bad(cert, "no PEM certificate found".into()));
    }
    let key_der = rustls_pemfile::private_key(&mut &key_pem[..])
        .map_err(|e| bad(key, e.to_string()))?
        .ok_or_else(|| bad(key, "no PEM private key found".into()))?;
    let cert_pem = String::from_utf8(cert_pem).map_err(|_| bad(cert, "not UTF-8 text".into()))?;

    let (config, quic) = server_configs(certs, key_der).map_err(|e| bad(cert, e))?;
    Ok(Tls {
        config,
        quic,
        cert_pem,
    })
}

pub(crate) fn self_signed() -> Result<Tls, TargetError> {
    let names: Vec<String> = SELF_SIGNED_NAMES.iter().map(|s| s.to_string()).collect();
    let generated = rcgen::generate_simple_self_signed(names).map_err(|e| TargetError::Tls {
        file: None,
        message: format!("generating a self-signed certificate: {e}"),
    })?;
    let key = PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der());
    let (config, quic) =
        server_configs(vec![generated.cert.der().clone()], key.into()).map_err(|e| {
            TargetError::Tls {
                file: None,
                message: e,
            }
        })?;
    Ok(Tls {
        config,
        quic,
        cert_pem: generated.cert.pem(),
    })
}

/// A self-signed certificate for the same names that was valid through
/// 2020 only: what a client says about an expired certificate.
pub(crate) fn expired_self_signed() -> Result<Tls, TargetError> {
    let fail = |e: rcgen::Error| TargetError::Tls {
        file: None,
        message: format!("generating an expired certificate: {e}"),
    };
    let names: Vec<String> = SELF_SIGNED_NAMES.iter().map(|s| s.to_string()).collect();
    let mut params = rcgen::CertificateParams::new(names).map_err(fail)?;
    params.not_before = rcgen::date_time_ymd(2020, 1, 1);
    params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    let signing_key = rcgen::KeyPair::generate().map_err(fail)?;
    let cert = params.self_signed(&signing_key).map_err(fail)?;
    let key = PrivatePkcs8KeyDer::from(signing_key.serialize_der());
    let (config, quic) =
        server_configs(vec![cert.der().clone()], key.into()).map_err(|message| {
            TargetError::Tls {
                file: None,
                message,
            }
        })?;
    Ok(Tls {
        config,
        quic,
        cert_pem: cert.pem(),
    })
}

/// The TCP configuration (TLS 1.2 and 1.3, h2 and http/1.1) and the QUIC
/// one (TLS 1.3, h3) for the same certificate.
fn server_configs(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<(Arc<ServerConfig>, Arc<ServerConfig>), String> {
    let mut config = server_config(certs.clone(), key.clone_key(), rustls::DEFAULT_VERSIONS)?;
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    let mut quic = server_config(certs, key, &[&rustls::version::TLS13])?;
    quic.alpn_protocols = vec![b"h3".to_vec()];
    Ok((Arc::new(config), Arc::new(quic)))
}

fn server_config(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Result<ServerConfig, String> {
    // An explicit provider, so the result doesn't depend on what else in the
    // process may have installed a default one.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_round_trips_through_files() {
        let generated = self_signed().unwrap();
        assert!(generated
            .cert_pem
            .starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(
            generated.config.alpn_protocols,
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        assert_eq!(generated.quic.alpn_protocols, vec![b"h3".to_vec()]);

        let dir = std::env::temp_dir().join(format!("loadgen-target-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rc = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, rc.cert.pem()).unwrap();
        std::fs::write(&key, rc.signing_key.serialize_pem()).unwrap();
        let loaded = load(&cert, &key).unwrap();
        assert_eq!(loaded.cert_pem, rc.cert.pem());

        // A key file in the certificate's place is reported against that file.
        let err = load(&key, &key).err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("key.pem") && msg.contains("no PEM certificate"),
            "{msg}"
        );
        let missing = dir.join("missing.pem");
        let err = load(&missing, &key).err().unwrap();
        assert!(err.to_string().contains("missing.pem"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
