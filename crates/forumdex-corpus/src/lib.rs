//! forumdex-corpus
