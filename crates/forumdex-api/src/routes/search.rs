//! `GET /api/v1/search` (searchForumPosts): ranked post search over the language indexes.
//!
//! Parameters (strict, see [`QueryParams`]): `q` (required, 1 to 512 characters), `lang`
//! (`^[a-z]{2}(?:-[A-Z]{2})?$`), `freshness` and `include_low_quality` (only `1`). Anything
//! else is a 400. The search runs off the async threads; an index failure is a 503. Ranking,
//! languages and the quality filter are described in `forumdex_search::search`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{RawQuery, State};
use forumdex_corpus::text::replace_image_markers;
use forumdex_search::search::{DEFAULT_LIMIT, RANKING_MODEL_VERSION};
use forumdex_search::{Hit, LangCode, SearchRequest, SearchResults};
use serde::Serialize;

use crate::app::App;
use crate::cdn::{self, CachedImages};
use crate::error::{ApiError, blocking};
use crate::query::{QueryParams, truncate};
use crate::wire::Links;

/// The parameters of the endpoint.
pub const PARAMETERS: &[&str] = &["q", "lang", "freshness", "include_low_quality"];
/// The longest query, in Unicode characters.
pub const MAX_QUERY_CHARS: usize = 512;

/// searchForumPosts.
pub async fn search(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Result<Json<SearchResponse>, ApiError> {
    let params = QueryParams::parse(query.as_deref(), PARAMETERS)?;
    let request = parse_request(&params)?;
    let indexes = Arc::clone(&app.search);
    let corpus = Arc::clone(&app.corpus);
    let now = app.clock.now_millis();
    let (results, cached) = blocking(move || -> Result<_, ApiError> {
        let results = forumdex_search::search(&indexes, &request)?;
        let (cached, _) = cdn::hit_images(corpus.as_ref(), &results.hits, now)?;
        Ok((results, cached))
    })
    .await?;
    Ok(Json(SearchResponse::new(results, &cached, &app.links)))
}

/// Validates the parameters into a [`SearchRequest`].
pub fn parse_request(params: &QueryParams) -> Result<SearchRequest, ApiError> {
    let q = params
        .get("q")
        .ok_or_else(|| ApiError::BadRequest("query parameter \"q\" is required".to_owned()))?;
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::BadRequest(format!(
            "query parameter \"q\" is longer than {MAX_QUERY_CHARS} characters"
        )));
    }
    let lang = match params.get("lang") {
        Some(raw) => Some(LangCode::parse(raw).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "invalid language code {:?}: expected xx or xx-YY, like en or pt-BR",
                truncate(raw)
            ))
        })?),
        None => None,
    };
    Ok(SearchRequest {
        query: q.to_owned(),
        lang,
        freshness: flag(params, "freshness")?,
        include_low_quality: flag(params, "include_low_quality")?,
        limit: DEFAULT_LIMIT,
        images_only: false,
    })
}

/// A parameter whose only allowed value is `1`.
fn flag(params: &QueryParams, name: &str) -> Result<bool, ApiError> {
    match params.get(name) {
        None => Ok(false),
        Some("1") => Ok(true),
        Some(other) => Err(ApiError::BadRequest(format!(
            "invalid {name} {:?}: the only allowed value is 1",
            truncate(other)
        ))),
    }
}

/// `board_scope` of post and image search responses: neither takes a board filter, so
/// every board is searched.
pub const ALL_BOARDS: &str = "all";

/// SearchResponse of the contract.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    /// The query as sent.
    pub query: String,
    /// The query whose hits are returned, when a spelling correction was applied.
    pub corrected_query: Option<String>,
    /// The requested language, or `all` when none was given.
    pub lang: String,
    /// The boards searched: always [`ALL_BOARDS`] (search has no board filter).
    pub board_scope: &'static str,
    /// The index searched (`en`, `pt`, ... or `all`).
    pub index: String,
    /// A better query, when the original was kept.
    pub did_you_mean: Option<String>,
    /// Always false: lexical search only.
    pub hybrid: bool,
    /// Whether the freshness preference was applied.
    pub freshness: bool,
    /// Whether the query was read as a question.
    pub answer_seeking: bool,
    /// Matching posts, after the quality filter.
    pub total: u64,
    /// The best hits.
    pub hits: Vec<SearchHit>,
}

/// SearchHit of the contract (plus `is_op`, `url` and `date_source`).
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    /// Post ID.
    pub post_id: i64,
    /// Topic ID.
    pub topic_id: i64,
    /// The post's subject.
    pub title: String,
    /// The subject without `Re: `.
    pub topic_title: String,
    /// The post's own subject.
    pub post_title: Option<String>,
    /// Plain text of the post; images appear as their `alt` text and URL (the CDN URL when
    /// cached).
    pub content: String,
    /// Author username.
    pub author: String,
    /// Author profile ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author_uid: Option<i64>,
    /// `posted_at`; for an undated post, when it was indexed (see `date_source`).
    pub date: String,
    /// `posted_at` or `indexed_at`.
    pub date_source: &'static str,
    /// Board ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_id: Option<i64>,
    /// Board name.
    pub board_name: String,
    /// The post's language, or `und`.
    pub lang: String,
    /// Whether it opens its topic.
    pub is_op: bool,
    /// Link to the post on the forum.
    pub url: String,
    /// `<mark>`ed fragments by field; null when nothing could be highlighted.
    pub highlight: Option<BTreeMap<String, Vec<String>>>,
    /// Final score.
    pub score: f64,
    /// Spam likelihood, 0..1.
    pub spam_score: f64,
    /// Machine-written style likelihood, 0..1 (weak heuristic).
    pub ai_score: f64,
    /// Usefulness, 0..1.
    pub health_score: f64,
    /// What ranked the hit.
    pub rank_source: String,
    /// Version of the ranking formula.
    pub ranking_model_version: &'static str,
    /// The index the hit came from.
    pub search_index: String,
}

impl SearchResponse {
    /// The wire form of `results`, cached images pointing at the CDN.
    pub fn new(results: SearchResults, cached: &CachedImages, links: &Links) -> Self {
        Self {
            query: results.query,
            corrected_query: results.corrected_query,
            lang: results.lang,
            board_scope: ALL_BOARDS,
            index: results.index,
            did_you_mean: results.did_you_mean,
            hybrid: false,
            freshness: results.freshness,
            answer_seeking: results.answer_seeking,
            total: results.total,
            hits: results
                .hits
                .into_iter()
                .map(|hit| SearchHit::new(hit, cached, links))
                .collect(),
        }
    }
}

impl SearchHit {
    /// The wire form of one hit, cached images pointing at the CDN.
    pub fn new(mut hit: Hit, cached: &CachedImages, links: &Links) -> Self {
        // Markers stand for the post's images: the CDN URL when cached, else the original.
        let urls: Vec<String> = hit
            .images
            .iter()
            .map(|source| match cached.get(source) {
                Some(image) => links.image(&image.object.sha256),
                None => html_escape::decode_html_entities(source).into_owned(),
            })
            .collect();
        hit.content = replace_image_markers(&hit.content, |k| urls.get(k).cloned());
        for fragments in hit.highlight.values_mut() {
            for fragment in fragments {
                *fragment = replace_image_markers(fragment, |k| {
                    urls.get(k)
                        .map(|u| html_escape::encode_text(u).into_owned())
                });
            }
        }
        Self {
            post_id: hit.post_id,
            topic_id: hit.topic_id,
            url: links.post(hit.topic_id, hit.post_id),
            post_title: Some(hit.title.clone()),
            title: hit.title,
            topic_title: hit.topic_title,
            content: hit.content,
            author: hit.author,
            author_uid: hit.author_uid,
            date: hit.date.to_rfc3339(),
            date_source: if hit.undated {
                "indexed_at"
            } else {
                "posted_at"
            },
            board_id: hit.board_id,
            board_name: hit.board_name,
            lang: hit.lang,
            is_op: hit.is_op,
            highlight: (!hit.highlight.is_empty()).then_some(hit.highlight),
            score: hit.score,
            spam_score: hit.spam_score,
            ai_score: hit.ai_score,
            health_score: hit.health_score,
            rank_source: hit.rank_source,
            ranking_model_version: RANKING_MODEL_VERSION,
            search_index: hit.search_index,
        }
    }
}
