//! Handlers: thin functions that validate input into domain types, call the store off the
//! async threads, and convert the result into wire types.

pub mod collections;
pub mod health;
pub mod images;
pub mod lookups;
pub mod openapi;
pub mod search;

use forumdex_corpus::{ForumId, MAX_ID, is_canonical};

use crate::error::ApiError;
use crate::query::truncate;

/// Parses a collection's path ID, `1..=MAX_ID` (`what` names it in the error).
pub fn path_id(raw: &str, what: &str) -> Result<ForumId, ApiError> {
    ForumId::parse(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "invalid {what} id {:?}: expected an integer from 1 to {MAX_ID}",
            truncate(raw)
        ))
    })
}

/// Parses a lookup's path ID. The contract bounds lookup IDs only from below (integers from
/// 1), so a well-formed integer above [`MAX_ID`] is a valid ID that no document can have:
/// `Ok(None)`, answered 404 rather than 400.
pub fn lookup_id(raw: &str, what: &str) -> Result<Option<ForumId>, ApiError> {
    if let Some(id) = ForumId::parse(raw) {
        return Ok(Some(id));
    }
    // Canonical and not an ID, so above the range ("0" is below it: a 400).
    if raw != "0" && is_canonical(raw) {
        Ok(None)
    } else {
        path_id(raw, what).map(Some)
    }
}
