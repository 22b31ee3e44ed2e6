//! Integration tests of the HTTP API over real sockets: a [`forumdex_api::Server`] bound on
//! port 0 over a temporary data folder, driven with `reqwest`. One binary (STYLE.md).

mod auth;
mod contract;
mod errors;
mod faults;
mod fuzz;
mod helpers;
mod images;
mod metering;
mod ops;
mod race;
mod resources;
mod search;
mod tls;
