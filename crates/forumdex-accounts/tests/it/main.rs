//! Integration tests of forumdex-accounts: one binary, one module per area.

mod allowlist;
mod keys;
mod rate;
mod wire;
