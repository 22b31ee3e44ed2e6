//! Importing corpus files: reading (plain, gzip, zstd, stdin) line by line with flat memory,
//! validating each line into an observation, giving posts without a language their board's
//! or their text's, and handing batches to the [`forumdex_corpus::CorpusWrite`], each batch
//! atomic under one sequence.

pub mod boards;
pub mod images;
pub mod import;
pub mod language;
pub mod source;

pub use import::{ImportOptions, ImportSummary, Rejection, import_files};
