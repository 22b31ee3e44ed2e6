//! The router: the free endpoints, the paid `/api/v1` operations behind
//! [`pipeline::paid`], the developer dashboard, and the layers of [`pipeline`] in their
//! order.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::routing::get;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;

use crate::app::App;
use crate::cdn;
use crate::error::{not_found, overloaded, panicked};
use crate::pipeline;
use crate::routes;

/// The router: free endpoints, paid `/api/v1` operations behind [`pipeline::paid`], and the
/// layers of [`pipeline`] in their order (the last `layer` call is the outermost).
pub fn router(app: Arc<App>) -> Router {
    let request_timeout = Duration::from_millis(app.settings.server.request_timeout_ms);
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
    // The dashboard's pages answer HTML (and redirects), which `finalize` passes through; they
    // see the client address as the API does (trusted proxies applied).
    let dashboard = forumdex_dashboard::router(Arc::clone(&app.dashboard))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            pipeline::client_addr,
        ))
        .route_layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(overloaded))
                .timeout(request_timeout),
        );
    let overload = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(overloaded))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(
            app.settings.server.max_concurrent_requests,
        ))
        .layer(CatchPanicLayer::custom(panicked));
    Router::new()
        .merge(free)
        .merge(paid)
        .merge(dashboard)
        .fallback(not_found)
        .layer(overload)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            pipeline::finalize,
        ))
        // Outermost: every answer as finally written, HTML and JSON alike, compressed (gzip
        // or zstd) when the client accepts it; images (the CDN's AVIF) and bodies under 32
        // bytes are sent as they are.
        .layer(CompressionLayer::new())
        .with_state(app)
}
