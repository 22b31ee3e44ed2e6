//! The image CDN: the origin route that serves AVIF objects (free, no key), and the rewriting
//! of cached images' `src` URLs in served content to `{cdn_url}/{sha256}.avif`.
//!
//! Objects are immutable and content-addressed, so the origin answers with a strong ETag (the
//! SHA-256), `Cache-Control: public, max-age=31536000, immutable`, `304 Not Modified` for a
//! matching `If-None-Match`, and single byte ranges (`206`, or `416` past the end; an
//! `If-Range` that does not match sends the whole object). Unknown or malformed names are a
//! JSON 404.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forumdex_corpus::html::{img_tags, rewrite_img_sources};
use forumdex_corpus::{CachedImage, CorpusRead, Millis, PostDoc, ProfileDoc, StoreError, TopicDoc};
use forumdex_images::is_object_name;
use forumdex_search::Hit;

use crate::app::App;
use crate::error::{ApiError, blocking};
use crate::query::truncate;
use crate::wire::Links;

/// `Cache-Control` of every object.
pub const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";
/// The media type of every object.
pub const MIME_TYPE: &str = "image/avif";

/// The router path of the origin for `cdn_url`: its path part plus `/{object}` (`/cdn/{object}`
/// for the default `{base_url}/cdn`).
pub fn route_path(cdn_url: &str) -> String {
    let after_scheme = cdn_url.split_once("://").map_or(cdn_url, |(_, rest)| rest);
    let path = after_scheme
        .find('/')
        .map_or("", |at| &after_scheme[at..])
        .trim_end_matches('/');
    format!("{path}/{{object}}")
}

/// `GET {cdn path}/{sha256}.avif`.
pub async fn object(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound(format!("no image object {:?}", truncate(&name)));
    let Some(sha256) = name
        .strip_suffix(".avif")
        .filter(|s| is_object_name(s))
        .map(str::to_owned)
    else {
        return Err(not_found());
    };
    let objects = Arc::clone(&app.images);
    let wanted = sha256.clone();
    let bytes = blocking(move || objects.get(&wanted))
        .await?
        .ok_or_else(not_found)?;
    let etag = format!("\"{sha256}\"");
    let mut response = if matches_any(headers.get(header::IF_NONE_MATCH), &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        match requested_range(&headers, &etag, bytes.len() as u64) {
            RangeAnswer::Whole => full(bytes),
            RangeAnswer::Part(start, end) => partial(&bytes, start, end),
            RangeAnswer::Unsatisfiable => {
                let mut response = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
                response.headers_mut().insert(
                    header::CONTENT_RANGE,
                    header_value(&format!("bytes */{}", bytes.len())),
                );
                return Ok(response);
            }
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, header_value(&etag));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    Ok(response)
}

fn full(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, MIME_TYPE)], Body::from(bytes)).into_response()
}

fn partial(bytes: &[u8], start: u64, end: u64) -> Response {
    let range = format!("bytes {start}-{end}/{}", bytes.len());
    let part = bytes[start as usize..=end as usize].to_vec();
    let mut response = (
        StatusCode::PARTIAL_CONTENT,
        [(header::CONTENT_TYPE, MIME_TYPE)],
        Body::from(part),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_RANGE, header_value(&range));
    response
}

/// Whether an `If-None-Match` list names `etag` (weak comparison, `*` matches anything).
fn matches_any(if_none_match: Option<&HeaderValue>, etag: &str) -> bool {
    let Some(list) = if_none_match.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    list.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// What a `Range` header asks of an object of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
enum RangeAnswer {
    /// No (usable) range: the whole object.
    Whole,
    /// Bytes `start..=end`.
    Part(u64, u64),
    /// A single range that starts past the end.
    Unsatisfiable,
}

/// One `bytes=` range, honoured only when `If-Range` (if any) names the object's ETag.
/// Several ranges, other units or malformed values are ignored, as RFC 9110 allows.
fn requested_range(headers: &HeaderMap, etag: &str, len: u64) -> RangeAnswer {
    let Some(range) = headers.get(header::RANGE).and_then(|v| v.to_str().ok()) else {
        return RangeAnswer::Whole;
    };
    if let Some(if_range) = headers.get(header::IF_RANGE)
        && if_range.to_str().ok().map(str::trim) != Some(etag)
    {
        return RangeAnswer::Whole;
    }
    let Some(spec) = range.trim().strip_prefix("bytes=") else {
        return RangeAnswer::Whole;
    };
    if spec.contains(',') {
        return RangeAnswer::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return RangeAnswer::Whole;
    };
    let number = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (first.trim(), last.trim()) {
        ("", suffix) => match number(suffix) {
            Some(0) => RangeAnswer::Unsatisfiable,
            Some(n) if len > 0 => RangeAnswer::Part(len.saturating_sub(n), len - 1),
            Some(_) => RangeAnswer::Unsatisfiable,
            None => RangeAnswer::Whole,
        },
        (start, "") => match number(start) {
            Some(s) if s < len => RangeAnswer::Part(s, len - 1),
            Some(_) => RangeAnswer::Unsatisfiable,
            None => RangeAnswer::Whole,
        },
        (start, end) => match (number(start), number(end)) {
            (Some(s), Some(e)) if s <= e && s < len => RangeAnswer::Part(s, e.min(len - 1)),
            (Some(s), Some(e)) if s <= e => RangeAnswer::Unsatisfiable,
            _ => RangeAnswer::Whole,
        },
    }
}

fn header_value(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).expect("ETags and ranges are ASCII")
}

/// Cached images by source URL.
pub type CachedImages = HashMap<String, CachedImage>;

/// The cached images of every `src` in `html_sources` at `seq`, in one store call.
pub fn cached_images<'a>(
    corpus: &dyn CorpusRead,
    sources: impl IntoIterator<Item = &'a str>,
    seq: i64,
) -> Result<CachedImages, StoreError> {
    let mut urls: Vec<&str> = sources.into_iter().collect();
    urls.sort_unstable();
    urls.dedup();
    if urls.is_empty() {
        return Ok(CachedImages::new());
    }
    corpus.cached_images(&urls, seq)
}

/// The cached images of search hits at the newest snapshot, and that snapshot's sequence.
/// When no hit shows an image the store is not asked (the sequence is then 0 and the map
/// empty): plain searches pay nothing for images.
pub fn hit_images(
    corpus: &dyn CorpusRead,
    hits: &[Hit],
    now: Millis,
) -> Result<(CachedImages, i64), StoreError> {
    if hits.iter().all(|hit| hit.images.is_empty()) {
        return Ok((CachedImages::new(), 0));
    }
    let seq = corpus.snapshot(now)?.seq;
    let sources = hits
        .iter()
        .flat_map(|hit| hit.images.iter().map(String::as_str));
    Ok((cached_images(corpus, sources, seq)?, seq))
}

/// Documents whose posts carry HTML that may show images.
pub trait WithContent {
    /// The full posts inside (summaries have no content).
    fn posts_mut(&mut self) -> Vec<&mut PostDoc>;
}

impl WithContent for PostDoc {
    fn posts_mut(&mut self) -> Vec<&mut PostDoc> {
        vec![self]
    }
}

impl WithContent for TopicDoc {
    fn posts_mut(&mut self) -> Vec<&mut PostDoc> {
        self.first_post.iter_mut().collect()
    }
}

impl WithContent for ProfileDoc {
    fn posts_mut(&mut self) -> Vec<&mut PostDoc> {
        Vec::new()
    }
}

impl WithContent for Vec<PostDoc> {
    fn posts_mut(&mut self) -> Vec<&mut PostDoc> {
        self.iter_mut().collect()
    }
}

/// Points the `src` of every cached image in `doc`'s posts at the CDN (as seen at `seq`).
pub fn use_cdn_urls(
    corpus: &dyn CorpusRead,
    links: &Links,
    doc: &mut impl WithContent,
    seq: i64,
) -> Result<(), StoreError> {
    let mut posts = doc.posts_mut();
    let sources: Vec<String> = posts
        .iter()
        .flat_map(|post| {
            img_tags(&post.content_html)
                .into_iter()
                .map(|t| t.src.to_owned())
        })
        .collect();
    let cached = cached_images(corpus, sources.iter().map(String::as_str), seq)?;
    if cached.is_empty() {
        return Ok(());
    }
    for post in &mut posts {
        post.content_html = rewrite_img_sources(&post.content_html, |src| {
            cached
                .get(src)
                .map(|image| links.image(&image.object.sha256))
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(value: &str, len: u64) -> RangeAnswer {
        let mut headers = HeaderMap::new();
        headers.insert(header::RANGE, HeaderValue::from_str(value).unwrap());
        requested_range(&headers, "\"e\"", len)
    }

    #[test]
    fn ranges_follow_rfc_9110() {
        assert_eq!(range("bytes=0-9", 100), RangeAnswer::Part(0, 9));
        assert_eq!(range("bytes=90-200", 100), RangeAnswer::Part(90, 99));
        assert_eq!(range("bytes=10-", 100), RangeAnswer::Part(10, 99));
        assert_eq!(range("bytes=-10", 100), RangeAnswer::Part(90, 99));
        assert_eq!(range("bytes=-500", 100), RangeAnswer::Part(0, 99));
        assert_eq!(range("bytes=100-", 100), RangeAnswer::Unsatisfiable);
        assert_eq!(range("bytes=100-200", 100), RangeAnswer::Unsatisfiable);
        assert_eq!(range("bytes=-0", 100), RangeAnswer::Unsatisfiable);
        for ignored in [
            "bytes=9-0",
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=a-b",
            "bytes=",
            "bytes=+1-2",
        ] {
            assert_eq!(range(ignored, 100), RangeAnswer::Whole, "{ignored}");
        }
    }

    #[test]
    fn if_range_must_name_the_object() {
        let mut headers = HeaderMap::new();
        headers.insert(header::RANGE, HeaderValue::from_static("bytes=0-1"));
        headers.insert(header::IF_RANGE, HeaderValue::from_static("\"other\""));
        assert_eq!(requested_range(&headers, "\"e\"", 10), RangeAnswer::Whole);
        headers.insert(header::IF_RANGE, HeaderValue::from_static("\"e\""));
        assert_eq!(
            requested_range(&headers, "\"e\"", 10),
            RangeAnswer::Part(0, 1)
        );
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let etag = "\"abc\"";
        for (value, matches) in [
            ("\"abc\"", true),
            ("W/\"abc\"", true),
            ("\"x\", \"abc\"", true),
            ("*", true),
            ("\"abcd\"", false),
            ("abc", false),
        ] {
            let header = HeaderValue::from_static(value);
            assert_eq!(matches_any(Some(&header), etag), matches, "{value}");
        }
        assert!(!matches_any(None, etag));
    }

    #[test]
    fn route_path_follows_the_cdn_url() {
        assert_eq!(route_path("http://127.0.0.1:8080/cdn"), "/cdn/{object}");
        assert_eq!(route_path("https://cdn.example.com/"), "/{object}");
        assert_eq!(
            route_path("https://x.org/static/img/"),
            "/static/img/{object}"
        );
    }
}
