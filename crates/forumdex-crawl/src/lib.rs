//! The forum crawler (`forumdex crawl`): reads an SMF 1.x forum (Bitcointalk) one polite
//! request at a time and turns its pages into corpus-format observations.
//!
//! - [`parse`]: reads a fetched page into typed data (pure functions, no I/O).
//! - [`observe`]: turns parsed pages into corpus-format v1 JSON lines.
//! - [`fetch`]: the polite HTTP client (one request in flight, paced, robots.txt obeyed,
//!   429/503 backoff, request budgets).
//! - [`crawl`]: the crawl loop that ties them together ([`crawl::Crawler`]).
//! - [`state`]: the crawl state (frontier, fetch log, raw pages, daily budget, robots cache,
//!   refresh schedule) in `{data}/crawl/state.sqlite` or the deployment's PostgreSQL
//!   database, which makes a crawl resumable and polite across runs and machines.

mod blocking;
pub mod crawl;
pub mod fetch;
pub mod observe;
pub mod parse;
pub mod state;
