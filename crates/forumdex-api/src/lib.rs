//! forumdex-api
