//! Browser sessions: a random token in a cookie (`__Host-forumdex_session`, `Secure`, when
//! the dashboard is served over HTTPS; `forumdex_session` over plain HTTP, since browsers
//! refuse `__Host-` cookies without `Secure`), always `HttpOnly`, `SameSite=Lax`, `Path=/`.
//! Only the token's SHA-256 is stored; a session ends after `session_idle` unused or
//! `session_lifetime` after sign-in, at sign-out, or at "sign out everywhere".
//!
//! [`SignedIn`] is the extractor of pages that need a developer: without a live session it
//! redirects to the sign-in page. API keys are never read here.

use std::sync::Arc;

use axum::extract::{FromRequestParts, OptionalFromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use forumdex_accounts::{AccountId, TokenHash};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::Dashboard;
use crate::error::{PageError, blocking};
use crate::layout::Nav;

/// The cookie's name over HTTPS.
pub const SECURE_COOKIE: &str = "__Host-forumdex_session";
/// The cookie's name over plain HTTP (development and the demo).
pub const PLAIN_COOKIE: &str = "forumdex_session";

/// A new random token: 32 bytes from the OS, hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The cookie name the dashboard uses.
pub fn cookie_name(dashboard: &Dashboard) -> &'static str {
    if dashboard.config.secure() {
        SECURE_COOKIE
    } else {
        PLAIN_COOKIE
    }
}

/// The `Set-Cookie` value that stores `token` for the session's lifetime.
pub fn set_cookie(dashboard: &Dashboard, token: &str) -> HeaderValue {
    let secure = if dashboard.config.secure() {
        "; Secure"
    } else {
        ""
    };
    let max_age = dashboard.config.session_lifetime.num_seconds();
    HeaderValue::from_str(&format!(
        "{}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}",
        cookie_name(dashboard)
    ))
    .expect("a hex token makes a valid header")
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(dashboard: &Dashboard) -> HeaderValue {
    let secure = if dashboard.config.secure() {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}",
        cookie_name(dashboard)
    ))
    .expect("a valid header")
}

/// The session token the request's cookie carries, if any (well-formed only).
pub fn token_from(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
        .filter(|token| token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The CSRF token of a session: an HMAC of a fixed label under the session token, so only
/// a page served to the session's browser can know it.
pub fn csrf_token(session_token: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(session_token.as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(b"forumdex dashboard csrf");
    hex::encode(mac.finalize().into_bytes())
}

/// A signed-in developer (the page's extractor).
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The account.
    pub account_id: AccountId,
    /// Their address.
    pub email: String,
    /// The session's CSRF token, for the page's forms.
    pub csrf: String,
    /// The session token's hash (sign-out).
    pub session: TokenHash,
}

impl SignedIn {
    /// The header's view of them.
    pub fn nav(&self) -> Nav {
        Nav {
            email: self.email.clone(),
            csrf: self.csrf.clone(),
        }
    }

    /// Refuses a form whose `csrf` field is not this session's token (403).
    pub fn check_csrf(&self, sent: &str) -> Result<(), PageError> {
        if sent.as_bytes().ct_eq(self.csrf.as_bytes()).into() {
            Ok(())
        } else {
            Err(PageError::Forbidden(
                "this form has expired or did not come from this site; reload the page and try again"
                    .to_owned(),
            ))
        }
    }
}

impl SignedIn {
    /// The developer of the request's session, if it carries a live one.
    async fn lookup(parts: &Parts, dashboard: &Arc<Dashboard>) -> Result<Option<Self>, Response> {
        let Some(token) = token_from(&parts.headers, cookie_name(dashboard)) else {
            return Ok(None);
        };
        let hash = TokenHash::of(&token);
        let store = Arc::clone(&dashboard.store);
        let now = dashboard.clock.now();
        let idle = dashboard.config.session_idle;
        let found = blocking(move || {
            let Some(session) = store.touch_session(&hash, now, idle)? else {
                return Ok(None);
            };
            let login = store.login(session.account_id)?;
            Ok(login.map(|login| (session, login)))
        })
        .await
        .map_err(IntoResponse::into_response)?;
        Ok(found.map(|(session, login)| Self {
            account_id: session.account_id,
            email: login.email.to_string(),
            csrf: csrf_token(&token),
            session: hash,
        }))
    }
}

impl FromRequestParts<Arc<Dashboard>> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        dashboard: &Arc<Dashboard>,
    ) -> Result<Self, Self::Rejection> {
        match Self::lookup(parts, dashboard).await? {
            Some(signed_in) => Ok(signed_in),
            None => {
                let next = parts
                    .uri
                    .path_and_query()
                    .map_or("/dashboard", |p| p.as_str());
                let query: String = form_urlencoded::Serializer::new(String::new())
                    .append_pair("next", next)
                    .finish();
                Err(Redirect::to(&format!("/login?{query}")).into_response())
            }
        }
    }
}

/// Public pages take `Option<SignedIn>`: the header then shows the developer's navigation.
/// A store that fails here makes the visitor anonymous, never the page unavailable.
impl OptionalFromRequestParts<Arc<Dashboard>> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        dashboard: &Arc<Dashboard>,
    ) -> Result<Option<Self>, Self::Rejection> {
        Ok(Self::lookup(parts, dashboard).await.unwrap_or(None))
    }
}

/// The dashboard's security headers on every page: a Content-Security-Policy without inline
/// script or style, no framing, no referrer to other sites (pages may carry tokens in their
/// address; `no-referrer` would make browsers send `Origin: null` on the dashboard's own
/// forms), no caching (pages may show secrets), no MIME sniffing.
pub async fn security_headers(
    State(dashboard): State<Arc<Dashboard>>,
    request: Request,
    next: Next,
) -> Response {
    secure(&dashboard, next.run(request).await)
}

/// `response` with the pages' security headers ([`security_headers`]).
pub fn secure(dashboard: &Dashboard, mut response: Response) -> Response {
    let checkout = if matches!(dashboard.payments, crate::Payments::Stripe(_)) {
        " https://checkout.stripe.com"
    } else {
        ""
    };
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; form-action 'self'{checkout}; frame-ancestors 'none'; base-uri 'none'"
    );
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&csp).expect("a valid header"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_read_by_name_and_shape() {
        let token = new_token();
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("a=b; {PLAIN_COOKIE}={token}; c=d")).unwrap(),
        );
        assert_eq!(token_from(&headers, PLAIN_COOKIE), Some(token.clone()));
        assert_eq!(token_from(&headers, SECURE_COOKIE), None);
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("forumdex_session=nothex"),
        );
        assert_eq!(token_from(&headers, PLAIN_COOKIE), None);
        assert_ne!(csrf_token(&token), csrf_token(&new_token()));
        assert_eq!(csrf_token(&token), csrf_token(&token));
    }
}
