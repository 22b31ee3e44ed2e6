//! Integration tests of forumdex-payments: one binary, one module per area.

mod event;
mod signature;
mod stripe;
mod test_provider;
