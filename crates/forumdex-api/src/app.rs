//! Shared state ([`App`], one `Arc` for every request) and the router with its middleware.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use forumdex_accounts::{AccountStore, RateLimiter};
use forumdex_corpus::CorpusStore;
use forumdex_images::ImageObjects;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::catch_panic::CatchPanicLayer;

use crate::cdn;
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::pipeline;
use crate::routes;
use crate::settings::Settings;
use crate::wire::Links;

/// Everything a request may need.
pub struct App {
    /// The resolved settings.
    pub settings: Settings,
    /// The corpus (read only from here).
    pub corpus: Arc<dyn CorpusStore>,
    /// Accounts, keys and credits.
    pub accounts: Arc<dyn AccountStore>,
    /// Per-key rate limits.
    pub rate_limiter: Arc<dyn RateLimiter>,
    /// Secret that signs collection cursors.
    pub cursor_secret: [u8; 32],
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// How forum and CDN URLs are built.
    pub links: Links,
    /// The language indexes of post search (kept in sync by the server).
    pub search: Arc<forumdex_search::SearchIndexes>,
    /// The AVIF objects the CDN origin serves.
    pub images: Arc<dyn ImageObjects>,
}

/// The router: free endpoints, paid `/api/v1` operations behind [`pipeline::paid`], and the
/// layers of [`pipeline`] in their order (the last `layer` call is the outermost).
pub fn router(app: Arc<App>) -> Router {
    let request_timeout = Duration::from_millis(app.settings.request_timeout_ms);
    // `paid` bounds the operation by `request_timeout_ms` itself: a timeout around it could
    // fire while the debit commits and answer 503 for a request that was charged.
    let paid = Router::new()
        .route("/api/v1/search", get(routes::search::search))
        .route("/api/v1/images/search", get(routes::images::search_images))
        .route("/api/v1/posts/{id}", get(routes::lookups::post))
        .route("/api/v1/topics/{id}", get(routes::lookups::topic))
        .route("/api/v1/profiles/{id}", get(routes::lookups::profile))
        .route(
            "/api/v1/topics/{id}/posts",
            get(routes::collections::topic_posts),
        )
        .route(
            "/api/v1/profiles/{id}/posts",
            get(routes::collections::profile_posts),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            pipeline::paid,
        ));
    let free = Router::new()
        .route("/healthz", get(routes::health::healthz))
        .route("/readyz", get(routes::health::readyz))
        .route("/metrics", get(routes::health::metrics))
        .route("/api/v1/openapi.json", get(routes::openapi::document))
        .route(&cdn::route_path(&app.links.cdn_url), get(cdn::object))
        .route_layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(overloaded))
                .timeout(request_timeout),
        );
    let overload = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(overloaded))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(
            app.settings.max_concurrent_requests,
        ))
        .layer(CatchPanicLayer::custom(panicked));
    Router::new()
        .merge(free)
        .merge(paid)
        .fallback(not_found)
        .layer(overload)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            pipeline::finalize,
        ))
        .with_state(app)
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such route".to_owned())
}

async fn overloaded(err: tower::BoxError) -> Response {
    let message = if err.is::<tower::timeout::error::Elapsed>() {
        "the request took too long; retry later"
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        "the service is overloaded; retry later"
    } else {
        "the service could not complete the request; retry later"
    };
    ApiError::Unavailable(message.to_owned()).into_response()
}

fn panicked(_panic: Box<dyn std::any::Any + Send>) -> Response {
    tracing::error!("a request handler panicked");
    let mut response = ApiError::Internal.into_response();
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}
