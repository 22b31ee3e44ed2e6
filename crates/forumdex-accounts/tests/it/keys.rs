//! Key secrets, key ids, lifetimes and statuses.

use chrono::Duration;
use forumdex_accounts::key::{KEY_LEN, KEY_PREFIX};
use forumdex_accounts::{ApiKey, KeyId, KeyLifetime, KeyParseError, KeyStatus};

#[test]
fn generated_secrets_parse_and_differ() {
    let a = ApiKey::generate();
    let b = ApiKey::generate();
    assert_ne!(a, b);
    assert_eq!(a.expose_secret().len(), KEY_LEN);
    assert!(a.expose_secret().starts_with(KEY_PREFIX));
    let parsed = ApiKey::parse(a.expose_secret()).expect("round trip");
    assert_eq!(parsed, a);
    assert_eq!(parsed.hash(), a.hash());
    assert!(parsed.hash() != b.hash());
}

#[test]
fn parse_refuses_garbage() {
    let good = ApiKey::generate().expose_secret().to_owned();
    assert_eq!(ApiKey::parse(""), Err(KeyParseError::Prefix));
    assert_eq!(ApiKey::parse("garbage"), Err(KeyParseError::Prefix));
    assert_eq!(
        ApiKey::parse(&good.replacen("fdx_live_", "fdx_test_", 1)),
        Err(KeyParseError::Prefix)
    );
    assert_eq!(
        ApiKey::parse(&format!(" {good}")),
        Err(KeyParseError::Prefix)
    );
    assert_eq!(
        ApiKey::parse(&good[..good.len() - 1]),
        Err(KeyParseError::Length)
    );
    assert_eq!(
        ApiKey::parse(&format!("{good}x")),
        Err(KeyParseError::Length)
    );
    assert_eq!(ApiKey::parse("fdx_live_"), Err(KeyParseError::Length));

    let mut bad_char = good.clone().into_bytes();
    bad_char[KEY_PREFIX.len() + 3] = b'-';
    let bad_char = String::from_utf8(bad_char).expect("ascii");
    assert_eq!(ApiKey::parse(&bad_char), Err(KeyParseError::Charset));
    let non_ascii = format!("{}é", &good[..good.len() - 2]);
    assert!(ApiKey::parse(&non_ascii).is_err());

    // One character changed in the random part: the checksum no longer matches.
    let mut typo = good.clone().into_bytes();
    let at = KEY_PREFIX.len() + 5;
    typo[at] = if typo[at] == b'a' { b'b' } else { b'a' };
    let typo = String::from_utf8(typo).expect("ascii");
    assert_eq!(ApiKey::parse(&typo), Err(KeyParseError::Checksum));
}

#[test]
fn debug_output_hides_the_secret() {
    let key = ApiKey::generate();
    let shown = format!("{key:?}");
    assert!(!shown.contains(&key.expose_secret()[KEY_PREFIX.len()..]));
}

#[test]
fn key_ids_parse() {
    let id = KeyId::generate();
    assert!(id.as_str().starts_with("key_"));
    assert_eq!(KeyId::parse(id.as_str()).expect("round trip"), id);
    assert!(KeyId::parse("key_short").is_err());
    assert!(KeyId::parse("nope_aaaaaaaaaaaaaaaaaaaa").is_err());
    assert!(KeyId::parse("key_aaaaaaaaaaaaaaaaaaa-").is_err());
}

#[test]
fn lifetimes_parse_and_display() {
    for lifetime in KeyLifetime::ALL {
        assert_eq!(lifetime.to_string().parse::<KeyLifetime>(), Ok(lifetime));
    }
    assert_eq!("none".parse::<KeyLifetime>(), Ok(KeyLifetime::None));
    assert_eq!("90d".parse::<KeyLifetime>(), Ok(KeyLifetime::Days90));
    for bad in ["", "1d", "7", "7days", "365D", "never"] {
        assert!(bad.parse::<KeyLifetime>().is_err(), "{bad}");
    }
    assert_eq!(KeyLifetime::None.expires_at(t0()), None);
    assert_eq!(KeyLifetime::Days180.expires_at(t0()), Some(days(180)));
}

#[test]
fn status_at_an_instant() {
    let exp = Some(days(7));
    assert_eq!(KeyStatus::at(exp, None, t0()), KeyStatus::Active);
    assert_eq!(
        KeyStatus::at(exp, None, days(7) - Duration::milliseconds(1)),
        KeyStatus::Active
    );
    assert_eq!(KeyStatus::at(exp, None, days(7)), KeyStatus::Expired);
    assert_eq!(KeyStatus::at(exp, Some(t0()), days(8)), KeyStatus::Revoked);
    assert_eq!(KeyStatus::at(None, None, days(9999)), KeyStatus::Active);
}

/// A fixed "now" for tests: 2026-01-01T00:00:00Z.
fn t0() -> chrono::DateTime<chrono::Utc> {
    chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date")
}

/// `t0` plus `days` days.
fn days(days: i64) -> chrono::DateTime<chrono::Utc> {
    t0() + chrono::Duration::days(days)
}
