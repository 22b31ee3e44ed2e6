//! The one error type of the API, every conversion into it, and the contract's JSON error
//! body. Handlers and middleware return [`ApiError`]; [`crate::pipeline::finalize`] renders
//! every non-200 response, including ones axum or tower produced themselves, as that body.
//!
//! A failure is logged once, where it becomes a response ([`ApiError::into_response`]): the
//! conversions below only classify, they do not log.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forumdex_accounts::{AccountError, AuthError, RateDecision, RateLimitError};
use forumdex_corpus::StoreError;
use forumdex_images::ObjectError;
use forumdex_search::SearchError;

use crate::app::App;
use crate::cursor::ResumeError;
use forumdex_types::ErrorBody;

/// Everything that can go wrong in a request, mapped onto the contract's statuses.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: a parameter, path, cursor or option is invalid; the message names it.
    #[error("{0}")]
    BadRequest(String),
    /// 401: the API key is missing, malformed, unknown, expired or revoked.
    #[error("{0}")]
    Unauthorized(String),
    /// 402: not enough prepaid credits.
    #[error("insufficient prepaid credits")]
    PaymentRequired {
        /// Where to top up.
        topup_url: String,
    },
    /// 403: the key's allowlist does not permit the client address.
    #[error("source ip not permitted by the api key's allowlist")]
    Forbidden {
        /// The client address the service detected.
        source_ip: IpAddr,
    },
    /// 404: no such post, topic, profile, image or route.
    #[error("{0}")]
    NotFound(String),
    /// 405: only GET is served here.
    #[error("method not allowed: use GET")]
    MethodNotAllowed,
    /// 410: the collection cursor or its snapshot expired.
    #[error("{0}")]
    Gone(String),
    /// 429: the key's rate limit is exhausted.
    #[error("rate limit of {} requests per minute exceeded; retry after the time in X-RateLimit-Reset", .decision.limit)]
    RateLimited {
        /// The refusal, for the `X-RateLimit-*` headers.
        decision: RateDecision,
        /// When it was decided (Unix seconds): `Retry-After` counts from here.
        decided_at_unix_secs: i64,
    },
    /// 503: the operation could not complete (overload, timeout).
    #[error("{0}")]
    Unavailable(String),
    /// 503: a backend failed; the client is told which part of the service, the log gets
    /// the cause.
    #[error("{}", .backend.message())]
    Backend {
        /// Which backend.
        backend: Backend,
        /// What went wrong, for the log only.
        cause: String,
    },
    /// 500: a bug (a caught panic).
    #[error("internal error")]
    Internal,
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::PaymentRequired { .. } => StatusCode::PAYMENT_REQUIRED,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Gone(_) => StatusCode::GONE,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) | Self::Backend { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error a status gets when something other than a handler produced it.
    pub fn for_status(status: StatusCode) -> Self {
        match status {
            StatusCode::NOT_FOUND => Self::NotFound("no such route".to_owned()),
            StatusCode::METHOD_NOT_ALLOWED => Self::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => Self::BadRequest("request too large".to_owned()),
            StatusCode::REQUEST_TIMEOUT | StatusCode::SERVICE_UNAVAILABLE => Self::Unavailable(
                "the service could not complete the request; retry later".to_owned(),
            ),
            s if s.is_client_error() => Self::BadRequest(format!(
                "invalid request: {}",
                s.canonical_reason()
                    .unwrap_or("bad request")
                    .to_ascii_lowercase()
            )),
            _ => Self::Internal,
        }
    }

    fn body(&self) -> ErrorBody {
        ErrorBody {
            error: self.to_string(),
            request_id: None,
            credits_charged: 0,
            source_ip: match self {
                Self::Forbidden { source_ip } => Some(source_ip.to_string()),
                _ => None,
            },
            topup_url: match self {
                Self::PaymentRequired { topup_url } => Some(topup_url.clone()),
                _ => None,
            },
        }
    }
}

/// `body` as a response with `status`; the request id is filled in.
pub fn error_response(mut body: ErrorBody, status: StatusCode, request_id: &str) -> Response {
    body.request_id = Some(request_id.to_owned());
    let mut response = (status, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status().into_response();
        let headers = response.headers_mut();
        match &self {
            Self::RateLimited {
                decision,
                decided_at_unix_secs,
            } => {
                crate::rate_headers::insert_rate_headers(headers, decision);
                let wait = (decision.reset_at_unix_secs - decided_at_unix_secs).max(1);
                headers.insert(header::RETRY_AFTER, HeaderValue::from(wait));
            }
            Self::MethodNotAllowed => {
                headers.insert(header::ALLOW, HeaderValue::from_static("GET"));
            }
            _ => {}
        }
        match &self {
            Self::Unavailable(reason) => {
                tracing::warn!(reason = %reason, "request failed: service unavailable");
            }
            Self::Backend { backend, cause } => {
                tracing::warn!(backend = backend.name(), error = %cause, "request failed: backend failure");
            }
            _ => {}
        }
        response.extensions_mut().insert(self.body());
        response
    }
}

/// The backends whose failures are answered 503.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The corpus store.
    Corpus,
    /// The account store.
    Accounts,
    /// The search indexes.
    Search,
    /// The image object store.
    Images,
    /// The rate limiter.
    RateLimiter,
}

impl Backend {
    /// What the client is told.
    fn message(self) -> &'static str {
        match self {
            Self::Corpus => "the corpus is temporarily unavailable; retry later",
            Self::Accounts => "accounts are temporarily unavailable; retry later",
            Self::Search => "search is temporarily unavailable; retry later",
            Self::Images => "the image could not be read; retry later",
            Self::RateLimiter => "rate limits are temporarily unavailable; retry later",
        }
    }

    /// Its name in logs.
    fn name(self) -> &'static str {
        match self {
            Self::Corpus => "corpus",
            Self::Accounts => "accounts",
            Self::Search => "search",
            Self::Images => "images",
            Self::RateLimiter => "rate_limiter",
        }
    }

    fn failed(self, cause: impl std::fmt::Display) -> ApiError {
        ApiError::Backend {
            backend: self,
            cause: cause.to_string(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        Backend::Corpus.failed(err)
    }
}

impl From<AccountError> for ApiError {
    fn from(err: AccountError) -> Self {
        Backend::Accounts.failed(err)
    }
}

impl From<SearchError> for ApiError {
    fn from(err: SearchError) -> Self {
        Backend::Search.failed(err)
    }
}

impl From<ObjectError> for ApiError {
    fn from(err: ObjectError) -> Self {
        Backend::Images.failed(err)
    }
}

impl From<RateLimitError> for ApiError {
    fn from(err: RateLimitError) -> Self {
        Backend::RateLimiter.failed(err)
    }
}

impl From<AuthError> for ApiError {
    fn from(err: AuthError) -> Self {
        match err {
            AuthError::Storage(err) => err.into(),
            AuthError::Malformed(_) => Self::Unauthorized("invalid api key".to_owned()),
            AuthError::Unknown => Self::Unauthorized("invalid api key".to_owned()),
            AuthError::Expired(_) => Self::Unauthorized("api key expired".to_owned()),
            AuthError::Revoked(_) => Self::Unauthorized("api key revoked".to_owned()),
        }
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(err: tokio::task::JoinError) -> Self {
        if err.is_panic() {
            tracing::error!("a blocking task panicked");
            Self::Internal
        } else {
            Self::Unavailable("the request was cancelled".to_owned())
        }
    }
}

impl From<ResumeError> for ApiError {
    fn from(err: ResumeError) -> Self {
        if err.is_expiry() {
            Self::Gone(err.to_string())
        } else {
            Self::BadRequest(err.to_string())
        }
    }
}

/// The fallback of the router: an unknown route. A browser asking for a page outside
/// `/api/` (its `Accept` names HTML) gets the dashboard's HTML "not found"; every other
/// client the API's JSON 404.
pub async fn not_found(
    State(app): State<Arc<App>>,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> Response {
    let wants_page = !uri.path().starts_with("/api/")
        && headers
            .get(header::ACCEPT)
            .and_then(|accept| accept.to_str().ok())
            .is_some_and(|accept| accept.contains("text/html"));
    if wants_page {
        forumdex_dashboard::not_found_page(&app.dashboard)
    } else {
        ApiError::NotFound("no such route".to_owned()).into_response()
    }
}

/// What the overload and timeout layers answer.
pub async fn overloaded(err: tower::BoxError) -> Response {
    let message = if err.is::<tower::timeout::error::Elapsed>() {
        "the request took too long; retry later"
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        "the service is overloaded; retry later"
    } else {
        "the service could not complete the request; retry later"
    };
    ApiError::Unavailable(message.to_owned()).into_response()
}

/// What a caught panic becomes: a JSON 500 (a bug).
pub fn panicked(_panic: Box<dyn std::any::Any + Send>) -> Response {
    tracing::error!("a request handler panicked");
    let mut response = ApiError::Internal.into_response();
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

/// Runs blocking store work off the async threads, mapping its errors.
pub async fn blocking<T, E>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    E: Into<ApiError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await?.map_err(Into::into)
}
