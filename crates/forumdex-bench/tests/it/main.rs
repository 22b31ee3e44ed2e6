//! Integration tests of forumdex-bench: the known-item query generator on corpora made here
//! (checked against a brute-force oracle) and on the real sample, measured as
//! `forumdex relevance` measures.

mod known_items;
mod sample;
