//! The one error type of the API and the contract's JSON error body. Handlers and
//! middleware return [`ApiError`]; [`crate::pipeline::finalize`] renders every non-200
//! response, including ones axum or tower produced themselves, as that body.

use std::net::IpAddr;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forumdex_accounts::{AccountError, AuthError, RateDecision};
use forumdex_corpus::StoreError;
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
    #[error("rate limit of {} requests per minute exceeded; retry after the time in X-RateLimit-Reset", .0.limit)]
    RateLimited(RateDecision),
    /// 503: the operation could not complete (store busy or failing, overload, timeout).
    #[error("{0}")]
    Unavailable(String),
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
            Self::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
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
            Self::RateLimited(decision) => {
                crate::pipeline::insert_rate_headers(headers, decision);
                let now = chrono::Utc::now().timestamp();
                let wait = (decision.reset_at_unix_secs - now).max(1);
                headers.insert(header::RETRY_AFTER, HeaderValue::from(wait));
            }
            Self::MethodNotAllowed => {
                headers.insert(header::ALLOW, HeaderValue::from_static("GET"));
            }
            _ => {}
        }
        if let Self::Unavailable(reason) = &self {
            tracing::warn!(reason = %reason, "request failed: service unavailable");
        }
        response.extensions_mut().insert(self.body());
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        tracing::warn!(error = %err, "corpus store failure");
        Self::Unavailable("the corpus is temporarily unavailable; retry later".to_owned())
    }
}

impl From<AccountError> for ApiError {
    fn from(err: AccountError) -> Self {
        tracing::warn!(error = %err, "account store failure");
        Self::Unavailable("accounts are temporarily unavailable; retry later".to_owned())
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
