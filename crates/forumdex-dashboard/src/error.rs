//! [`PageError`]: what a dashboard page answers when it cannot do what was asked, as an HTML
//! page with the right status; store failures are logged once, here, and shown as 503.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forumdex_accounts::{AccountError, DeveloperError};
use maud::html;

use crate::layout::{Flash, page};

/// A page that could not be served.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// Nothing here (or not the developer's: another account's key looks the same).
    #[error("not found")]
    NotFound,
    /// A malformed request (a form missing fields): why.
    #[error("{0}")]
    BadRequest(String),
    /// Refused: why.
    #[error("{0}")]
    Forbidden(String),
    /// Too many attempts: why and when to try again.
    #[error("{0}")]
    TooMany(String),
    /// A feature the operator has not set up.
    #[error("{0}")]
    Unavailable(String),
    /// Storage or another part failed; the cause is logged, never shown.
    #[error("internal failure: {0:#}")]
    Internal(anyhow::Error),
}

impl From<DeveloperError> for PageError {
    fn from(err: DeveloperError) -> Self {
        match err {
            DeveloperError::Account(AccountError::KeyNotFound(_))
            | DeveloperError::Account(AccountError::AccountNotFound(_))
            | DeveloperError::TopupNotFound(_) => Self::NotFound,
            other => Self::Internal(other.into()),
        }
    }
}

impl From<AccountError> for PageError {
    fn from(err: AccountError) -> Self {
        DeveloperError::from(err).into()
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, title, text) = match &self {
            Self::NotFound => (
                StatusCode::NOT_FOUND,
                "Not found",
                "There is nothing here.".to_owned(),
            ),
            Self::BadRequest(why) => (StatusCode::BAD_REQUEST, "Bad request", why.clone()),
            Self::Forbidden(why) => (StatusCode::FORBIDDEN, "Refused", why.clone()),
            Self::TooMany(why) => (StatusCode::TOO_MANY_REQUESTS, "Slow down", why.clone()),
            Self::Unavailable(why) => (StatusCode::SERVICE_UNAVAILABLE, "Unavailable", why.clone()),
            Self::Internal(cause) => {
                tracing::error!(error = %format!("{cause:#}"), "dashboard request failed");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Temporarily unavailable",
                    "Something failed on our side. Nothing was changed; please try again in a moment."
                        .to_owned(),
                )
            }
        };
        let body = page(
            title,
            None,
            Some(&Flash::Error(text)),
            html! { p { a href="/" { "Back to the start page" } } },
        );
        (status, body).into_response()
    }
}

/// A submitted form; one that does not parse is a 400 page (not axum's plain-text 422).
#[derive(Debug)]
pub struct PageForm<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> axum::extract::FromRequest<S> for PageForm<T> {
    type Rejection = PageError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, PageError> {
        axum::Form::<T>::from_request(request, state)
            .await
            .map(|axum::Form(value)| Self(value))
            .map_err(|_| {
                PageError::BadRequest(
                    "This form is incomplete or malformed; reload the page and try again."
                        .to_owned(),
                )
            })
    }
}

/// Runs blocking store work (or hashing) off the async threads.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, PageError> + Send + 'static,
) -> Result<T, PageError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| PageError::Internal(err.into()))?
}
