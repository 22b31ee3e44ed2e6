//! forumdex-ingest
