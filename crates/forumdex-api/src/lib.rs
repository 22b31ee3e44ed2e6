//! The forumdex HTTP service: the paid JSON API of api-contract.md and the free operational
//! endpoints, on axum. The HTTP layer only reads the corpus; it writes only the accounts
//! ledger (one charge per successful operation).
//!
//! - [`settings`]: the typed settings tree; [`server`]: build, bind, serve, shut down.
//! - [`app`]: shared state and the router; [`pipeline`]: the middleware in its order.
//! - [`error`]: the error type and the contract's error body; [`query`]: strict query
//!   strings; [`client_ip`]: trusted-proxy aware client addresses.
//! - [`routes`]: the handlers; [`wire`]: the contract's JSON shapes (`forumdex-types`)
//!   built from the store's documents; [`cdn`]: the image CDN origin and CDN URLs in served
//!   content.

pub mod app;
pub mod cdn;
pub mod client_ip;
pub mod cursor;
pub mod error;
pub mod metrics;
pub mod pipeline;
pub mod query;
pub mod routes;
pub mod server;
pub mod settings;
pub mod wire;

pub use app::App;
pub use server::Server;
pub use settings::Settings;
