//! Handlers: thin functions that validate input into domain types, call the store off the
//! async threads, and convert the result into wire types.

pub mod collections;
pub mod health;
pub mod images;
pub mod lookups;
pub mod openapi;
pub mod search;

use forumdex_corpus::{ForumId, MAX_ID};

use crate::error::ApiError;
use crate::query::truncate;

/// Parses a path ID (`what` names it in the error).
pub fn path_id(raw: &str, what: &str) -> Result<ForumId, ApiError> {
    ForumId::parse(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "invalid {what} id {:?}: expected an integer from 1 to {MAX_ID}",
            truncate(raw)
        ))
    })
}
