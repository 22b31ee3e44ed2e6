//! `Stripe-Signature` signing and verification.

use forumdex_payments::signature::{self, DEFAULT_TOLERANCE_SECS, SignatureError};

const SECRET: &str = "whsec_test";
const NOW: i64 = 1_700_000_000;

/// HMAC-SHA256(b"whsec_test", b"1700000000.{}"), computed independently with Python's `hmac`.
const PYTHON_VECTOR: &str = "35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91";

fn verify(header: &str, payload: &[u8]) -> Result<i64, SignatureError> {
    signature::verify(SECRET, header, payload, NOW, DEFAULT_TOLERANCE_SECS)
}

#[test]
fn sign_matches_an_independent_vector() {
    assert_eq!(
        signature::sign(SECRET, NOW, b"{}"),
        format!("t={NOW},v1={PYTHON_VECTOR}")
    );
}

#[test]
fn verify_accepts_the_independent_vector() {
    assert_eq!(
        verify(&format!("t={NOW},v1={PYTHON_VECTOR}"), b"{}"),
        Ok(NOW)
    );
}

#[test]
fn round_trip() {
    let body = br#"{"id":"evt_1","type":"ping"}"#;
    let header = signature::sign(SECRET, NOW - 10, body);
    assert_eq!(verify(&header, body), Ok(NOW - 10));
}

#[test]
fn wrong_secret_is_a_mismatch() {
    let header = signature::sign("whsec_other", NOW, b"{}");
    assert_eq!(verify(&header, b"{}"), Err(SignatureError::Mismatch));
}

#[test]
fn tampered_body_is_a_mismatch() {
    let header = signature::sign(SECRET, NOW, br#"{"amount":100}"#);
    assert_eq!(
        verify(&header, br#"{"amount":900}"#),
        Err(SignatureError::Mismatch)
    );
}

#[test]
fn tampered_timestamp_is_a_mismatch() {
    let header = format!("t={},v1={PYTHON_VECTOR}", NOW + 1);
    assert_eq!(verify(&header, b"{}"), Err(SignatureError::Mismatch));
}

#[test]
fn stale_timestamp_is_rejected() {
    let signed_at = NOW - DEFAULT_TOLERANCE_SECS - 1;
    let header = signature::sign(SECRET, signed_at, b"{}");
    assert!(matches!(
        verify(&header, b"{}"),
        Err(SignatureError::StaleTimestamp { timestamp, .. }) if timestamp == signed_at
    ));
}

#[test]
fn future_timestamp_is_rejected() {
    let header = signature::sign(SECRET, NOW + DEFAULT_TOLERANCE_SECS + 1, b"{}");
    assert!(matches!(
        verify(&header, b"{}"),
        Err(SignatureError::StaleTimestamp { .. })
    ));
}

#[test]
fn timestamps_at_the_tolerance_edges_are_accepted() {
    for signed_at in [NOW - DEFAULT_TOLERANCE_SECS, NOW + DEFAULT_TOLERANCE_SECS] {
        let header = signature::sign(SECRET, signed_at, b"{}");
        assert_eq!(verify(&header, b"{}"), Ok(signed_at));
    }
}

#[test]
fn any_matching_v1_among_several_is_enough() {
    let wrong = "0".repeat(64);
    let header = format!("t={NOW},v1={wrong},v1=not-hex,v1={PYTHON_VECTOR},v0={wrong}");
    assert_eq!(verify(&header, b"{}"), Ok(NOW));
}

#[test]
fn spaces_around_parts_are_tolerated() {
    assert_eq!(
        verify(&format!(" t={NOW}, v1={PYTHON_VECTOR} "), b"{}"),
        Ok(NOW)
    );
}

#[test]
fn only_v0_is_no_v1() {
    let header = format!("t={NOW},v0={PYTHON_VECTOR}");
    assert_eq!(verify(&header, b"{}"), Err(SignatureError::NoV1Signature));
}

#[test]
fn garbage_headers_are_errors() {
    let cases = [
        ("", SignatureError::MissingHeader),
        ("   ", SignatureError::MissingHeader),
        (
            "garbage",
            SignatureError::Malformed("expected comma-separated key=value pairs"),
        ),
        (
            ",,,",
            SignatureError::Malformed("expected comma-separated key=value pairs"),
        ),
        ("v1=abcd", SignatureError::Malformed("no timestamp")),
        (
            "t=soon,v1=abcd",
            SignatureError::Malformed("timestamp is not an integer"),
        ),
        (
            "t=,v1=abcd",
            SignatureError::Malformed("timestamp is not an integer"),
        ),
        (
            "t=99999999999999999999999,v1=abcd",
            SignatureError::Malformed("timestamp is not an integer"),
        ),
        (
            "t=1,t=2,v1=abcd",
            SignatureError::Malformed("several timestamps"),
        ),
        ("t=1700000000", SignatureError::NoV1Signature),
        ("t=1700000000,v1=", SignatureError::Mismatch),
        ("t=1700000000,v1=zz", SignatureError::Mismatch),
        ("t=1700000000,v1=abc", SignatureError::Mismatch),
    ];
    for (header, expected) in cases {
        assert_eq!(verify(header, b"{}"), Err(expected), "header {header:?}");
    }
}

#[test]
fn extreme_timestamps_and_tolerances_do_not_panic() {
    for (signed_at, now) in [(i64::MIN, i64::MAX), (i64::MAX, i64::MIN)] {
        let header = signature::sign(SECRET, signed_at, b"{}");
        for tolerance in [i64::MIN, -1, 0, i64::MAX] {
            assert!(matches!(
                signature::verify(SECRET, &header, b"{}", now, tolerance),
                Err(SignatureError::StaleTimestamp { .. })
            ));
        }
    }
}

#[test]
fn a_negative_tolerance_means_zero() {
    let header = signature::sign(SECRET, NOW, b"{}");
    assert_eq!(signature::verify(SECRET, &header, b"{}", NOW, -5), Ok(NOW));
}

#[test]
fn messages_are_lowercase_without_trailing_period() {
    let errors = [
        SignatureError::MissingHeader,
        SignatureError::Malformed("no timestamp"),
        SignatureError::NoV1Signature,
        SignatureError::StaleTimestamp {
            timestamp: 1,
            now_unix: 1000,
            tolerance_secs: 300,
        },
        SignatureError::Mismatch,
    ];
    for error in errors {
        let message = error.to_string();
        assert!(message.starts_with(|c: char| c.is_lowercase()), "{message}");
        assert!(!message.ends_with('.'), "{message}");
    }
}
