//! The forumdex HTTP service: the paid JSON API of api-contract.md and the free operational
//! endpoints, on axum. The HTTP layer only reads the corpus; it writes only the accounts
//! ledger (one charge per successful operation).
//!
//! - [`server`]: build, bind, serve, shut down (from `forumdex-settings`' tree);
//!   [`background`]: garbage collection and the search sync; [`clock`]: the injected time.
//! - [`app`]: shared state; [`router`]: the routes and layers; [`pipeline`]: the
//!   middleware in its order.
//! - [`error`]: the error type, every conversion into it and the contract's error body;
//!   [`query`]: strict query strings; [`client_ip`]: trusted-proxy aware client addresses.
//! - [`routes`]: the handlers; [`wire`]: the contract's JSON shapes (`forumdex-types`)
//!   built from the store's documents; [`cdn`]: the image
//!   CDN origin and CDN URLs in served content; [`image_search`]: image search's domain work.
//! - [`dashboard`]: the developer dashboard (`forumdex-dashboard`) built from the settings and
//!   merged beside the API; [`usage`]: per-key request counts for its usage pages.

pub mod app;
pub mod background;
pub mod cdn;
pub mod client_ip;
pub mod clock;
pub mod cursor;
pub mod dashboard;
pub mod error;
pub mod image_search;
pub mod metrics;
pub mod pipeline;
pub mod query;
pub mod rate_headers;
pub mod request_log;
pub mod router;
pub mod routes;
pub mod search_sync;
pub mod server;
pub mod usage;
pub mod wire;

pub use app::App;
pub use clock::{Clock, ManualClock, SharedClock, SystemClock};
pub use server::Server;
