//! The dashboard's tables on the accounts database (schema version 2); the
//! [`DeveloperStore`](forumdex_accounts::DeveloperStore) itself is written once for both
//! backends (`forumdex_sql::impl_account_stores!`).

/// The tables version 2 adds (instants in Unix milliseconds, days as `YYYY-MM-DD`).
pub(super) const SCHEMA_V2: &str = "
ALTER TABLE api_keys ADD COLUMN secret_prefix TEXT;
CREATE TABLE logins (
    account_id    INTEGER PRIMARY KEY REFERENCES accounts (id),
    email         TEXT    NOT NULL,
    email_key     TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    verified_at   INTEGER,
    created_at    INTEGER NOT NULL
);
CREATE TABLE login_tokens (
    token_sha256 BLOB    PRIMARY KEY,
    purpose      TEXT    NOT NULL,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX login_tokens_by_account ON login_tokens (account_id, purpose);
CREATE TABLE sessions (
    token_sha256 BLOB    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);
CREATE TABLE activity (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    kind       TEXT    NOT NULL,
    detail     TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX activity_by_account ON activity (account_id, id);
CREATE TABLE usage_daily (
    key_id   TEXT    NOT NULL REFERENCES api_keys (key_id),
    day      TEXT    NOT NULL,
    endpoint TEXT    NOT NULL,
    status   INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    PRIMARY KEY (key_id, day, endpoint, status)
);
CREATE TABLE topups (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id       INTEGER NOT NULL REFERENCES accounts (id),
    credits          INTEGER NOT NULL CHECK (credits >= 1),
    amount_cents     INTEGER NOT NULL CHECK (amount_cents >= 0),
    currency         TEXT    NOT NULL,
    provider         TEXT    NOT NULL,
    reference        TEXT    UNIQUE,
    status           TEXT    NOT NULL,
    payment_intent   TEXT,
    refunded_cents   INTEGER NOT NULL DEFAULT 0,
    refunded_credits INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX topups_by_account ON topups (account_id, id);
CREATE INDEX topups_by_payment ON topups (payment_intent);
CREATE TABLE payment_events (
    event_id    TEXT    PRIMARY KEY,
    topup_id    INTEGER,
    outcome     TEXT    NOT NULL,
    received_at INTEGER NOT NULL
);
";
