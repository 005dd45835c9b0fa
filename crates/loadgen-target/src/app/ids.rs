//! Session ids, CSRF and logout tokens: 128 random bits, written as 32
//! lowercase hex digits, so that a scenario can extract them with a plain
//! `[a-f0-9]+` and nobody can guess another session's.

use std::fmt;

use data_encoding::HEXLOWER;
use ring::rand::{SecureRandom, SystemRandom};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Id([u8; 16]);

impl Id {
    pub(crate) fn random() -> Id {
        let mut bytes = [0; 16];
        // The OS generator fails only on systems too old to run this server
        // at all; a response cannot be made without it.
        SystemRandom::new()
            .fill(&mut bytes)
            .expect("the system random number generator failed");
        Id(bytes)
    }

    /// Reads an id as [`Id`]'s `Display` writes it; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Id> {
        let bytes = HEXLOWER.decode(text.as_bytes()).ok()?;
        Some(Id(bytes.try_into().ok()?))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&HEXLOWER.encode(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_as_lowercase_hex() {
        let id = Id::random();
        let text = id.to_string();
        assert_eq!(text.len(), 32);
        assert!(text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(Id::parse(&text), Some(id));
        assert_ne!(Id::random(), id);
    }

    #[test]
    fn anything_else_is_not_an_id() {
        let text = Id::random().to_string();
        for bad in [
            "",
            "abc",
            &text[..30],
            &format!("{text}00"),
            "0123456789ABCDEF0123456789ABCDEF",
            "zz000000000000000000000000000000",
        ] {
            assert_eq!(Id::parse(bad), None, "{bad:?}");
        }
    }
}
