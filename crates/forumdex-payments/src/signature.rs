//! Stripe's webhook signature scheme, for signing (the test provider) and verifying (every
//! webhook).
//!
//! The `Stripe-Signature` header reads `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, where each
//! `v1` is HMAC-SHA256 keyed with the whole webhook secret string (`whsec_...` included) over
//! `"<t>." + body`. Several `v1` values appear while a secret is being rolled; other schemes
//! (`v0`) are ignored. The timestamp bounds replays of a captured request.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far a signature's timestamp may be from now, either way, by default (Stripe's 5 min).
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

/// Why a `Stripe-Signature` header was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The header is absent or empty.
    #[error("missing stripe-signature header")]
    MissingHeader,
    /// The header cannot be read.
    #[error("malformed stripe-signature header: {0}")]
    Malformed(&'static str),
    /// The header carries no `v1` signature.
    #[error("no v1 signature in stripe-signature header")]
    NoV1Signature,
    /// A signature matches, but its timestamp is too old or too far in the future.
    #[error(
        "signature timestamp {timestamp} is more than {tolerance_secs} s away from now ({now_unix})"
    )]
    StaleTimestamp {
        /// The signed timestamp (unix seconds).
        timestamp: i64,
        /// The verifier's clock (unix seconds).
        now_unix: i64,
        /// The allowed distance in seconds.
        tolerance_secs: i64,
    },
    /// No `v1` signature matches the body under this secret.
    #[error("no signature matches the payload")]
    Mismatch,
}

/// The `Stripe-Signature` header value for `payload` signed with `secret` at `timestamp`.
pub fn sign(secret: &str, timestamp: i64, payload: &[u8]) -> String {
    let digest = signer(secret, timestamp, payload).finalize().into_bytes();
    format!("t={timestamp},v1={}", hex::encode(digest))
}

/// Checks a `Stripe-Signature` header against `payload`; returns the signed timestamp.
///
/// Accepts when any `v1` signature matches (compared in constant time) and the timestamp is
/// within `tolerance_secs` of `now_unix`, in the past or the future.
pub fn verify(
    secret: &str,
    header: &str,
    payload: &[u8],
    now_unix: i64,
    tolerance_secs: i64,
) -> Result<i64, SignatureError> {
    let parsed = parse_header(header)?;
    let mac = signer(secret, parsed.timestamp, payload);
    // A `v1` that is not hex cannot match; it is skipped rather than fatal, like Stripe's libraries.
    let matches = parsed
        .v1
        .iter()
        .filter_map(|candidate| hex::decode(candidate).ok())
        .any(|candidate| mac.clone().verify_slice(&candidate).is_ok());
    if !matches {
        return Err(SignatureError::Mismatch);
    }
    // Checked after the match, as Stripe does, so "stale" always means "genuine but old".
    let tolerance = u64::try_from(tolerance_secs).unwrap_or(0);
    if now_unix.abs_diff(parsed.timestamp) > tolerance {
        return Err(SignatureError::StaleTimestamp {
            timestamp: parsed.timestamp,
            now_unix,
            tolerance_secs,
        });
    }
    Ok(parsed.timestamp)
}

/// A `Stripe-Signature` header split into its parts.
struct ParsedHeader<'a> {
    timestamp: i64,
    v1: Vec<&'a str>,
}

fn parse_header(header: &str) -> Result<ParsedHeader<'_>, SignatureError> {
    let header = header.trim();
    if header.is_empty() {
        return Err(SignatureError::MissingHeader);
    }
    let mut timestamp = None;
    let mut v1 = Vec::new();
    for part in header.split(',') {
        let Some((key, value)) = part.split_once('=') else {
            return Err(SignatureError::Malformed(
                "expected comma-separated key=value pairs",
            ));
        };
        match key.trim() {
            "t" => {
                let parsed = value
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| SignatureError::Malformed("timestamp is not an integer"))?;
                if timestamp.replace(parsed).is_some() {
                    return Err(SignatureError::Malformed("several timestamps"));
                }
            }
            "v1" => v1.push(value.trim()),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed("no timestamp"))?;
    if v1.is_empty() {
        return Err(SignatureError::NoV1Signature);
    }
    Ok(ParsedHeader { timestamp, v1 })
}

/// HMAC-SHA256 keyed with the secret's bytes, fed `"<timestamp>." + payload`.
fn signer(secret: &str, timestamp: i64, payload: &[u8]) -> Hmac<Sha256> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac accepts keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    mac
}
