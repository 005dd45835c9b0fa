//! Histograms as text, so a report can carry them and reports can later be
//! added up exactly: HdrHistogram's V2 encoding, deflate-compressed
//! ("V2 compressed"), then base64; the form HdrHistogram's interval logs
//! use, which every HdrHistogram implementation reads.
//!
//! Decoding reads files loadgen did not necessarily write (`loadgen
//! merge`), so it trusts no length in them: the `hdrhistogram` crate
//! allocates whatever the encoded header says the counts take (up to 4 GiB
//! from 48 characters of base64) and makes a histogram of whatever range
//! and precision it names (tens of MB at five significant digits). Both
//! are checked here first, against loadgen's shape and against the bytes
//! actually given.

use crate::histogram;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use flate2::read::ZlibDecoder;
use hdrhistogram::serialization::{
    DeserializeError, Deserializer, Serializer, V2DeflateSerializer,
};
use hdrhistogram::{AdditionError, Histogram};
use std::borrow::Cow;
use std::fmt;
use std::io::Read;

/// The lowest value and the significant digits every histogram of a run
/// has ([`histogram::new`]); only histograms of that shape add up exactly.
const LOWEST_US: u64 = 1;
const SIGNIFICANT_DIGITS: u8 = 3;

/// The V2 encoding's cookies (HdrHistogram's `V2EncodingCookieBase` and
/// `V2CompressedEncodingCookieBase`, with the word size 8 of its 64-bit
/// counts), and the length of its header: cookie, payload length,
/// normalizing offset, significant digits, lowest and highest trackable
/// values, integer-to-double ratio.
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
const V2_HEADER_LEN: usize = 40;

/// The most a V2 payload of loadgen's shape can take: one varint of at
/// most 9 bytes per count, and a histogram from 1 with three significant
/// digits has fewer than 64 Ki counts whatever its highest value (56,320
/// for the whole `u64` range; a test checks it).
const LARGEST_PAYLOAD: usize = 9 * 64 * 1024;

/// Why a text is not one of loadgen's histograms.
#[derive(Debug)]
pub enum DecodeError {
    Base64(base64::DecodeError),
    /// Not the V2 encoding, or not deflate inside the compressed one.
    Format(String),
    /// The header says more bytes of counts follow than do, or more than a
    /// histogram of loadgen's shape can have.
    Length {
        claimed: u64,
        present: usize,
    },
    Histogram(DeserializeError),
    /// A histogram, but of another resolution than loadgen's.
    Shape {
        lowest: u64,
        significant_digits: u32,
    },
    /// Values too large for this machine to hold in one histogram.
    Range(AdditionError),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Base64(e) => write!(f, "not base64: {e}"),
            DecodeError::Format(why) => {
                write!(
                    f,
                    "not an HdrHistogram in the V2 compressed encoding: {why}"
                )
            }
            DecodeError::Length { claimed, present } => write!(
                f,
                "not an HdrHistogram in the V2 compressed encoding: its header announces \
                 {claimed} bytes of counts where {present} follow (at most {LARGEST_PAYLOAD})"
            ),
            DecodeError::Histogram(e) => {
                write!(f, "not an HdrHistogram in the V2 compressed encoding: {e}")
            }
            DecodeError::Shape {
                lowest,
                significant_digits,
            } => write!(
                f,
                "a histogram from {lowest} with {significant_digits} significant digits; \
                 loadgen's start at {LOWEST_US} µs with {SIGNIFICANT_DIGITS}"
            ),
            DecodeError::Range(e) => write!(f, "a histogram this machine cannot hold: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// `histogram` in the V2 compressed encoding, base64 (standard alphabet, padded).
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .expect("a histogram of counts below 2^63 serializes into memory");
    STANDARD.encode(bytes)
}

/// The histogram [`encode`] made, grown on demand as [`histogram::new`]'s
/// are, so that decoded histograms add up with each other and with a run's.
pub fn decode(text: &str) -> Result<Histogram<u64>, DecodeError> {
    let bytes = STANDARD.decode(text.trim()).map_err(DecodeError::Base64)?;
    decode_bytes(&bytes)
}

/// [`decode`] after base64: the V2 encoding, compressed or not. Nothing is
/// allocated beyond what the bytes given can fill.
pub fn decode_bytes(bytes: &[u8]) -> Result<Histogram<u64>, DecodeError> {
    let plain = uncompressed(bytes)?;
    check_header(&plain)?;
    let decoded: Histogram<u64> = Deserializer::new()
        .deserialize(&mut &plain[..])
        .map_err(DecodeError::Histogram)?;
    // The decoded histogram's range ends at the encoder's largest value;
    // one of the run's shape grows to take any later addition.
    let mut histogram = histogram::new();
    histogram.add(&decoded).map_err(DecodeError::Range)?;
    Ok(histogram)
}

/// The uncompressed V2 encoding in `bytes`: as it is, or inflated, but
/// never beyond the largest one of loadgen's shape.
fn uncompressed(bytes: &[u8]) -> Result<Cow<'_, [u8]>, DecodeError> {
    match be_u32(bytes, 0) {
        Some(V2_COOKIE) => Ok(Cow::Borrowed(bytes)),
        Some(V2_COMPRESSED_COOKIE) => {
            let compressed = be_u32(bytes, 4)
                .and_then(|len| bytes[8..].get(..len as usize))
                .ok_or_else(|| DecodeError::Format("its compressed part is cut short".into()))?;
            let most = V2_HEADER_LEN + LARGEST_PAYLOAD;
            let mut plain = Vec::new();
            ZlibDecoder::new(compressed)
                .take(most as u64 + 1)
                .read_to_end(&mut plain)
                .map_err(|e| DecodeError::Format(format!("cannot inflate it: {e}")))?;
            if plain.len() > most {
                return Err(DecodeError::Format(format!(
                    "more than {most} bytes once inflated, more than any histogram of \
                     loadgen's shape takes"
                )));
            }
            Ok(Cow::Owned(plain))
        }
        _ => Err(DecodeError::Histogram(DeserializeError::InvalidCookie)),
    }
}

/// Checks what the deserializer would trust: loadgen's shape, and a
/// payload length within the bytes that follow the header.
fn check_header(plain: &[u8]) -> Result<(), DecodeError> {
    let (Some(payload_len), Some(digits), Some(lowest)) =
        (be_u32(plain, 4), be_u32(plain, 12), be_u64(plain, 16))
    else {
        return Err(DecodeError::Format("its header is cut short".into()));
    };
    if plain.len() < V2_HEADER_LEN {
        return Err(DecodeError::Format("its header is cut short".into()));
    }
    if lowest != LOWEST_US || digits != u32::from(SIGNIFICANT_DIGITS) {
        return Err(DecodeError::Shape {
            lowest,
            significant_digits: digits,
        });
    }
    let present = plain.len() - V2_HEADER_LEN;
    if payload_len as usize > present.min(LARGEST_PAYLOAD) {
        return Err(DecodeError::Length {
            claimed: u64::from(payload_len),
            present,
        });
    }
    Ok(())
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let field = bytes.get(at..)?.first_chunk::<4>()?;
    Some(u32::from_be_bytes(*field))
}

fn be_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let field = bytes.get(at..)?.first_chunk::<8>()?;
    Some(u64::from_be_bytes(*field))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(values: &[u64]) -> Histogram<u64> {
        let mut h = histogram::new();
        for v in values {
            histogram::record(&mut h, *v);
        }
        h
    }

    #[test]
    fn round_trip() {
        let values = [1, 7, 999, 1_000, 12_345, 2_000_000, histogram::HIGHEST_US];
        let h = recorded(&values);
        let decoded = decode(&encode(&h)).unwrap();
        assert_eq!(decoded, h);
        assert_eq!(decoded.len(), values.len() as u64);
        assert_eq!(decoded.max(), h.max());
        let empty = decode(&encode(&histogram::new())).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn decoded_histograms_add_up_to_one_of_all_values() {
        let first: Vec<u64> = (1..=5_000).map(|i| i * 37).collect();
        let second: Vec<u64> = (1..=300).map(|i| i * i * 1_001).collect();
        let mut sum = decode(&encode(&recorded(&first))).unwrap();
        sum.add(decode(&encode(&recorded(&second))).unwrap())
            .unwrap();
        let all: Vec<u64> = first.iter().chain(&second).copied().collect();
        let together = recorded(&all);
        assert_eq!(sum, together);
        for q in [0.5, 0.9, 0.99, 0.999, 1.0] {
            assert_eq!(sum.value_at_quantile(q), together.value_at_quantile(q));
        }
    }

    #[test]
    fn decoded_histograms_grow_past_the_range_they_were_encoded_with() {
        let mut small = decode(&encode(&recorded(&[5]))).unwrap();
        small.add(recorded(&[3_000_000_000])).unwrap();
        assert_eq!(small.len(), 2);
        histogram::record(&mut small, 60_000_000);
        assert_eq!(small.len(), 3);
    }

    #[test]
    fn rejects_what_is_not_a_loadgen_histogram() {
        assert!(matches!(decode("not base64!"), Err(DecodeError::Base64(_))));
        assert!(matches!(
            decode(&STANDARD.encode(b"HIST")),
            Err(DecodeError::Histogram(_))
        ));
        let coarse = Histogram::<u64>::new_with_bounds(1, 1_000, 2).unwrap();
        let err = decode(&encode(&coarse)).unwrap_err();
        assert!(matches!(
            err,
            DecodeError::Shape {
                lowest: 1,
                significant_digits: 2
            }
        ));
        assert!(!err.to_string().contains('\n'));
    }

    /// A V2 header with these fields, and `payload` after it.
    fn v2(payload_len: u32, digits: u32, lowest: u64, highest: u64, payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&V2_COOKIE.to_be_bytes());
        bytes.extend_from_slice(&payload_len.to_be_bytes());
        bytes.extend_from_slice(&0u32.to_be_bytes());
        bytes.extend_from_slice(&digits.to_be_bytes());
        bytes.extend_from_slice(&lowest.to_be_bytes());
        bytes.extend_from_slice(&highest.to_be_bytes());
        bytes.extend_from_slice(&1f64.to_be_bytes());
        bytes.extend_from_slice(payload);
        bytes
    }

    fn compressed(plain: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        zlib.write_all(plain).unwrap();
        let deflated = zlib.finish().unwrap();
        let mut bytes = V2_COMPRESSED_COOKIE.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(deflated.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&deflated);
        bytes
    }

    #[test]
    fn a_header_is_not_trusted_with_the_length_of_the_counts() {
        // 48 characters of base64 that made the deserializer allocate 4 GiB.
        let hostile = STANDARD.encode(compressed(&v2(0xffff_fff0, 3, 1, 2, &[])));
        assert_eq!(hostile.len(), 48);
        let err = decode(&hostile).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Length {
                    claimed: 0xffff_fff0,
                    present: 0
                }
            ),
            "{err}"
        );
        // Uncompressed, a length beyond the bytes given is refused alike.
        let err = decode_bytes(&v2(1000, 3, 1, 2, &[2; 10])).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Length {
                    claimed: 1000,
                    present: 10
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn another_shape_is_refused_before_a_histogram_of_it_is_made() {
        // Five digits over the whole range would be tens of MB of counts.
        let err = decode_bytes(&compressed(&v2(0, 5, 1, u64::MAX, &[]))).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Shape {
                    lowest: 1,
                    significant_digits: 5
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn inflating_stops_past_the_largest_histogram_of_loadgens_shape() {
        let bomb = compressed(&v2(0, 3, 1, 2, &vec![0; 16 * LARGEST_PAYLOAD]));
        assert!(bomb.len() < 20_000, "{} bytes", bomb.len());
        let err = decode_bytes(&bomb).unwrap_err();
        assert!(matches!(err, DecodeError::Format(_)), "{err}");
        assert!(err.to_string().contains("once inflated"), "{err}");
        assert!(matches!(
            decode_bytes(&[1, 2]),
            Err(DecodeError::Histogram(_))
        ));
        let cut = compressed(&v2(0, 3, 1, 2, &[]));
        assert!(matches!(
            decode_bytes(&cut[..cut.len() - 1]),
            Err(DecodeError::Format(_))
        ));
    }

    #[test]
    fn the_largest_payload_holds_every_histogram_of_loadgens_shape() {
        let widest = Histogram::<u64>::new_with_bounds(1, u64::MAX, 3).unwrap();
        assert!(widest.distinct_values() * 9 <= LARGEST_PAYLOAD);
        let mut full = widest;
        for i in 0..64 {
            full.record((1u64 << i) | 0x5555_5555_5555_5555 >> (63 - i))
                .unwrap();
        }
        assert_eq!(decode(&encode(&full)).unwrap().len(), 64);
    }

    #[test]
    fn the_uncompressed_encoding_decodes_too() {
        use hdrhistogram::serialization::V2Serializer;
        let h = recorded(&[3, 40, 500_000]);
        let mut bytes = Vec::new();
        V2Serializer::new().serialize(&h, &mut bytes).unwrap();
        assert_eq!(decode_bytes(&bytes).unwrap(), h);
    }
}
