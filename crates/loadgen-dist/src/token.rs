//! The shared secret of a worker and its controllers: the first line of a
//! token file, sent as `Authorization: Bearer TOKEN` and compared in
//! constant time, so that the time a refusal takes tells nothing about how
//! much of a guess was right.

use http::HeaderValue;
use std::fmt;
use std::path::Path;
use subtle::ConstantTimeEq;

#[derive(Clone)]
pub struct Token(Vec<u8>);

// Never printed, not even by a debug dump.
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// The first line of `path`, without surrounding white space.
    pub fn read(path: &Path) -> Result<Token, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--token-file: cannot read '{}': {e}", path.display()))?;
        Token::new(text.lines().next().unwrap_or_default())
            .map_err(|why| format!("--token-file: '{}': {why}", path.display()))
    }

    /// A token as given; it must be something that fits in a header.
    pub fn new(text: &str) -> Result<Token, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("the first line holds no token".into());
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the token must be printable ASCII without spaces".into());
        }
        Ok(Token(text.as_bytes().to_vec()))
    }

    /// The `Authorization` header value that carries this token.
    pub fn header(&self) -> HeaderValue {
        let mut value = HeaderValue::from_bytes(&[b"Bearer ", self.0.as_slice()].concat())
            .expect("a token is printable ASCII");
        value.set_sensitive(true);
        value
    }

    /// Whether `authorization` is `Bearer` with this token. The scheme is
    /// matched without regard to case (RFC 9110); the token exactly.
    pub fn accepts(&self, authorization: Option<&HeaderValue>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let value = value.as_bytes();
        const SCHEME: &[u8] = b"bearer ";
        if value.len() < SCHEME.len() || !value[..SCHEME.len()].eq_ignore_ascii_case(SCHEME) {
            return false;
        }
        let offered = value[SCHEME.len()..].trim_ascii();
        // Unequal lengths end the comparison at once: the length of a
        // token is no secret worth the trouble, its bytes are.
        offered.ct_eq(&self.0).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_its_own_bearer_token() {
        let token = Token::new(" s3cret\n").unwrap();
        let header = |s: &str| HeaderValue::from_str(s).unwrap();
        assert!(token.accepts(Some(&token.header())));
        assert!(token.accepts(Some(&header("bearer s3cret"))));
        assert!(!token.accepts(None));
        assert!(!token.accepts(Some(&header("Bearer s3cre"))));
        assert!(!token.accepts(Some(&header("Bearer s3cret2"))));
        assert!(!token.accepts(Some(&header("Basic s3cret"))));
        assert!(!token.accepts(Some(&header("s3cret"))));
        assert_eq!(format!("{token:?}"), "Token(..)");
    }

    #[test]
    fn refuses_empty_or_unprintable_tokens() {
        assert!(Token::new("  ").is_err());
        assert!(Token::new("a b").is_err());
        assert!(Token::new("é").is_err());
    }
}
