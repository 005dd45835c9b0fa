//! The API's bearer tokens: JSON Web Tokens signed with HMAC-SHA256 under a
//! key made when the target starts, so only this target can verify them and
//! a restarted target refuses the old ones. A random `jti` makes every token
//! unpredictable, even two issued in the same second to the same user.

use std::fmt;

use data_encoding::BASE64URL_NOPAD;
use ring::hmac;
use ring::rand::SystemRandom;
use serde::{Deserialize, Serialize};

use super::ids::Id;

/// How long a token is valid, in seconds (`expires_in`).
pub(crate) const LIFETIME_SECS: u64 = 3600;

/// What every token grants.
pub(crate) const SCOPES: [&str; 2] = ["read", "write"];

/// The JOSE header of every token: `{"alg":"HS256","typ":"JWT"}`.
const HEADER: &str = r#"{"alg":"HS256","typ":"JWT"}"#;

/// The claims a token carries (RFC 7519 names; `scope` as in RFC 8693).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Claims {
    pub(crate) sub: String,
    pub(crate) scope: String,
    pub(crate) iat: u64,
    pub(crate) exp: u64,
    pub(crate) jti: String,
}

impl Claims {
    pub(crate) fn scopes(&self) -> Vec<&str> {
        self.scope.split(' ').filter(|s| !s.is_empty()).collect()
    }
}

/// Why a token was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    Malformed,
    BadSignature,
    Expired,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::Malformed => "the token is not a JWT issued by this target",
            Refusal::BadSignature => "the token's signature does not verify",
            Refusal::Expired => "the token has expired",
        })
    }
}

pub(crate) struct Signer {
    key: hmac::Key,
}

impl Signer {
    pub(crate) fn new() -> Signer {
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &SystemRandom::new())
            .expect("the system random number generator failed");
        Signer { key }
    }

    /// A token for `user`, issued at `now` (seconds since the Unix epoch).
    pub(crate) fn issue(&self, user: &str, now: u64) -> String {
        let claims = Claims {
            sub: user.to_owned(),
            scope: SCOPES.join(" "),
            iat: now,
            exp: now + LIFETIME_SECS,
            jti: Id::random().to_string(),
        };
        let payload = serde_json::to_vec(&claims).expect("claims serialize to JSON");
        let mut token = BASE64URL_NOPAD.encode(HEADER.as_bytes());
        token.push('.');
        token.push_str(&BASE64URL_NOPAD.encode(&payload));
        let signature = hmac::sign(&self.key, token.as_bytes());
        token.push('.');
        token.push_str(&BASE64URL_NOPAD.encode(signature.as_ref()));
        token
    }

    /// The claims of a token this signer issued that is still valid at `now`.
    pub(crate) fn verify(&self, token: &str, now: u64) -> Result<Claims, Refusal> {
        let (signed, signature) = token.rsplit_once('.').ok_or(Refusal::Malformed)?;
        let (_, payload) = signed.split_once('.').ok_or(Refusal::Malformed)?;
        let signature = BASE64URL_NOPAD
            .decode(signature.as_bytes())
            .map_err(|_| Refusal::Malformed)?;
        hmac::verify(&self.key, signed.as_bytes(), &signature)
            .map_err(|_| Refusal::BadSignature)?;
        // Only what this signer wrote gets here, so the header needs no check.
        let payload = BASE64URL_NOPAD
            .decode(payload.as_bytes())
            .map_err(|_| Refusal::Malformed)?;
        let claims: Claims = serde_json::from_slice(&payload).map_err(|_| Refusal::Malformed)?;
        if now >= claims.exp {
            return Err(Refusal::Expired);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_767_225_600;

    #[test]
    fn an_issued_token_verifies_until_it_expires() {
        let signer = Signer::new();
        let token = signer.issue("alice", NOW);
        assert_eq!(token.split('.').count(), 3);
        assert!(token.starts_with("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."));
        let claims = signer.verify(&token, NOW).unwrap();
        assert_eq!((claims.sub.as_str(), claims.iat), ("alice", NOW));
        assert_eq!(claims.exp, NOW + LIFETIME_SECS);
        assert_eq!(claims.scopes(), SCOPES);
        assert!(signer.verify(&token, NOW + LIFETIME_SECS - 1).is_ok());
        assert_eq!(
            signer.verify(&token, NOW + LIFETIME_SECS),
            Err(Refusal::Expired)
        );
    }

    #[test]
    fn tokens_are_unpredictable() {
        let signer = Signer::new();
        assert_ne!(signer.issue("alice", NOW), signer.issue("alice", NOW));
    }

    #[test]
    fn another_targets_or_a_tampered_token_is_refused() {
        let signer = Signer::new();
        let token = signer.issue("alice", NOW);
        let other = Signer::new().issue("alice", NOW);
        assert_eq!(signer.verify(&other, NOW), Err(Refusal::BadSignature));

        let parts: Vec<&str> = token.split('.').collect();
        let forged_claims = Claims {
            sub: "mallory".into(),
            ..signer.verify(&token, NOW).unwrap()
        };
        let forged = BASE64URL_NOPAD.encode(&serde_json::to_vec(&forged_claims).unwrap());
        let tampered = format!("{}.{forged}.{}", parts[0], parts[2]);
        assert_eq!(signer.verify(&tampered, NOW), Err(Refusal::BadSignature));
    }

    #[test]
    fn garbage_is_malformed() {
        let signer = Signer::new();
        for garbage in ["", "abc", "a.b", "a.b.c", "a.b.!!"] {
            assert_eq!(
                signer.verify(garbage, NOW),
                Err(Refusal::Malformed),
                "{garbage:?}"
            );
        }
    }
}
