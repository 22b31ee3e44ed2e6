//! `GET /api/v1/posts/{id}`, `/topics/{id}`, `/profiles/{id}`: one canonical document at the
//! newest snapshot; 404 when unknown (including integers beyond the corpus's ID range), 400
//! for a malformed id or any query parameter.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use forumdex_corpus::{CorpusRead, Millis, StoreError};
use forumdex_types::{Post, Profile, Topic};

use crate::app::App;
use crate::cdn::{self, WithContent};
use crate::error::{ApiError, blocking};
use crate::query::{QueryParams, truncate};
use crate::routes::lookup_id;
use crate::wire::{self, Links};

/// getForumPost.
pub async fn post(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Post>, ApiError> {
    lookup(
        app,
        &raw_id,
        query,
        "post",
        |c, id, seq| c.post(id, seq),
        wire::post,
    )
    .await
}

/// getForumTopic.
pub async fn topic(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Topic>, ApiError> {
    lookup(
        app,
        &raw_id,
        query,
        "topic",
        |c, id, seq| c.topic(id, seq),
        wire::topic,
    )
    .await
}

/// getForumProfile.
pub async fn profile(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Profile>, ApiError> {
    lookup(
        app,
        &raw_id,
        query,
        "profile",
        |c, id, seq| c.profile(id, seq),
        wire::profile,
    )
    .await
}

/// Reads one document by ID at a sequence.
type Fetch<Doc> = fn(&dyn CorpusRead, i64, i64) -> Result<Option<Doc>, StoreError>;

/// Validates the request, reads one document at the newest snapshot off the async
/// threads, points its cached images at the CDN, and converts it into its wire type.
async fn lookup<Doc, Wire>(
    app: Arc<App>,
    raw_id: &str,
    query: Option<String>,
    what: &'static str,
    fetch: Fetch<Doc>,
    to_wire: fn(&Doc, &Links) -> Wire,
) -> Result<Json<Wire>, ApiError>
where
    Doc: WithContent + Send + 'static,
{
    QueryParams::parse(query.as_deref(), &[])?;
    let not_found = || ApiError::NotFound(format!("{what} {} not found", truncate(raw_id)));
    let id = lookup_id(raw_id, what)?.ok_or_else(not_found)?.get();
    let corpus = Arc::clone(&app.corpus);
    let links = app.links.clone();
    let now = Millis::now(&*app.clock);
    let found = blocking(move || {
        let snapshot = corpus.snapshot(now)?;
        let mut found = fetch(corpus.as_ref(), id, snapshot.seq)?;
        if let Some(doc) = &mut found {
            cdn::use_cdn_urls(corpus.as_ref(), &links, doc, snapshot.seq)?;
        }
        Ok::<_, StoreError>(found)
    })
    .await?;
    let doc = found.ok_or_else(not_found)?;
    Ok(Json(to_wire(&doc, &app.links)))
}
