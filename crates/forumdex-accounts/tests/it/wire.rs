//! The JSON shapes of the operator commands, pinned.

use chrono::{Duration, TimeZone, Utc};
use forumdex_accounts::wire::{AccountCredits, KeyView};
use forumdex_accounts::{AccountId, Allowlist, KeyId, KeyStatus, Timestamp};
use serde_json::json;

#[test]
fn timestamps_have_milliseconds_and_z() {
    let at = Utc
        .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
        .single()
        .expect("valid");
    assert_eq!(Timestamp(at).to_string(), "2026-01-02T03:04:05.000Z");
    let with_micros = at + Duration::microseconds(123_456);
    assert_eq!(
        serde_json::to_value(Timestamp(with_micros)).expect("json"),
        json!("2026-01-02T03:04:05.123Z")
    );
    let parsed = Timestamp::parse("2026-01-02T05:04:05.5+02:00").expect("parse");
    assert_eq!(parsed.to_string(), "2026-01-02T03:04:05.500Z");
}

#[test]
fn key_view_shape() {
    let key_id = KeyId::generate();
    let view = KeyView {
        key_id: key_id.clone(),
        name: None,
        status: KeyStatus::Expired,
        expires_at: None,
        allow: Allowlist::parse_all(&["::ffff:10.0.0.1"]).expect("valid"),
    };
    assert_eq!(
        serde_json::to_value(&view).expect("json"),
        json!({
            "key_id": key_id.as_str(),
            "name": null,
            "status": "expired",
            "expires_at": null,
            "allow": ["10.0.0.1/32"],
        })
    );
    let credits = AccountCredits {
        account_id: AccountId::new(3).expect("positive"),
        credits: 9,
    };
    assert_eq!(
        serde_json::to_value(&credits).expect("json"),
        json!({"account_id": 3, "credits": 9})
    );
}
