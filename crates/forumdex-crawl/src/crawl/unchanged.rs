//! What a page fetched again says that its previous fetch did not: an observation whose
//! record (all but `observed_at`) the previous reading of the same URL already made is
//! left out, so refreshing an unchanged page adds no observations.

use std::collections::HashSet;

use serde_json::Value;

use super::read::{self, Body, Reading};
use crate::parse::PageRef;
use crate::state::{CrawlState, RawPage, StateError};

/// Drops from `lines` the records the previous stored fetch of `url` (the latest recorded
/// before raw page `before_id`) made too; keeps them all when no such fetch is kept.
pub(crate) fn new_lines(
    state: &CrawlState,
    url: &str,
    page: PageRef,
    before_id: i64,
    lines: Vec<String>,
) -> Result<Vec<String>, StateError> {
    let Some(previous) = state.previous_raw_page(url, before_id)? else {
        return Ok(lines);
    };
    let known = records(state, page, &previous)?;
    Ok(lines
        .into_iter()
        .filter(|line| !known.contains(&record(line)))
        .collect())
}

/// The records a stored page makes (read as it was first read, deletions included).
fn records(
    state: &CrawlState,
    page: PageRef,
    raw: &RawPage,
) -> Result<HashSet<String>, StateError> {
    let body = Body {
        page,
        status: raw.status,
        content_type: raw.content_type.as_deref(),
        bytes: &raw.body,
        fetched_at: raw.fetched_at,
        deletions: true,
    };
    let lines = match read::read(state, &body)? {
        Reading::Page { lines, .. } | Reading::Gone { lines } => lines,
        Reading::Blocked(_) | Reading::SetAside(_) => Vec::new(),
    };
    Ok(lines.iter().map(|line| record(line)).collect())
}

/// An observation line without its `observed_at`: the record it states.
fn record(line: &str) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(mut fields)) => {
            fields.remove("observed_at");
            Value::Object(fields).to_string()
        }
        _ => line.to_owned(),
    }
}
