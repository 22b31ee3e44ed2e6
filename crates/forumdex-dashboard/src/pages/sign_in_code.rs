//! Sign-in's second step, for accounts with two-factor sign-in: once the password proved
//! right, the browser gets a form holding a single-use token (stored as its hash, valid
//! five minutes) and is asked for an app code or a recovery code. Wrong codes count
//! against the same per-account, per-address throttle as wrong passwords, and that count is
//! cleared only when the code passes.

use std::sync::Arc;

use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Duration;
use forumdex_accounts::{AccountId, TokenHash, TokenPurpose};
use maud::{Markup, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::pages::auth::start_session;
use crate::pages::{client_key, respond};
use crate::second_factor;
use crate::session;
use crate::throttle::{Bucket, describe_wait};
use crate::{ClientAddr, Dashboard};

/// How long the code may take to type.
fn pending_lifetime() -> Duration {
    Duration::minutes(5)
}

/// The code form.
#[derive(Debug, Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    pending: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    next: String,
}

fn content(pending: &str, next: &str, error: Option<&str>) -> Markup {
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| "code-error"));
    html! {
        h1 { "Two-factor sign-in" }
        form #code-form.stack method="post" action="/login/code" {
            input type="hidden" name="pending" value=(pending);
            input type="hidden" name="next" value=(next);
            label for="code" { "Code from your authenticator app" }
            input #code type="text" name="code" required autocomplete="one-time-code"
                autofocus spellcheck="false" aria-invalid=[invalid] aria-describedby=[described];
            @if let Some(error) = error {
                p.field-error #code-error { (error) }
            }
            p.hint { "Six digits. Lost your phone? Enter one of your recovery codes instead." }
            button type="submit" { "Sign in" }
        }
        p { a href="/login" { "Start again" } }
    }
}

/// The code form for `account`, whose password just proved right.
pub(crate) async fn ask(
    dashboard: &Dashboard,
    account: AccountId,
    next: &str,
) -> Result<Response, PageError> {
    let token = session::new_token();
    let hash = TokenHash::of(&token);
    let now = dashboard.clock.now();
    let expires_at = now + pending_lifetime();
    let store = Arc::clone(&dashboard.store);
    blocking(move || {
        Ok(store.issue_token(TokenPurpose::SecondFactor, &hash, account, now, expires_at)?)
    })
    .await?;
    Ok(respond(
        StatusCode::OK,
        "Two-factor sign-in",
        None,
        None,
        content(&token, next, None),
    ))
}

/// `POST /login/code`.
pub async fn submit(
    State(dashboard): State<Arc<Dashboard>>,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<CodeForm>,
) -> Result<Response, PageError> {
    let now = dashboard.clock.now();
    let pending = TokenHash::of(&form.pending);
    let store = Arc::clone(&dashboard.store);
    let holder = blocking(move || {
        let Some(account) = store.token_holder(TokenPurpose::SecondFactor, &pending, now)? else {
            return Ok(None);
        };
        Ok(store.login(account)?.map(|login| (account, login.email)))
    })
    .await?;
    let Some((account, email)) = holder else {
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "Two-factor sign-in",
            None,
            Some(&Flash::Error(
                "This sign-in expired (codes are asked for within 5 minutes): sign in again."
                    .to_owned(),
            )),
            html! { p { a.button href="/login" { "Sign in" } } },
        ));
    };
    let refuse = |status: StatusCode, why: &str| {
        respond(
            status,
            "Two-factor sign-in",
            None,
            None,
            content(&form.pending, &form.next, Some(why)),
        )
    };
    let bucket = Bucket::Account {
        email: email.as_str().to_lowercase(),
        source: client_key(addr),
    };
    if let Err(wait) = dashboard.throttle.check(&bucket, now) {
        return Ok(refuse(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "Too many wrong codes or passwords for this account from your network address. \
                 Try again in {}.",
                describe_wait(wait)
            ),
        ));
    }
    dashboard.throttle.record(bucket.clone(), now);
    let store = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let (pending, code) = (TokenHash::of(&form.pending), form.code.clone());
    let passed = blocking(move || {
        if !second_factor::passes(store.as_ref(), &seal, account, &code, now)? {
            store.record_activity(account, "sign_in_failed", "wrong two-factor code", now)?;
            return Ok(false);
        }
        // The token is used up only now, so that a mistyped code can be typed again.
        Ok(store
            .consume_token(TokenPurpose::SecondFactor, &pending, now)?
            .is_some())
    })
    .await?;
    if !passed {
        return Ok(refuse(
            StatusCode::UNAUTHORIZED,
            "That code is not right (or was used already). Enter the code your app shows now.",
        ));
    }
    dashboard.throttle.clear(&bucket);
    start_session(&dashboard, account, &form.next, "signed in with two-factor").await
}
