//! Tests of the wire types against the OpenAPI document they ship with. One binary
//! (STYLE.md): [`samples`] builds a full value of every type, [`schema`] reads the document,
//! [`drift`] fails when the two disagree.

mod drift;
mod samples;
mod schema;
