//! Integration tests of forumdex-dashboard: one binary, one module per area.

mod mail;
