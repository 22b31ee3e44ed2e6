//! Integration tests of forumdex-search: real tantivy indexes and a real SQLite corpus in
//! temp folders.

mod helpers;
mod known_items;
mod languages;
mod ranking;
mod sample;
mod semantic;
mod spelling;
mod sync;
mod tiers;
