//! The forum crawler (`forumdex crawl`): reads an SMF 1.x forum (Bitcointalk) one polite
//! request at a time and turns its pages into corpus-format observations.
//!
//! [`parse`] reads a fetched page into typed data (pure functions, no I/O); [`observe`]
//! turns parsed pages into corpus-format v1 JSON lines.

pub mod observe;
pub mod parse;
