//! `GET /api/v1/search` (searchForumPosts): ranked post search over the language indexes.
//!
//! Parameters (strict, see [`QueryParams`]): `q` (required, 1 to 512 characters), `lang`
//! (`^[a-z]{2}(?:-[A-Z]{2})?$`), `freshness` and `include_low_quality` (only `1`). Anything
//! else is a 400. The search runs off the async threads; an index failure is a 503. Ranking,
//! languages and the quality filter are described in `forumdex_search::search`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{RawQuery, State};
use forumdex_corpus::text::replace_image_markers;
use forumdex_corpus::{CorpusRead, Millis, TakedownSet};
use forumdex_search::search::DEFAULT_LIMIT;
use forumdex_search::search::RankFactors;
use forumdex_search::{Hit, LangCode, SearchRequest, SearchResults};
use forumdex_types::{BoardScope, DateSource, RankSource, SearchHit, SearchResponse};

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
    app.search_sync.require_caught_up(&app.search)?;
    let indexes = Arc::clone(&app.search);
    let corpus = Arc::clone(&app.corpus);
    let now = Millis::now(&*app.clock);
    let (results, cached) = blocking(move || -> Result<_, ApiError> {
        let request = with_takedowns(request, corpus.as_ref())?;
        let results = forumdex_search::search(&indexes, &request)?;
        let (cached, _) = cdn::hit_images(corpus.as_ref(), &results.hits, now)?;
        Ok((results, cached))
    })
    .await?;
    Ok(Json(search_response(results, &cached, &app.links)))
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
        exclude: TakedownSet::default(),
    })
}

/// `request` leaving out what the takedowns in force now remove (read per request, so a
/// takedown applies from the next search on, whatever process recorded it).
pub fn with_takedowns(
    mut request: SearchRequest,
    corpus: &dyn CorpusRead,
) -> Result<SearchRequest, ApiError> {
    request.exclude = corpus.takedowns_in_force()?;
    Ok(request)
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

/// The wire form of `results`, cached images pointing at the CDN.
pub fn search_response(
    results: SearchResults,
    cached: &CachedImages,
    links: &Links,
) -> SearchResponse {
    SearchResponse {
        query: results.query,
        corrected_query: results.corrected_query,
        lang: results.lang,
        board_scope: BoardScope::All,
        index: results.index,
        did_you_mean: results.did_you_mean,
        hybrid: results.hybrid,
        freshness: results.freshness,
        answer_seeking: results.answer_seeking,
        total: results.total,
        hits: results
            .hits
            .into_iter()
            .map(|hit| search_hit(hit, cached, links))
            .collect(),
    }
}

/// The wire form of one hit, cached images pointing at the CDN.
pub fn search_hit(mut hit: Hit, cached: &CachedImages, links: &Links) -> SearchHit {
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
    SearchHit {
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
            DateSource::IndexedAt
        } else {
            DateSource::PostedAt
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
        rank_source: rank_source(hit.rank_factors),
        ranking_model_version: hit.ranking_model_version,
        search_index: hit.search_index,
    }
}

/// The wire value of the factors that ranked a hit.
fn rank_source(factors: RankFactors) -> RankSource {
    RankSource {
        words: factors.words,
        typo: factors.typo,
        proximity: factors.proximity,
        exactness: factors.exactness,
        freshness: factors.freshness,
        answer: factors.answer,
        semantic: factors.semantic,
    }
}
