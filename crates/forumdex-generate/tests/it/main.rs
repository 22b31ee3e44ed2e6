//! Integration tests of forumdex-generate: one binary, one module per area.

mod determinism;
mod features;
mod format;
mod helpers;
mod images;
