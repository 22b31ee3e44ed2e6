//! `accounts`, `credits` and `keys`: each command's `--json` output shape, and errors.

use serde_json::{Value, json};

use crate::helpers::{fails, fields, is_millis_utc, json_ok};

fn str_of<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().expect("a string field")
}

#[test]
fn accounts_and_credits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("nested").join("data");

    let created = json_ok(
        &data,
        &[
            "accounts",
            "create",
            "--email",
            "dev@example.com",
            "--credits",
            "5",
        ],
    );
    assert_eq!(fields(&created), ["account_id", "credits"]);
    assert_eq!(created["credits"], 5);
    let id = created["account_id"].as_i64().expect("numeric id");
    let id_text = id.to_string();
    assert!(data.join("accounts.sqlite").is_file());

    let zero = json_ok(
        &data,
        &["accounts", "create", "--email", "other@example.com"],
    );
    assert_eq!(zero["credits"], 0);
    assert_ne!(zero["account_id"], created["account_id"]);

    let topped = json_ok(
        &data,
        &["credits", "add", "--account", &id_text, "--amount", "7"],
    );
    assert_eq!(topped, json!({"account_id": id, "credits": 12}));

    // With an idempotency key, a retried command adds nothing and prints the balance.
    let keyed = [
        "credits",
        "add",
        "--account",
        &id_text,
        "--amount",
        "3",
        "--idempotency-key",
        "invoice-17",
    ];
    assert_eq!(
        json_ok(&data, &keyed),
        json!({"account_id": id, "credits": 15})
    );
    assert_eq!(
        json_ok(&data, &keyed),
        json!({"account_id": id, "credits": 15})
    );
    let other = json_ok(
        &data,
        &["accounts", "create", "--email", "third@example.com"],
    );
    let other_text = other["account_id"].to_string();
    fails(
        &data,
        &[
            "credits",
            "add",
            "--account",
            &other_text,
            "--amount",
            "3",
            "--idempotency-key",
            "invoice-17",
        ],
    );
    fails(
        &data,
        &[
            "credits",
            "add",
            "--account",
            &id_text,
            "--amount",
            "3",
            "--idempotency-key",
            " ",
        ],
    );
    let shown = json_ok(&data, &["accounts", "show", &id_text]);
    assert_eq!(
        shown,
        json!({"account_id": id, "email": "dev@example.com", "credits": 15, "keys": []})
    );

    fails(&data, &["accounts", "show", "424242"]);
    fails(&data, &["accounts", "show", "abc"]);
    fails(&data, &["accounts", "create", "--email", "not an email"]);
    fails(&data, &["accounts", "create", "--email", "nobody"]);
    fails(
        &data,
        &["credits", "add", "--account", &id_text, "--amount", "0"],
    );
    fails(
        &data,
        &["credits", "add", "--account", &id_text, "--amount", "-3"],
    );
    fails(
        &data,
        &["credits", "add", "--account", "424242", "--amount", "1"],
    );
}

#[test]
fn key_lifecycle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path();
    let account = json_ok(data, &["accounts", "create", "--email", "dev@example.com"]);
    let id = account["account_id"].to_string();

    let created = json_ok(
        data,
        &[
            "keys",
            "create",
            "--account",
            &id,
            "--lifetime",
            "30d",
            "--allow",
            "10.0.0.0/8",
            "--allow",
            "::ffff:192.0.2.1",
            "--name",
            "ci",
        ],
    );
    assert_eq!(fields(&created), ["expires_at", "key", "key_id"]);
    assert!(str_of(&created, "key").starts_with("fdx_live_"));
    assert!(str_of(&created, "key_id").starts_with("key_"));
    assert!(is_millis_utc(str_of(&created, "expires_at")));
    let key_id = str_of(&created, "key_id").to_owned();

    let forever = json_ok(data, &["keys", "create", "--account", &id]);
    assert_eq!(forever["expires_at"], Value::Null);

    let listed = json_ok(data, &["keys", "list", "--account", &id]);
    assert_eq!(fields(&listed), ["keys"]);
    let keys = listed["keys"].as_array().expect("array");
    assert_eq!(keys.len(), 2);
    assert_eq!(
        fields(&keys[0]),
        ["allow", "expires_at", "key_id", "name", "status"]
    );
    assert_eq!(keys[0]["key_id"], created["key_id"]);
    assert_eq!(keys[0]["name"], "ci");
    assert_eq!(keys[0]["status"], "active");
    assert_eq!(keys[0]["expires_at"], created["expires_at"]);
    assert_eq!(keys[0]["allow"], json!(["10.0.0.0/8", "192.0.2.1/32"]));
    assert_eq!(keys[1]["name"], Value::Null);
    assert_eq!(keys[1]["allow"], json!([]));
    // No secret is ever listed.
    assert!(!listed.to_string().contains(str_of(&created, "key")));

    let shown = json_ok(data, &["accounts", "show", &id]);
    assert_eq!(shown["keys"], listed["keys"]);

    let expired = json_ok(
        data,
        &[
            "keys",
            "set-expiry",
            &key_id,
            "--at",
            "2020-01-02T03:04:05+01:00",
        ],
    );
    assert_eq!(
        expired,
        json!({"key_id": key_id, "expires_at": "2020-01-02T02:04:05.000Z"})
    );
    let listed = json_ok(data, &["keys", "list", "--account", &id]);
    assert_eq!(listed["keys"][0]["status"], "expired");

    let renewed = json_ok(data, &["keys", "renew", &key_id]);
    assert_eq!(fields(&renewed), ["expires_at", "key_id", "status"]);
    assert_eq!(renewed["status"], "active");
    assert!(is_millis_utc(str_of(&renewed, "expires_at")));
    let renewed = json_ok(data, &["keys", "renew", &key_id, "--lifetime", "none"]);
    assert_eq!(
        renewed,
        json!({"key_id": key_id, "status": "active", "expires_at": null})
    );

    let allow = json_ok(
        data,
        &[
            "keys",
            "allow",
            &key_id,
            "--add",
            "2001:db8::/32",
            "--add",
            "10.0.0.0/8",
            "--remove",
            "192.0.2.1",
        ],
    );
    assert_eq!(
        allow,
        json!({"key_id": key_id, "allow": ["10.0.0.0/8", "2001:db8::/32"]})
    );
    let unchanged = json_ok(data, &["keys", "allow", &key_id]);
    assert_eq!(unchanged, allow);

    let revoked = json_ok(data, &["keys", "revoke", &key_id]);
    assert_eq!(revoked, json!({"key_id": key_id, "status": "revoked"}));
    let listed = json_ok(data, &["keys", "list", "--account", &id]);
    assert_eq!(listed["keys"][0]["status"], "revoked");

    let message = fails(data, &["keys", "renew", &key_id]);
    assert!(message.contains("revoked"), "{message}");
    fails(
        data,
        &[
            "keys",
            "set-expiry",
            &key_id,
            "--at",
            "2030-01-01T00:00:00Z",
        ],
    );
}

#[test]
fn key_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path();
    let account = json_ok(data, &["accounts", "create", "--email", "dev@example.com"]);
    let id = account["account_id"].to_string();
    let unknown = "key_AAAAAAAAAAAAAAAAAAAA";

    fails(data, &["keys", "create", "--account", "424242"]);
    fails(
        data,
        &["keys", "create", "--account", &id, "--lifetime", "1d"],
    );
    let message = fails(
        data,
        &["keys", "create", "--account", &id, "--allow", "10.0.0.5/8"],
    );
    assert!(message.contains("10.0.0.0/8"), "{message}");
    fails(
        data,
        &["keys", "create", "--account", &id, "--allow", "not-an-ip"],
    );
    fails(data, &["keys", "list", "--account", "424242"]);
    fails(data, &["keys", "revoke", unknown]);
    fails(data, &["keys", "revoke", "garbage"]);
    fails(data, &["keys", "renew", unknown]);
    fails(
        data,
        &[
            "keys",
            "set-expiry",
            unknown,
            "--at",
            "2030-01-01T00:00:00Z",
        ],
    );
    fails(data, &["keys", "allow", unknown, "--add", "10.0.0.1"]);

    let created = json_ok(data, &["keys", "create", "--account", &id]);
    let key_id = str_of(&created, "key_id");
    fails(data, &["keys", "set-expiry", key_id, "--at", "tomorrow"]);
    fails(data, &["keys", "allow", key_id, "--add", "300.0.0.1"]);
}

#[test]
fn two_factor_off_turns_it_off_once_and_refuses_unknown_accounts() {
    use forumdex_accounts::{AccountId, DeveloperStore, TokenHash};
    use forumdex_sqlite::SqliteAccountStore;

    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let created = json_ok(&data, &["accounts", "create", "--email", "dev@example.com"]);
    let id = created["account_id"].as_i64().expect("numeric id");
    let account = AccountId::new(id).expect("a valid id");
    {
        let store = SqliteAccountStore::open_in(&data).expect("open accounts");
        let on = store
            .enable_two_factor(
                account,
                b"a secret of twenty b",
                1,
                &[TokenHash::of("recovery-code")],
                chrono::Utc::now(),
            )
            .expect("turned on");
        assert!(on);
    }

    let off = json_ok(&data, &["accounts", "two-factor-off", &id.to_string()]);
    assert_eq!(
        off,
        json!({"account_id": id, "two_factor": false, "was_on": true})
    );
    let store = SqliteAccountStore::open_in(&data).expect("open accounts");
    assert!(store.two_factor(account).expect("read").is_none());
    let activity = store.activity(account, 10).expect("activity");
    assert_eq!(activity[0].kind, "two_factor_off", "{activity:?}");

    // Again: nothing to turn off, nothing recorded.
    let again = json_ok(&data, &["accounts", "two-factor-off", &id.to_string()]);
    assert_eq!(
        again,
        json!({"account_id": id, "two_factor": false, "was_on": false})
    );
    assert_eq!(
        store.activity(account, 10).expect("activity").len(),
        activity.len()
    );

    let unknown = fails(&data, &["accounts", "two-factor-off", "999"]);
    assert!(unknown.contains("999"), "{unknown}");
    let bad = fails(&data, &["accounts", "two-factor-off", "abc"]);
    assert!(!bad.is_empty());
}
