//! [`Error`]: one variant per status the contract names, plus the failures that happen
//! before a response arrives.

use std::time::SystemTime;

use forumdex_types::ErrorBody;

use crate::options::InvalidOption;

/// What the server said when it refused a request: the contract's error body, with the
/// request id from the body or, failing that, from `X-Request-Id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The error text (`error`), or the raw body when it was not the contract's JSON.
    pub message: String,
    /// `requestId` (or `X-Request-Id`): quote it to support.
    pub request_id: Option<String>,
    /// `creditsCharged` (0 for every error the contract lists).
    pub credits_charged: Option<u8>,
    /// `sourceIp`: the address the server saw, with 403.
    pub source_ip: Option<String>,
    /// `topupUrl`: where to buy credits, with 402.
    pub topup_url: Option<String>,
}

impl ApiError {
    /// Builds the details from a response's status, `X-Request-Id` and body.
    pub(crate) fn from_response(
        status: u16,
        header_request_id: Option<String>,
        body: &[u8],
    ) -> Self {
        match serde_json::from_slice::<ErrorBody>(body) {
            Ok(parsed) => Self {
                status,
                message: parsed.error,
                request_id: parsed.request_id.or(header_request_id),
                credits_charged: Some(parsed.credits_charged),
                source_ip: parsed.source_ip,
                topup_url: parsed.topup_url,
            },
            Err(_) => Self {
                status,
                message: String::from_utf8_lossy(body).into_owned(),
                request_id: header_request_id,
                credits_charged: None,
                source_ip: None,
                topup_url: None,
            },
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)?;
        if let Some(id) = &self.request_id {
            write!(f, " (request {id})")?;
        }
        Ok(())
    }
}

/// Why a call failed.
///
/// The status variants are the contract's; none of them is charged. Retried failures (503,
/// connection errors, 429 when waiting is allowed) appear here only once the retries are
/// spent.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// 400: an invalid query, ID, collection option or cursor.
    #[error("bad request: {0}")]
    BadRequest(ApiError),
    /// 401: the key is missing, invalid, expired or revoked.
    #[error("unauthorized: {0}")]
    Unauthorized(ApiError),
    /// 402: not enough prepaid credits; [`ApiError::topup_url`] says where to top up.
    #[error("payment required: {0}")]
    PaymentRequired(ApiError),
    /// 403: the key's allowlist does not admit this address ([`ApiError::source_ip`]).
    #[error("forbidden: {0}")]
    Forbidden(ApiError),
    /// 404: no such post, topic or profile in the corpus.
    #[error("not found: {0}")]
    NotFound(ApiError),
    /// 410: the collection cursor or its snapshot expired; start again without a cursor
    /// (walks do this themselves).
    #[error("cursor expired: {0}")]
    Gone(ApiError),
    /// 429: the key's rate limit is exhausted until `reset_at` (from `X-RateLimit-Reset`).
    #[error("rate limited: {error}")]
    RateLimited {
        /// The error body.
        error: ApiError,
        /// When the window frees a request, when the response said.
        reset_at: Option<SystemTime>,
    },
    /// 503: the operation could not complete (not charged); retry later.
    #[error("unavailable: {0}")]
    Unavailable(ApiError),
    /// A status the contract does not list.
    #[error("unexpected status: {0}")]
    UnexpectedStatus(ApiError),
    /// No response within the client's timeout. Not retried: the server may have done (and
    /// charged) the work.
    #[error("no response within the timeout")]
    Timeout(#[source] reqwest::Error),
    /// The connection failed before any response (refused, reset, closed).
    #[error("connection failed before a response")]
    Connection(#[source] reqwest::Error),
    /// The response was cut off or could not be read.
    #[error("reading the response failed")]
    Body(#[source] reqwest::Error),
    /// A 200 whose body is not the documented JSON.
    #[error("the response body is not the documented JSON (request {request_id:?})")]
    Decode {
        /// The response's `X-Request-Id`.
        request_id: Option<String>,
        /// The parse failure.
        #[source]
        source: serde_json::Error,
    },
    /// An option was refused before any request.
    #[error(transparent)]
    InvalidOption(#[from] InvalidOption),
    /// The base URL cannot be used.
    #[error("invalid base url: {0}")]
    InvalidBaseUrl(String),
    /// The HTTP client could not be built (its TLS setup failed).
    #[error("building the HTTP client failed")]
    Build(#[source] reqwest::Error),
}

impl Error {
    /// The server's error details, when the server answered.
    pub fn api_error(&self) -> Option<&ApiError> {
        match self {
            Self::BadRequest(e)
            | Self::Unauthorized(e)
            | Self::PaymentRequired(e)
            | Self::Forbidden(e)
            | Self::NotFound(e)
            | Self::Gone(e)
            | Self::Unavailable(e)
            | Self::UnexpectedStatus(e)
            | Self::RateLimited { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The HTTP status, when the server answered with an error.
    pub fn status(&self) -> Option<u16> {
        self.api_error().map(|e| e.status)
    }

    /// The request id to quote to support, when there was one.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::Decode { request_id, .. } => request_id.as_deref(),
            _ => self.api_error().and_then(|e| e.request_id.as_deref()),
        }
    }

    /// The error for a non-200 answer.
    pub(crate) fn from_status(error: ApiError, reset_at: Option<SystemTime>) -> Self {
        match error.status {
            400 => Self::BadRequest(error),
            401 => Self::Unauthorized(error),
            402 => Self::PaymentRequired(error),
            403 => Self::Forbidden(error),
            404 => Self::NotFound(error),
            410 => Self::Gone(error),
            429 => Self::RateLimited { error, reset_at },
            503 => Self::Unavailable(error),
            _ => Self::UnexpectedStatus(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_body_is_read_and_a_foreign_body_kept_as_text() {
        let body = br#"{"error":"insufficient credits","requestId":"r-1","creditsCharged":0,"topupUrl":"https://x/topup"}"#;
        let error = ApiError::from_response(402, Some("header".into()), body);
        assert_eq!(error.message, "insufficient credits");
        assert_eq!(error.request_id.as_deref(), Some("r-1"));
        assert_eq!(error.credits_charged, Some(0));
        assert_eq!(error.topup_url.as_deref(), Some("https://x/topup"));
        assert!(matches!(
            Error::from_status(error, None),
            Error::PaymentRequired(_)
        ));

        let error = ApiError::from_response(502, Some("h-2".into()), b"Bad Gateway");
        assert_eq!(error.message, "Bad Gateway");
        assert_eq!(error.request_id.as_deref(), Some("h-2"));
        assert!(matches!(
            Error::from_status(error, None),
            Error::UnexpectedStatus(_)
        ));
    }
}
