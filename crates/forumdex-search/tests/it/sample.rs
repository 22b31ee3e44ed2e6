//! Known-item search on the real sample (skipped when the file is absent).
