//! Integration tests of forumdex-accounts: one binary, one module per area.

mod allowlist;
mod helpers;
mod keys;
mod rate;
mod sqlite;
mod wire;
