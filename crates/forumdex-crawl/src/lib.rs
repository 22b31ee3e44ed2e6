//! The forum crawler (`forumdex crawl`): reads an SMF 1.x forum (Bitcointalk) one polite
//! request at a time and turns its pages into corpus-format observations.
//!
//! - [`fetch`]: the polite HTTP client (one request in flight, paced, robots.txt obeyed,
//!   429/503 backoff, request budgets).
//! - [`state`]: the crawl state in `{data}/crawl/state.sqlite` (frontier, fetch log, raw
//!   pages, daily budget, robots cache, refresh schedule), which makes a crawl resumable.

pub mod fetch;
pub mod state;
