//! forumdex-accounts
