//! Cross-site request forgery: every state-changing form is refused unless the browser says
//! it came from this site. The middleware requires `Sec-Fetch-Site` (sent by every current
//! browser) or `Origin` on every POST, and refuses either when it names another site; forms
//! of signed-in pages also carry the session's token (`SignedIn::check_csrf`). Payment
//! webhooks are not behind it (they are signed).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Dashboard;
use crate::error::PageError;

/// Refuses a POST that a browser marks as cross-site, or whose `Origin` is not the
/// dashboard's.
pub async fn same_origin(
    State(dashboard): State<Arc<Dashboard>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::POST {
        let headers = request.headers();
        let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
        let cross_site = fetch_site.is_some_and(|site| site != "same-origin" && site != "none");
        let foreign_origin = origin.is_some_and(|o| o != dashboard.config.origin());
        let unmarked = fetch_site.is_none() && origin.is_none();
        if cross_site || foreign_origin || unmarked {
            return PageError::Forbidden(
                "this form was sent from another site; open the page here and send it again"
                    .to_owned(),
            )
            .into_response();
        }
    }
    next.run(request).await
}
