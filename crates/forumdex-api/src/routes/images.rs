//! `GET /api/v1/images/search` (searchForumImages): the cached images of the posts that match
//! a query, as CDN URLs.
//!
//! The post search runs as for `/api/v1/search` (same `q`, `lang`, `freshness` and
//! `include_low_quality` handling) over posts that contain an `<img>`; since a post's
//! searchable text includes its images' `alt` text, descriptions and the text around an image
//! both rank it. The best [`MATCH_WINDOW`] matching posts are walked in rank order and their
//! cached images collected ([`crate::image_search`]), each object once (the first,
//! best-ranked post it appears in is the one reported). Images whose corpus NSFW score is at
//! least [`crate::image_search::NSFW_THRESHOLD`] are left out unless `hide_nsfw=0`; an image without a score is never hidden. `total` counts the
//! distinct images found in the walked posts, `images` holds the first `size` of them.

use std::sync::Arc;

use axum::Json;
use axum::extract::{RawQuery, State};
use forumdex_corpus::{Millis, parse_canonical};
use forumdex_types::{
    BoardScope, Image, ImageObject, ImageSearchObject, ImageSearchResponse, MimeType,
};

use crate::app::App;
use crate::error::{ApiError, blocking};
use crate::image_search::{ImageQuery, find_images};
use crate::query::{QueryParams, truncate};
use crate::routes::search::{parse_request, with_takedowns};
use crate::wire;

/// The parameters of the endpoint.
pub const PARAMETERS: &[&str] = &[
    "q",
    "lang",
    "freshness",
    "include_low_quality",
    "size",
    "hide_nsfw",
];
/// Images returned when `size` is not given.
pub const DEFAULT_SIZE: usize = 24;
/// The largest `size`.
pub const MAX_SIZE: usize = 50;
/// Matching posts walked for images, best first.
pub const MATCH_WINDOW: usize = 200;

/// searchForumImages.
pub async fn search_images(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Result<Json<ImageSearchResponse>, ApiError> {
    let params = QueryParams::parse(query.as_deref(), PARAMETERS)?;
    let mut request = parse_request(&params)?;
    request.images_only = true;
    request.limit = MATCH_WINDOW;
    let size = parse_size(params.get("size"))?;
    let hide_nsfw = match params.get("hide_nsfw") {
        None => true,
        Some("0") => false,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "invalid hide_nsfw {:?}: the only allowed value is 0",
                truncate(other)
            )));
        }
    };
    app.search_sync.require_caught_up(&app.search)?;
    let indexes = Arc::clone(&app.search);
    let corpus = Arc::clone(&app.corpus);
    let now = Millis::now(&*app.clock);
    let query = ImageQuery { size, hide_nsfw };
    let (results, found) = blocking(move || -> Result<_, ApiError> {
        let request = with_takedowns(request, corpus.as_ref())?;
        let results = forumdex_search::search(&indexes, &request)?;
        let found = find_images(corpus.as_ref(), &results.hits, query, now)?;
        Ok((results, found))
    })
    .await?;
    let links = &app.links;
    Ok(Json(ImageSearchResponse {
        object: ImageSearchObject::ImageSearch,
        query: results.query,
        corrected_query: results.corrected_query,
        lang: results.lang,
        board_scope: BoardScope::All,
        hide_nsfw,
        post_matches_considered: results.hits.len() as u64,
        total: found.total as u64,
        images: found
            .images
            .iter()
            .map(|found| Image {
                object: ImageObject::Image,
                url: links.image(&found.image.object.sha256),
                sha256: found.image.object.sha256.clone(),
                mime_type: MimeType::Avif,
                bytes: found.image.object.bytes,
                nsfw_score: found.image.nsfw_score,
                post: wire::post_summary(&found.post, links),
            })
            .collect(),
    }))
}

/// `size`: a whole number from 1 to [`MAX_SIZE`]; [`DEFAULT_SIZE`] when absent.
fn parse_size(raw: Option<&str>) -> Result<usize, ApiError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_SIZE);
    };
    parse_canonical(raw, 1..=MAX_SIZE as u64)
        .map(|size| size as usize)
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "invalid size {:?}: expected an integer from 1 to {MAX_SIZE}",
                truncate(raw)
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_whole_numbers_from_1_to_50() {
        assert_eq!(parse_size(None).unwrap(), DEFAULT_SIZE);
        assert_eq!(parse_size(Some("1")).unwrap(), 1);
        assert_eq!(parse_size(Some("50")).unwrap(), 50);
        for bad in [
            "0",
            "51",
            "-1",
            "+5",
            "5.0",
            "1e1",
            "",
            " 5",
            "07",
            "99999999999999999999999",
        ] {
            assert!(parse_size(Some(bad)).is_err(), "{bad}");
        }
    }
}
