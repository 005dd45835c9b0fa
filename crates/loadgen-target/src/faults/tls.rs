//! TLS faults: a handshake the server never answers, ALPN answers a client
//! cannot use, and an expired certificate. The handshakes that complete use
//! a self-signed certificate, generated once per process, as the target's
//! TLS port does.

use crate::tls::{expired_self_signed, self_signed};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, OnceLock};

/// A protocol no client offers: the server's choice in [`alpn_refused`]
/// and [`alpn_unoffered`].
const UNOFFERED_PROTOCOL: &[u8] = b"spdy/3.1";
/// A TLS record's header: content type, version, length.
const RECORD_HEADER_LEN: usize = 5;

/// Reads what the client sends (its ClientHello, then nothing more as it
/// waits) and never answers, until it gives up and closes.
pub(super) fn handshake_stall(mut stream: TcpStream) -> io::Result<()> {
    let mut chunk = [0; 4096];
    while stream.read(&mut chunk)? > 0 {}
    Ok(())
}

/// Completes the handshake without selecting an application protocol, as
/// a server without ALPN does.
pub(super) fn alpn_none(stream: TcpStream) -> io::Result<()> {
    handshake_offering(stream, &[])
}

/// Supports one protocol the client does not offer, so the handshake ends
/// with the `no_application_protocol` alert (RFC 7301 section 3.2).
pub(super) fn alpn_refused(stream: TcpStream) -> io::Result<()> {
    handshake_offering(stream, &[UNOFFERED_PROTOCOL])
}

/// Completes the handshake, if the client goes on, with a certificate
/// that expired at the start of 2021.
pub(super) fn expired_certificate(stream: TcpStream) -> io::Result<()> {
    static CONFIG: OnceLock<Result<Arc<ServerConfig>, String>> = OnceLock::new();
    let config = CONFIG
        .get_or_init(|| {
            expired_self_signed()
                .map(|tls| tls.config)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))?;
    handshake_with(stream, ServerConfig::clone(config))
}

/// Answers the ClientHello with a TLS 1.2 ServerHello, written by hand,
/// that selects a protocol the client did not offer: no TLS library would
/// do it, and a client must refuse it (RFC 7301 section 3.1).
pub(super) fn alpn_unoffered(mut stream: TcpStream) -> io::Result<()> {
    read_record(&mut stream)?;
    stream.write_all(&server_hello_selecting(UNOFFERED_PROTOCOL))?;
    handshake_stall(stream)
}

/// A handshake with the server supporting `protocols` in ALPN, then the
/// connection read to its end.
fn handshake_offering(stream: TcpStream, protocols: &[&[u8]]) -> io::Result<()> {
    let mut config = ServerConfig::clone(certificate()?);
    config.alpn_protocols = protocols.iter().map(|p| p.to_vec()).collect();
    handshake_with(stream, config)
}

/// A handshake with `config`, then the connection read to its end.
fn handshake_with(stream: TcpStream, config: ServerConfig) -> io::Result<()> {
    let connection = ServerConnection::new(Arc::new(config)).map_err(io::Error::other)?;
    let mut tls = StreamOwned::new(connection, stream);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    let mut chunk = [0; 4096];
    while tls.read(&mut chunk)? > 0 {}
    Ok(())
}

/// The target's TLS configuration with a self-signed certificate, made by
/// the first connection that needs it.
fn certificate() -> io::Result<&'static Arc<ServerConfig>> {
    static CONFIG: OnceLock<Result<Arc<ServerConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            self_signed()
                .map(|tls| tls.config)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

/// Reads one TLS record whole, and drops it.
fn read_record(stream: &mut TcpStream) -> io::Result<()> {
    let mut header = [0; RECORD_HEADER_LEN];
    stream.read_exact(&mut header)?;
    let length = u16::from_be_bytes([header[3], header[4]]);
    let mut body = vec![0; usize::from(length)];
    stream.read_exact(&mut body)
}

/// A handshake record holding a TLS 1.2 ServerHello whose only extension
/// is ALPN naming `protocol`. A client checks ALPN before anything that
/// would need a real key exchange, so nothing else has to be right.
fn server_hello_selecting(protocol: &[u8]) -> Vec<u8> {
    const TLS12: [u8; 2] = [0x03, 0x03];
    const ALPN_EXTENSION: [u8; 2] = [0x00, 0x10];
    const ECDHE_ECDSA_AES128_GCM_SHA256: [u8; 2] = [0xc0, 0x2b];
    const HANDSHAKE: u8 = 22;
    const SERVER_HELLO: u8 = 2;
    let u16_len = |bytes: &[u8]| u16::try_from(bytes.len()).expect("short").to_be_bytes();

    let mut names = vec![u8::try_from(protocol.len()).expect("a short name")];
    names.extend_from_slice(protocol);
    let mut alpn = u16_len(&names).to_vec();
    alpn.extend_from_slice(&names);
    let mut extensions = ALPN_EXTENSION.to_vec();
    extensions.extend_from_slice(&u16_len(&alpn));
    extensions.extend_from_slice(&alpn);

    let mut hello = TLS12.to_vec();
    // Random, then an empty session id.
    hello.extend_from_slice(&[0x5a; 32]);
    hello.push(0);
    hello.extend_from_slice(&ECDHE_ECDSA_AES128_GCM_SHA256);
    // No compression.
    hello.push(0);
    hello.extend_from_slice(&u16_len(&extensions));
    hello.extend_from_slice(&extensions);

    let mut handshake = vec![SERVER_HELLO];
    handshake.extend_from_slice(&u32::try_from(hello.len()).expect("short").to_be_bytes()[1..]);
    handshake.extend_from_slice(&hello);

    let mut record = vec![HANDSHAKE];
    record.extend_from_slice(&TLS12);
    record.extend_from_slice(&u16_len(&handshake));
    record.extend_from_slice(&handshake);
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_hello_is_one_well_framed_record() {
        let record = server_hello_selecting(UNOFFERED_PROTOCOL);
        let record_len = usize::from(u16::from_be_bytes([record[3], record[4]]));
        assert_eq!(&record[..3], &[22, 3, 3], "a TLS 1.2 handshake record");
        assert_eq!(record.len(), RECORD_HEADER_LEN + record_len);
        let handshake = &record[RECORD_HEADER_LEN..];
        assert_eq!(handshake[0], 2, "a ServerHello");
        let hello_len = u32::from_be_bytes([0, handshake[1], handshake[2], handshake[3]]);
        assert_eq!(handshake.len(), 4 + hello_len as usize);
        // Its last bytes: the ALPN extension naming the one protocol.
        let mut alpn = vec![0x00, 0x10, 0x00, 11, 0x00, 9, 8];
        alpn.extend_from_slice(UNOFFERED_PROTOCOL);
        assert!(record.ends_with(&alpn), "{record:?}");
    }
}
