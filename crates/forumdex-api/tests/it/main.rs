//! Integration tests of the HTTP API: [`harness::TestApp`] over a temporary data folder,
//! in-process by default (a real socket where the test is about the socket), driven with
//! `reqwest` requests. One binary (STYLE.md).

mod auth;
mod checks;
mod compression;
mod contract;
mod dashboard;
mod errors;
mod faults;
mod fuzz;
mod harness;
mod images;
mod metering;
mod ops;
mod race;
mod removals;
mod resources;
mod search;
mod semantic;
mod shared_limits;
mod tls;
mod two_factor;
