//! forumdex-generate
