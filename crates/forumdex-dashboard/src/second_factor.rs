//! Two-factor sign-in's arithmetic: RFC 6238 app codes (SHA-1, 6 digits, 30-second steps,
//! what every authenticator app reads; one step of clock drift either way accepted), the
//! `otpauth://` address and its QR code, and single-use recovery codes (kept as SHA-256).
//! Which step or code was already used is the store's business
//! (`DeveloperStore::use_second_factor`).

use chrono::{DateTime, Utc};
use forumdex_accounts::{DeveloperError, DeveloperStore, SecondFactor, TokenHash};
use qrcode::QrCode;
use qrcode::render::svg;
use rand::Rng;
use subtle::ConstantTimeEq;
use totp_rs::{Algorithm, Secret, TOTP};

use crate::error::PageError;
use crate::secret_seal::{Opened, SecretSeal};

/// Seconds per app code.
const STEP_SECONDS: u64 = 30;
/// Digits of an app code.
const DIGITS: usize = 6;
/// Bytes of a new secret (160 bits, RFC 4226's recommendation).
const SECRET_BYTES: usize = 20;
/// Recovery codes shown when two-factor sign-in is turned on or its codes renewed.
pub const RECOVERY_CODES: usize = 10;
/// The letters of recovery codes: lower case and digits without look-alikes (0/o, 1/l/i).
const RECOVERY_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
/// The issuer authenticator apps show beside the account.
const ISSUER: &str = "forumdex";

/// A new random secret.
pub fn new_secret() -> Vec<u8> {
    let mut secret = vec![0u8; SECRET_BYTES];
    rand::thread_rng().fill(secret.as_mut_slice());
    secret
}

/// The secret as the setup page shows it and its form carries it (base 32).
pub fn encode_secret(secret: &[u8]) -> String {
    match (Secret::Raw(secret.to_vec())).to_encoded() {
        Secret::Encoded(text) => text,
        Secret::Raw(_) => unreachable!("to_encoded answers the encoded form"),
    }
}

/// The secret a setup form sent back, when it is one this page could have made.
pub fn decode_secret(text: &str) -> Option<Vec<u8>> {
    Secret::Encoded(text.trim().to_owned())
        .to_bytes()
        .ok()
        .filter(|bytes| bytes.len() == SECRET_BYTES)
}

fn totp(secret: &[u8], account: &str) -> TOTP {
    // An address holding ':' cannot be an otpauth label: the label drops it.
    let label = account.replace(':', "");
    TOTP::new_unchecked(
        Algorithm::SHA1,
        DIGITS,
        1,
        STEP_SECONDS,
        secret.to_vec(),
        Some(ISSUER.to_owned()),
        label,
    )
}

/// The `otpauth://` address an authenticator app adds the account from.
pub fn otpauth_uri(secret: &[u8], account: &str) -> String {
    totp(secret, account).get_url()
}

/// The address as a QR code: an SVG document.
pub fn qr_svg(uri: &str) -> Result<String, PageError> {
    let code = QrCode::new(uri.as_bytes()).map_err(|err| PageError::Internal(err.into()))?;
    Ok(code
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build())
}

/// The step an app code is right for at `now` (this step, or one either side), if any.
pub fn matching_step(secret: &[u8], code: &str, now: DateTime<Utc>) -> Option<u64> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let totp = totp(secret, "");
    let current = u64::try_from(now.timestamp()).ok()? / STEP_SECONDS;
    [current.saturating_sub(1), current, current + 1]
        .into_iter()
        .find(|step| {
            bool::from(
                totp.generate(step * STEP_SECONDS)
                    .as_bytes()
                    .ct_eq(code.as_bytes()),
            )
        })
}

/// New recovery codes (`xxxxx-xxxxx`, 50 bits each).
pub fn new_recovery_codes() -> Vec<String> {
    let mut rng = rand::thread_rng();
    (0..RECOVERY_CODES)
        .map(|_| {
            let mut letter =
                || RECOVERY_ALPHABET[rng.gen_range(0..RECOVERY_ALPHABET.len())] as char;
            let first: String = (0..5).map(|_| letter()).collect();
            let second: String = (0..5).map(|_| letter()).collect();
            format!("{first}-{second}")
        })
        .collect()
}

/// What a recovery code is kept as: the SHA-256 of its letters (case, spaces and dashes
/// do not matter).
pub fn recovery_hash(code: &str) -> TokenHash {
    let letters: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    TokenHash::of(&letters)
}

/// What a typed code proves: an app code (six digits) by the step it is right for, else a
/// recovery code. `None`: neither could be right.
pub fn proof(secret: &[u8], typed: &str, now: DateTime<Utc>) -> Option<SecondFactor> {
    let digits = typed.chars().filter(|c| !c.is_whitespace()).count() == DIGITS
        && typed
            .trim()
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b' ');
    if digits {
        return matching_step(secret, typed, now).map(SecondFactor::Step);
    }
    let letters = typed.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    (letters == 10).then(|| SecondFactor::RecoveryCode(recovery_hash(typed)))
}

/// Whether `typed` passes the account's second factor (used up when it does); true when
/// the account has none. Call it only after the password proved right. A secret stored
/// before sealing existed is sealed once a proof passes.
pub fn passes(
    store: &dyn DeveloperStore,
    seal: &SecretSeal,
    account: forumdex_accounts::AccountId,
    typed: &str,
    now: DateTime<Utc>,
) -> Result<bool, PageError> {
    let Some(on) = store.two_factor(account)? else {
        return Ok(true);
    };
    let opened = seal
        .open(account, &on.secret)
        .map_err(|broken| PageError::Internal(broken.into()))?;
    let Some(proof) = proof(opened.secret(), typed, now) else {
        return Ok(false);
    };
    if !store.use_second_factor(account, &proof, now)? {
        return Ok(false);
    }
    if let Opened::Plain(secret) = &opened {
        store.replace_two_factor_secret(account, &on.secret, &seal.seal(account, secret))?;
    }
    Ok(true)
}

/// What [`seal_plain_secrets`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SealPass {
    /// Secrets that were stored plain and are sealed now.
    pub sealed: usize,
    /// Sealed secrets this key does not open (another cursor secret sealed them).
    pub unopenable: usize,
}

/// Seals every two-factor secret an earlier version stored plain: what a server does at
/// start, so no secret stays plain until its owner signs in. Safe on several nodes at once
/// (each replacement only happens from the form read).
pub fn seal_plain_secrets(
    store: &dyn DeveloperStore,
    seal: &SecretSeal,
) -> Result<SealPass, DeveloperError> {
    let mut pass = SealPass::default();
    for (account, stored) in store.two_factor_secrets()? {
        match seal.open(account, &stored) {
            Ok(Opened::Plain(secret)) => {
                if store.replace_two_factor_secret(
                    account,
                    &stored,
                    &seal.seal(account, &secret),
                )? {
                    pass.sealed += 1;
                }
            }
            Ok(Opened::Sealed(_)) => {}
            Err(_) => pass.unopenable += 1,
        }
    }
    Ok(pass)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238's SHA-1 test secret and vectors (the last six digits of its eight).
    #[test]
    fn app_codes_follow_rfc_6238() {
        let secret = b"12345678901234567890";
        let at = |seconds: i64| DateTime::<Utc>::from_timestamp(seconds, 0).unwrap();
        assert_eq!(matching_step(secret, "287082", at(59)), Some(1));
        assert_eq!(
            matching_step(secret, "081804", at(1_111_111_109)),
            Some(37_037_036)
        );
        assert_eq!(
            matching_step(secret, "081 804", at(1_111_111_109 + 30)),
            Some(37_037_036),
            "one step of drift, spaces ignored"
        );
        assert_eq!(
            matching_step(secret, "081804", at(1_111_111_109 + 90)),
            None
        );
        assert_eq!(matching_step(secret, "28708", at(59)), None);
        assert_eq!(matching_step(secret, "abcdef", at(59)), None);
    }

    #[test]
    fn secrets_and_recovery_codes_round_trip() {
        let secret = new_secret();
        assert_eq!(decode_secret(&encode_secret(&secret)), Some(secret.clone()));
        assert_eq!(decode_secret("not base32!"), None);
        assert_eq!(decode_secret("GEZDGNBV"), None, "too short to be ours");
        let uri = otpauth_uri(&secret, "dev@example.com");
        assert!(
            uri.starts_with("otpauth://totp/forumdex:dev%40example.com?secret="),
            "{uri}"
        );
        assert!(qr_svg(&uri).unwrap().contains("<svg"));

        let codes = new_recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert!(
            codes
                .iter()
                .all(|code| code.len() == 11 && code.as_bytes()[5] == b'-')
        );
        assert_eq!(
            recovery_hash(&codes[0]),
            recovery_hash(&codes[0].to_uppercase().replace('-', " "))
        );
        let now = DateTime::<Utc>::from_timestamp(59, 0).unwrap();
        assert_eq!(
            proof(&secret, &codes[0], now),
            Some(SecondFactor::RecoveryCode(recovery_hash(&codes[0])))
        );
        assert_eq!(proof(&secret, "short", now), None);
        assert_eq!(
            proof(b"12345678901234567890", "287082", now),
            Some(SecondFactor::Step(1))
        );
    }
}
