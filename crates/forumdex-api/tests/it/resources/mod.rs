//! Lookups and collections over a real server and a seeded corpus: every response checked
//! against the contract's tables and against answers computed independently from the
//! imported lines ([`model`]).

mod collections;
mod cursors;
mod fixture;
mod lookups;
mod model;
pub mod shapes;
mod validation;
