//! The request pipeline (DESIGN.md "Money and limits"), assembled in [`crate::app::router`]:
//!
//! 1. [`finalize`] (outermost): a server-generated request id for every response (a
//!    client-sent `X-Request-Id` is ignored), the contract's JSON body on every non-200,
//!    metrics and one log line per request.
//! 2. Overload: shed when `max_concurrent_requests` are in flight; caught panics become a
//!    JSON 500. Free endpoints answer 503 after `request_timeout_ms`.
//! 3. [`paid`] on `/api/v1` operations, within `request_timeout_ms` (503 after it): GET
//!    only -> authentication (401) -> IP allowlist (403) -> rate limit (429) -> early
//!    balance check (402) -> the handler (validation 400, the operation); then, outside
//!    the time bound so that a charged request is never answered 503, for a 200 only the
//!    debit (402 when it fails) and the metering headers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use forumdex_accounts::{AccountId, AuthError, KeyId, LoggedRequest, RateDecision};
use forumdex_types::ErrorBody;

use crate::app::App;
use crate::client_ip::client_ip;
use crate::error::{ApiError, blocking, error_response};
use crate::rate_headers::insert_rate_headers;
use crate::request_log::logged_path;

/// The server-generated id of the request being served.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The paying caller of an `/api/v1` operation, set by [`paid`] for the handlers.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The account charged.
    pub account_id: AccountId,
    /// The key used.
    pub key_id: KeyId,
}

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Step 1: request id, JSON errors, metrics, logging.
pub async fn finalize(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = uuid::Uuid::new_v4().to_string();
    request.headers_mut().remove(X_REQUEST_ID);
    request
        .extensions_mut()
        .insert(RequestId(request_id.clone()));
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_owned();
    let method = request.method().clone();
    let mut response = next.run(request).await;
    let status = response.status();
    if !is_success(status) && !is_page(&response) {
        let body = match response.extensions_mut().remove::<ErrorBody>() {
            Some(body) => body,
            None => ApiError::for_status(status)
                .into_response()
                .extensions_mut()
                .remove::<ErrorBody>()
                .expect("every ApiError response carries its body"),
        };
        let mut rendered = error_response(body, status, &request_id);
        for name in [
            header::RETRY_AFTER,
            header::ALLOW,
            header::CONTENT_RANGE,
            HeaderName::from_static("x-ratelimit-limit"),
            HeaderName::from_static("x-ratelimit-remaining"),
            HeaderName::from_static("x-ratelimit-reset"),
        ] {
            if let Some(value) = response.headers().get(&name) {
                rendered.headers_mut().insert(name, value.clone());
            }
        }
        response = rendered;
    }
    response.headers_mut().insert(
        X_REQUEST_ID,
        HeaderValue::from_str(&request_id).expect("a uuid is a valid header value"),
    );
    let elapsed = started.elapsed();
    app.metrics.observe(&route, status.as_u16(), elapsed);
    tracing::info!(
        request_id = %request_id,
        method = %method,
        route = %route,
        status = status.as_u16(),
        duration_ms = elapsed.as_secs_f64() * 1000.0,
        "request"
    );
    response
}

/// Whether a response is the dashboard's (a redirect or an HTML page), which keeps its own
/// body; every other non-success becomes the contract's JSON error body. The API never
/// answers HTML or 3xx.
fn is_page(response: &Response) -> bool {
    response.status().is_redirection()
        || response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/html"))
}

/// The dashboard's view of the client address (trusted proxies applied), for its pages.
pub async fn client_addr(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let ip = client_ip(
        peer.ip(),
        request.headers(),
        &app.settings.server.trusted_proxies,
    );
    request
        .extensions_mut()
        .insert(forumdex_dashboard::ClientAddr(ip));
    next.run(request).await
}

/// Statuses that are answers, not errors (conditional and range requests on the CDN).
fn is_success(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::OK | StatusCode::NOT_MODIFIED | StatusCode::PARTIAL_CONTENT
    )
}

/// Step 3: authentication, allowlist, rate limit, debit-last metering.
pub async fn paid(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let mut decision = None;
    let mut key = None;
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_owned();
    let logged = (app.settings.dashboard.request_log_days > 0).then(|| {
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .map(|id| id.0.clone())
            .unwrap_or_default();
        let path = logged_path(request.uri().path(), request.uri().query());
        let source = client_ip(
            peer.ip(),
            request.headers(),
            &app.settings.server.trusted_proxies,
        );
        (request_id, path, source.to_string())
    });
    let result = charge_for(&app, peer, request, next, &mut decision, &mut key).await;
    let mut response = result.unwrap_or_else(IntoResponse::into_response);
    if let Some(decision) = decision {
        insert_rate_headers(response.headers_mut(), &decision);
    }
    if let Some(key) = key {
        let (status, at) = (response.status().as_u16(), app.clock.now());
        app.usage.record(&key, &route, status, at);
        if let Some((request_id, path, source)) = logged {
            let charged = response.headers().contains_key(X_CREDITS_CHARGED);
            app.request_log.record(LoggedRequest {
                id: 0,
                key_id: key,
                request_id,
                path,
                status,
                credits: u64::from(charged),
                latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                source,
                at,
            });
        }
    }
    response
}

const X_CREDITS_CHARGED: HeaderName = HeaderName::from_static("x-credits-charged");

async fn charge_for(
    app: &Arc<App>,
    peer: SocketAddr,
    request: Request,
    next: Next,
    decision_out: &mut Option<RateDecision>,
    key_out: &mut Option<KeyId>,
) -> Result<Response, ApiError> {
    // Only the work before the debit is bounded: a timeout firing during the debit would
    // answer 503 for a request that was charged.
    let deadline = Duration::from_millis(app.settings.server.request_timeout_ms);
    let (mut response, debit) = tokio::time::timeout(
        deadline,
        operate(app, peer, request, next, decision_out, key_out),
    )
    .await
    .map_err(|_| ApiError::Unavailable("the request took too long; retry later".to_owned()))??;
    let Some(Debit {
        account_id,
        key_id,
        request_id,
        operation,
    }) = debit
    else {
        return Ok(response);
    };
    let accounts = Arc::clone(&app.accounts);
    let charged_at = app.clock.now();
    let remaining =
        blocking(move || accounts.charge(account_id, &key_id, &request_id, &operation, charged_at))
            .await?;
    let Some(remaining) = remaining else {
        // The balance ran out while the work was done: the response is dropped.
        return Err(ApiError::PaymentRequired {
            topup_url: app.settings.server.topup_url.clone(),
        });
    };
    app.metrics.charged();
    let headers = response.headers_mut();
    headers.insert(X_CREDITS_CHARGED, HeaderValue::from(1));
    headers.insert("x-credits-remaining", HeaderValue::from(remaining));
    Ok(response)
}

/// What a 200 costs, and whom.
struct Debit {
    account_id: AccountId,
    key_id: KeyId,
    request_id: String,
    operation: String,
}

/// Authentication, allowlist, rate limit, early balance check and the handler: everything
/// before the debit. A 200 comes with the debit it owes. `key_out` learns the key as soon as
/// it is recognised (also an expired or revoked one), for the usage counts.
async fn operate(
    app: &Arc<App>,
    peer: SocketAddr,
    mut request: Request,
    next: Next,
    decision_out: &mut Option<RateDecision>,
    key_out: &mut Option<KeyId>,
) -> Result<(Response, Option<Debit>), ApiError> {
    if request.method() != Method::GET {
        return Err(ApiError::MethodNotAllowed);
    }
    let secret = api_key(request.headers())?;
    let now = app.clock.now();
    let accounts = Arc::clone(&app.accounts);
    // One trip to the blocking pool reads the key (with its allowlist) and then the balance,
    // both from the database; the balance's outcome is applied only after the allowlist and
    // the rate limit, so the order of checks is unchanged.
    let authenticated = blocking(move || {
        let authenticated = accounts.authenticate(&secret, now).map(|key| {
            let balance = accounts.balance(key.account_id);
            (key, balance)
        });
        Ok::<_, ApiError>(authenticated)
    })
    .await?;
    let (key, balance) = match authenticated {
        Ok(found) => found,
        Err(refused) => {
            if let AuthError::Expired(id) | AuthError::Revoked(id) = &refused {
                *key_out = Some(id.clone());
            }
            return Err(refused.into());
        }
    };
    *key_out = Some(key.key_id.clone());
    let source_ip = client_ip(
        peer.ip(),
        request.headers(),
        &app.settings.server.trusted_proxies,
    );
    if !key.allow.allows(source_ip) {
        return Err(ApiError::Forbidden { source_ip });
    }
    let decision = app
        .rate_limiter
        .check(&key.key_id, app.settings.server.rate_limit_per_minute, now)
        .await?;
    *decision_out = Some(decision);
    if !decision.allowed {
        return Err(ApiError::RateLimited {
            decision,
            decided_at_unix_secs: now.timestamp(),
        });
    }
    let account_id = key.account_id;
    if balance? == 0 {
        return Err(ApiError::PaymentRequired {
            topup_url: app.settings.server.topup_url.clone(),
        });
    }
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .expect("finalize runs first")
        .0
        .clone();
    let operation = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_owned();
    request.extensions_mut().insert(Caller {
        account_id,
        key_id: key.key_id.clone(),
    });
    let response = next.run(request).await;
    if response.status() != StatusCode::OK {
        return Ok((response, None));
    }
    let debit = Debit {
        account_id,
        key_id: key.key_id,
        request_id,
        operation,
    };
    Ok((response, Some(debit)))
}

/// The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`. When both are sent
/// they must carry the same key; otherwise the request is refused (401) rather than one
/// header silently winning.
fn api_key(headers: &HeaderMap) -> Result<String, ApiError> {
    let unauthorized = |message: &str| ApiError::Unauthorized(message.to_owned());
    let bearer = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => {
            let text = value
                .to_str()
                .map_err(|_| unauthorized("invalid api key"))?;
            let (scheme, key) = text.split_once(' ').ok_or_else(|| {
                unauthorized("the Authorization header must be 'Bearer <api key>'")
            })?;
            if !scheme.eq_ignore_ascii_case("bearer") {
                return Err(unauthorized(
                    "the Authorization header must be 'Bearer <api key>'",
                ));
            }
            Some(key.trim().to_owned())
        }
    };
    let x_api_key = match headers.get("x-api-key") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .map_err(|_| unauthorized("invalid api key"))?
                .trim()
                .to_owned(),
        ),
    };
    match (bearer, x_api_key) {
        (None, None) => Err(unauthorized(
            "missing api key: send Authorization: Bearer <api key> or X-API-Key",
        )),
        (Some(a), Some(b)) if a != b => Err(unauthorized(
            "Authorization and X-API-Key carry different keys; send one",
        )),
        (Some(key), _) | (None, Some(key)) if key.is_empty() => Err(unauthorized("empty api key")),
        (Some(key), _) | (None, Some(key)) => Ok(key),
    }
}
