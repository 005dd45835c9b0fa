//! Histograms as text, so a report can carry them and reports can later be
//! added up exactly: HdrHistogram's V2 encoding, deflate-compressed
//! ("V2 compressed"), then base64; the form HdrHistogram's interval logs
//! use, which every HdrHistogram implementation reads.

use crate::histogram;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hdrhistogram::serialization::{
    DeserializeError, Deserializer, Serializer, V2DeflateSerializer,
};
use hdrhistogram::{AdditionError, Histogram};
use std::fmt;

/// The lowest value and the significant digits every histogram of a run
/// has ([`histogram::new`]); only histograms of that shape add up exactly.
const LOWEST_US: u64 = 1;
const SIGNIFICANT_DIGITS: u8 = 3;

/// Why a text is not one of loadgen's histograms.
#[derive(Debug)]
pub enum DecodeError {
    Base64(base64::DecodeError),
    Histogram(DeserializeError),
    /// A histogram, but of another resolution than loadgen's.
    Shape {
        lowest: u64,
        significant_digits: u8,
    },
    /// Values too large for this machine to hold in one histogram.
    Range(AdditionError),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Base64(e) => write!(f, "not base64: {e}"),
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
    let decoded: Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(DecodeError::Histogram)?;
    if decoded.low() != LOWEST_US || decoded.sigfig() != SIGNIFICANT_DIGITS {
        return Err(DecodeError::Shape {
            lowest: decoded.low(),
            significant_digits: decoded.sigfig(),
        });
    }
    // The decoded histogram's range ends at the encoder's largest value;
    // one of the run's shape grows to take any later addition.
    let mut histogram = histogram::new();
    histogram.add(&decoded).map_err(DecodeError::Range)?;
    Ok(histogram)
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
}
