//! Integration tests of the importer: real corpus files (plain, gzip, zstd) imported into
//! real SQLite stores in temp folders.

mod compression;
mod images;
mod language;
mod reimport;
mod rejections;
mod sample;
mod support;
