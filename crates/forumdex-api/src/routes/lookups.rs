//! `GET /api/v1/posts/{id}`, `/topics/{id}`, `/profiles/{id}`: one canonical document at the
//! newest snapshot; 404 when unknown, 400 for a malformed id or any query parameter.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use forumdex_corpus::Millis;

use crate::app::App;
use crate::error::{ApiError, blocking};
use crate::query::QueryParams;
use crate::routes::path_id;
use crate::wire::{Post, Profile, Topic};

/// getForumPost.
pub async fn post(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Post>, ApiError> {
    QueryParams::parse(query.as_deref(), &[])?;
    let id = path_id(&raw_id, "post")?.get();
    let corpus = Arc::clone(&app.corpus);
    let found = blocking(move || {
        let snapshot = corpus.snapshot(Millis::now())?;
        corpus.post(id, snapshot.seq)
    })
    .await?;
    let post = found.ok_or_else(|| ApiError::NotFound(format!("post {id} not found")))?;
    Ok(Json(Post::new(&post, &app.links)))
}

/// getForumTopic.
pub async fn topic(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Topic>, ApiError> {
    QueryParams::parse(query.as_deref(), &[])?;
    let id = path_id(&raw_id, "topic")?.get();
    let corpus = Arc::clone(&app.corpus);
    let found = blocking(move || {
        let snapshot = corpus.snapshot(Millis::now())?;
        corpus.topic(id, snapshot.seq)
    })
    .await?;
    let topic = found.ok_or_else(|| ApiError::NotFound(format!("topic {id} not found")))?;
    Ok(Json(Topic::new(&topic, &app.links)))
}

/// getForumProfile.
pub async fn profile(
    State(app): State<Arc<App>>,
    Path(raw_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Profile>, ApiError> {
    QueryParams::parse(query.as_deref(), &[])?;
    let id = path_id(&raw_id, "profile")?.get();
    let corpus = Arc::clone(&app.corpus);
    let found = blocking(move || {
        let snapshot = corpus.snapshot(Millis::now())?;
        corpus.profile(id, snapshot.seq)
    })
    .await?;
    let profile = found.ok_or_else(|| ApiError::NotFound(format!("profile {id} not found")))?;
    Ok(Json(Profile::new(&profile, &app.links)))
}
