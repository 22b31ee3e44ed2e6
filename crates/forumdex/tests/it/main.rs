//! Integration tests of the `forumdex` binary: one binary, one module per area.

mod accounts;
mod helpers;
