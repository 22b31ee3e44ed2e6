//! forumdex-crawl's integration tests: one binary, a module per area.

mod fetch;
mod fixture;
mod parse_pages;
mod replay;
mod state;
