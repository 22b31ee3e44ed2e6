//! Integration tests of the corpus store: the conformance suite every `CorpusWrite`
//! implementation must pass (run here on SQLite in temp folders).

mod canonical;
mod derived;
mod fixtures;
mod listing;
mod snapshots;
