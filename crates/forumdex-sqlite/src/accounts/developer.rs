//! The dashboard's tables on the accounts database (schema version 2); the
//! [`DeveloperStore`](forumdex_accounts::DeveloperStore) itself is written once for both
//! backends (`forumdex_sql::impl_account_stores!`).

use forumdex_sql::Dialect;
use forumdex_sql::accounts::schema::dashboard_tables;

/// What version 2 adds: the keys' secret prefix, and the dashboard's tables
/// (`forumdex_sql::accounts::schema`, written once for both backends).
pub(super) fn schema_v2() -> String {
    format!(
        "ALTER TABLE api_keys ADD COLUMN secret_prefix TEXT;\n{}",
        dashboard_tables(Dialect::Sqlite)
    )
}
