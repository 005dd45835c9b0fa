//! TLS with rustls: the client configuration built from the plan, the names
//! h2load prints for what was negotiated, and errors that say what to do.

use crate::connection_info::TlsInfo;
use crate::plan::TlsOptions;
use crate::plan_error::{PlanError, PlanField};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{ring, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::SupportedCipherSuite;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;

pub mod certificate;

/// OpenSSL's names for the suites rustls offers, as h2load prints them.
const OPENSSL_NAMES: &[(&str, &str)] = &[
    ("TLS13_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
    ("TLS13_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"),
    (
        "TLS13_CHACHA20_POLY1305_SHA256",
        "TLS_CHACHA20_POLY1305_SHA256",
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "ECDHE-ECDSA-AES128-GCM-SHA256",
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "ECDHE-ECDSA-AES256-GCM-SHA384",
    ),
    (
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "ECDHE-ECDSA-CHACHA20-POLY1305",
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "ECDHE-RSA-AES128-GCM-SHA256",
    ),
    (
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384",
    ),
    (
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "ECDHE-RSA-CHACHA20-POLY1305",
    ),
];

fn rustls_name(suite: &SupportedCipherSuite) -> String {
    format!("{:?}", suite.suite())
}

/// The OpenSSL name of a suite, falling back to the IANA name.
pub fn cipher_name(suite: &SupportedCipherSuite) -> String {
    let name = rustls_name(suite);
    OPENSSL_NAMES
        .iter()
        .find(|(rustls, _)| *rustls == name)
        .map(|(_, openssl)| openssl.to_string())
        .unwrap_or(name)
}

fn matches(suite: &SupportedCipherSuite, wanted: &str) -> bool {
    let name = rustls_name(suite);
    let iana = name.replacen("TLS13_", "TLS_", 1);
    wanted.eq_ignore_ascii_case(&name)
        || wanted.eq_ignore_ascii_case(&iana)
        || wanted.eq_ignore_ascii_case(&cipher_name(suite))
}

/// Picks suites by name from `list` (`:`-separated), keeping the list's order.
fn select_suites(
    all: &[SupportedCipherSuite],
    list: &str,
    tls13: bool,
    field: PlanField,
) -> Result<Vec<SupportedCipherSuite>, PlanError> {
    let of_version: Vec<_> = all
        .iter()
        .filter(|s| s.tls13().is_some() == tls13)
        .copied()
        .collect();
    let mut chosen = Vec::new();
    for wanted in list.split(':').map(str::trim).filter(|w| !w.is_empty()) {
        let suite = of_version
            .iter()
            .find(|s| matches(s, wanted))
            .ok_or_else(|| {
                let known: Vec<String> = of_version.iter().map(cipher_name).collect();
                PlanError::new(
                    field,
                    format!(
                        "unknown or unsupported cipher '{wanted}'; supported: {}",
                        known.join(":")
                    ),
                )
            })?;
        if !chosen
            .iter()
            .any(|c: &SupportedCipherSuite| c.suite() == suite.suite())
        {
            chosen.push(*suite);
        }
    }
    if chosen.is_empty() {
        return Err(PlanError::new(field, "the cipher list is empty"));
    }
    Ok(chosen)
}

/// h2load's (OpenSSL's) default preference: AES-128 first. Servers that
/// follow the client's order then pick the same suite for both tools.
const DEFAULT_TLS13: &str =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
const DEFAULT_TLS12: &str = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:\
     ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:\
     ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

fn provider(options: &TlsOptions) -> Result<CryptoProvider, PlanError> {
    let mut provider = ring::default_provider();
    let all = provider.cipher_suites.clone();
    let tls13 = options.tls13_ciphers.as_deref().unwrap_or(DEFAULT_TLS13);
    let tls13 = select_suites(&all, tls13, true, PlanField::Tls13Ciphers)?;
    let tls12 = options.ciphers.as_deref().unwrap_or(DEFAULT_TLS12);
    let tls12 = select_suites(&all, tls12, false, PlanField::TlsCiphers)?;
    provider.cipher_suites = tls13.into_iter().chain(tls12).collect();
    if let Some(list) = &options.groups {
        provider.kx_groups = select_groups(&provider.kx_groups, list)?;
    }
    Ok(provider)
}

/// h2load's and OpenSSL's names of the key-exchange groups rustls offers.
const GROUP_NAMES: &[(rustls::NamedGroup, &[&str])] = &[
    (rustls::NamedGroup::X25519, &["X25519"]),
    (
        rustls::NamedGroup::secp256r1,
        &["P-256", "prime256v1", "secp256r1"],
    ),
    (rustls::NamedGroup::secp384r1, &["P-384", "secp384r1"]),
    (rustls::NamedGroup::secp521r1, &["P-521", "secp521r1"]),
];

fn group_name(group: rustls::NamedGroup) -> String {
    GROUP_NAMES
        .iter()
        .find(|(g, _)| *g == group)
        .map(|(_, names)| names[0].to_string())
        .unwrap_or_else(|| format!("{group:?}"))
}

/// `--groups`: picks key-exchange groups by name (`:`-separated), keeping the list's order.
fn select_groups(
    all: &[&'static dyn rustls::crypto::SupportedKxGroup],
    list: &str,
) -> Result<Vec<&'static dyn rustls::crypto::SupportedKxGroup>, PlanError> {
    let mut chosen: Vec<&'static dyn rustls::crypto::SupportedKxGroup> = Vec::new();
    for wanted in list.split(':').map(str::trim).filter(|w| !w.is_empty()) {
        let group = all
            .iter()
            .find(|g| {
                GROUP_NAMES
                    .iter()
                    .find(|(named, _)| *named == g.name())
                    .is_some_and(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(wanted)))
            })
            .ok_or_else(|| {
                let known: Vec<String> = all.iter().map(|g| group_name(g.name())).collect();
                PlanError::new(
                    PlanField::TlsGroups,
                    format!(
                        "unknown or unsupported group '{wanted}'; supported: {}",
                        known.join(":")
                    ),
                )
            })?;
        if !chosen.iter().any(|c| c.name() == group.name()) {
            chosen.push(*group);
        }
    }
    if chosen.is_empty() {
        return Err(PlanError::new(
            PlanField::TlsGroups,
            "the group list is empty",
        ));
    }
    Ok(chosen)
}

/// The rustls configuration every TLS connection of a run shares.
pub fn client_config(
    options: &TlsOptions,
    alpn: &[String],
) -> Result<Arc<ClientConfig>, PlanError> {
    build_client_config(options, alpn, rustls::DEFAULT_VERSIONS)
}

/// The rustls configuration of QUIC connections: TLS 1.3 only, as QUIC requires.
pub fn quic_client_config(
    options: &TlsOptions,
    alpn: &[String],
) -> Result<Arc<ClientConfig>, PlanError> {
    build_client_config(options, alpn, &[&rustls::version::TLS13])
}

fn build_client_config(
    options: &TlsOptions,
    alpn: &[String],
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Result<Arc<ClientConfig>, PlanError> {
    let provider = Arc::new(provider(options)?);
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions)
        .map_err(|e| {
            PlanError::new(
                PlanField::TlsCiphers,
                format!("no usable TLS configuration: {e}"),
            )
        })?;
    let mut config = if options.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate(provider)))
            .with_no_client_auth()
    } else {
        builder
            .with_root_certificates(root_store(options)?)
            .with_no_client_auth()
    };
    config.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
    // Benchmarks measure steady state; resumption would hide handshake cost on reconnects
    // only if enabled, and h2load does full handshakes too.
    config.resumption = rustls::client::Resumption::disabled();
    Ok(Arc::new(config))
}

fn root_store(options: &TlsOptions) -> Result<RootCertStore, PlanError> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = &options.ca_file {
        let bad = |why: String| PlanError::new(PlanField::TlsCaFile, why);
        let pem = std::fs::read(path)
            .map_err(|e| bad(format!("cannot read '{}': {e}", path.display())))?;
        let mut added = 0;
        for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
            let cert =
                cert.map_err(|e| bad(format!("'{}' is not valid PEM: {e}", path.display())))?;
            roots.add(cert).map_err(|e| {
                bad(format!(
                    "'{}' holds an unusable certificate: {e}",
                    path.display()
                ))
            })?;
            added += 1;
        }
        if added == 0 {
            return Err(bad(format!(
                "no PEM certificate found in '{}'",
                path.display()
            )));
        }
    }
    Ok(roots)
}

/// The name sent as SNI and checked against the certificate: `--sni` or the URI's host.
pub fn server_name(options: &TlsOptions, host: &str) -> Result<ServerName<'static>, PlanError> {
    let name = options.sni.as_deref().unwrap_or(host);
    ServerName::try_from(name.to_string()).map_err(|_| {
        PlanError::new(
            PlanField::TlsSni,
            format!("'{name}' is not a valid server name"),
        )
    })
}

/// What a finished handshake negotiated, named as h2load names it.
pub fn describe(conn: &rustls::ClientConnection) -> TlsInfo {
    let protocol = match conn.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
        Some(other) => format!("{other:?}"),
        None => "unknown".to_string(),
    };
    let cipher = conn
        .negotiated_cipher_suite()
        .map(|s| cipher_name(&s))
        .unwrap_or_default();
    let server_temp_key = conn
        .negotiated_key_exchange_group()
        .map(|group| match group.name() {
            rustls::NamedGroup::X25519 => "X25519 253 bits".to_string(),
            rustls::NamedGroup::secp256r1 => "ECDH P-256 256 bits".to_string(),
            rustls::NamedGroup::secp384r1 => "ECDH P-384 384 bits".to_string(),
            rustls::NamedGroup::secp521r1 => "ECDH P-521 521 bits".to_string(),
            other => format!("{other:?}"),
        });
    TlsInfo {
        protocol,
        cipher,
        server_temp_key,
    }
}

/// A handshake error as one line, with the flag that fixes it where there is one.
pub fn explain_handshake_error(error: &std::io::Error) -> String {
    let inner = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>());
    match inner {
        Some(rustls::Error::InvalidCertificate(reason)) => format!(
            "TLS certificate verification failed ({}); use -k/--insecure to skip verification, \
             or --tls-ca FILE to trust the server's CA",
            certificate::describe(reason)
        ),
        // The first is QUIC's, where the client finds no protocol; over TCP
        // the server refuses with an alert, which would otherwise read as a
        // cipher or group mismatch.
        Some(
            rustls::Error::NoApplicationProtocol
            | rustls::Error::AlertReceived(rustls::AlertDescription::NoApplicationProtocol),
        ) => "TLS: the server accepted none of the offered ALPN protocols; check --alpn-list"
            .to_string(),
        Some(rustls::Error::PeerMisbehaved(
            rustls::PeerMisbehaved::SelectedUnofferedApplicationProtocol,
        )) => "TLS: the server selected an ALPN protocol that was not offered; check --alpn-list \
               and the server's ALPN configuration"
            .to_string(),
        Some(rustls::Error::AlertReceived(alert)) => {
            format!("TLS handshake failed: the server sent alert {alert:?}; check --ciphers/--tls13-ciphers, --groups and --sni")
        }
        Some(other) => format!("TLS handshake failed: {other}"),
        None => format!("TLS handshake failed: {error}"),
    }
}

/// `-k`: accepts any certificate but still checks the handshake signatures.
#[derive(Debug)]
struct AcceptAnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cipher_names_in_every_spelling() {
        let opts = TlsOptions {
            ciphers: Some(
                "ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384".into(),
            ),
            tls13_ciphers: Some("TLS_AES_128_GCM_SHA256".into()),
            ..TlsOptions::default()
        };
        let p = provider(&opts).unwrap();
        let names: Vec<String> = p.cipher_suites.iter().map(cipher_name).collect();
        assert_eq!(
            names,
            [
                "TLS_AES_128_GCM_SHA256",
                "ECDHE-RSA-AES128-GCM-SHA256",
                "ECDHE-ECDSA-AES256-GCM-SHA384"
            ]
        );
    }

    #[test]
    fn unknown_cipher_is_a_clear_error() {
        let opts = TlsOptions {
            ciphers: Some("RC4-MD5".into()),
            ..TlsOptions::default()
        };
        let err = provider(&opts).unwrap_err();
        assert_eq!(err.field, PlanField::TlsCiphers);
        assert!(
            err.message
                .starts_with("unknown or unsupported cipher 'RC4-MD5'"),
            "{err}"
        );
        let opts = TlsOptions {
            tls13_ciphers: Some("ECDHE-RSA-AES128-GCM-SHA256".into()),
            ..TlsOptions::default()
        };
        assert_eq!(provider(&opts).unwrap_err().field, PlanField::Tls13Ciphers);
    }

    #[test]
    fn groups_by_h2load_and_openssl_names() {
        let opts = TlsOptions {
            groups: Some("P-384:x25519:prime256v1".into()),
            ..TlsOptions::default()
        };
        let p = provider(&opts).unwrap();
        let names: Vec<String> = p.kx_groups.iter().map(|g| group_name(g.name())).collect();
        assert_eq!(names, ["P-384", "X25519", "P-256"]);
        let opts = TlsOptions {
            groups: Some("X25519:ffdhe2048".into()),
            ..TlsOptions::default()
        };
        let err = provider(&opts).unwrap_err();
        assert_eq!(err.field, PlanField::TlsGroups);
        assert!(
            err.message.starts_with(
                "unknown or unsupported group 'ffdhe2048'; supported: X25519:P-256:P-384"
            ),
            "{err}"
        );
    }

    #[test]
    fn quic_config_is_tls13_only() {
        let config = quic_client_config(&TlsOptions::default(), &["h3".into()]).unwrap();
        assert_eq!(config.alpn_protocols, [b"h3".to_vec()]);
        assert!(rustls::quic::ClientConnection::new(
            config,
            rustls::quic::Version::V1,
            ServerName::try_from("localhost").unwrap(),
            Vec::new()
        )
        .is_ok());
    }

    #[test]
    fn alpn_failures_name_alpn() {
        let explain = |error: rustls::Error| {
            explain_handshake_error(&std::io::Error::new(std::io::ErrorKind::InvalidData, error))
        };
        for error in [
            rustls::Error::NoApplicationProtocol,
            rustls::Error::AlertReceived(rustls::AlertDescription::NoApplicationProtocol),
            rustls::Error::PeerMisbehaved(
                rustls::PeerMisbehaved::SelectedUnofferedApplicationProtocol,
            ),
        ] {
            let message = explain(error);
            assert!(
                message.contains("ALPN") && message.contains("--alpn-list"),
                "{message}"
            );
        }
        let other = explain(rustls::Error::AlertReceived(
            rustls::AlertDescription::HandshakeFailure,
        ));
        assert!(other.contains("--ciphers"), "{other}");
    }

    #[test]
    fn missing_ca_file_names_the_field() {
        let opts = TlsOptions {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..TlsOptions::default()
        };
        let err = client_config(&opts, &["h2".into()]).unwrap_err();
        assert_eq!(err.field, PlanField::TlsCaFile);
        assert!(err.message.starts_with("cannot read"), "{err}");
    }
}
