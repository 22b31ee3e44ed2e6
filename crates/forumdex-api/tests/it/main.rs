//! Integration tests of the forumdex HTTP API: one test binary, a real server per test.

mod resources;
