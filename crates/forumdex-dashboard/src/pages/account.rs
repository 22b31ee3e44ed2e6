//! The account page (`/dashboard/account`): the sign-in address, a password change (the
//! current password first; every other session ends), the open sessions with their last use
//! (any can be ended, this one included), and a download of everything the service keeps
//! about the account as JSON.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use forumdex_accounts::{DeveloperStore, ListedSession, TokenHash};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{PageError, PageForm, blocking};
use crate::layout::{ACCOUNT_TITLE, Flash};
use crate::pages::auth::redirect_setting;
use crate::pages::{client_key, respond, when};
use crate::password;
use crate::session::{self, SignedIn};
use crate::throttle::{Bucket, describe_wait};
use crate::{ClientAddr, Dashboard};

/// `?changed=1` after a password change, `?ended=1` after ending a session.
#[derive(Debug, Default, Deserialize)]
pub struct AccountQuery {
    #[serde(default)]
    changed: Option<String>,
    #[serde(default)]
    ended: Option<String>,
}

/// The password form.
#[derive(Debug, Deserialize)]
pub struct PasswordForm {
    csrf: String,
    #[serde(default)]
    current: String,
    #[serde(default)]
    password: String,
}

/// The form that ends a session: the hex of its token's hash.
#[derive(Debug, Deserialize)]
pub struct EndSessionForm {
    csrf: String,
    #[serde(default)]
    session: String,
}

/// `GET /dashboard/account`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<AccountQuery>,
) -> Result<Response, PageError> {
    let flash = if query.changed.is_some() {
        Some(Flash::Success(
            "Password changed: your other sessions were signed out.".to_owned(),
        ))
    } else {
        query
            .ended
            .map(|_| Flash::Success("The session was signed out.".to_owned()))
    };
    render(&dashboard, &signed_in, StatusCode::OK, flash, None).await
}

async fn render(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    status: StatusCode,
    flash: Option<Flash>,
    password_error: Option<&str>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (now, idle) = (dashboard.clock.now(), dashboard.config.session_idle);
    let sessions = blocking(move || Ok(store.sessions(account, now, idle)?)).await?;
    let content = html! {
        h1 { "Account" }
        dl {
            dt { "Sign-in address" } dd #account-email { (signed_in.email) }
        }
        (password_section(&signed_in.csrf, password_error))
        (sessions_section(&signed_in.csrf, &sessions, &signed_in.session))
        h2 { "Your data" }
        p { "Everything this service keeps about your account: the address, balance, keys "
            "(never their secrets), ledger, top-ups, activity, usage and open sessions." }
        p.actions { a #export.button href="/dashboard/account/export.json" download { "Download as JSON" } }
    };
    Ok(respond(
        status,
        ACCOUNT_TITLE,
        Some(&signed_in.nav()),
        flash.as_ref(),
        content,
    ))
}

fn password_section(csrf: &str, error: Option<&str>) -> Markup {
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| "password-error"));
    html! {
        section.card {
            h2 { "Change password" }
            form #password-form.stack method="post" action="/dashboard/account/password" {
                input type="hidden" name="csrf" value=(csrf);
                label for="current" { "Current password" }
                input #current type="password" name="current" required autocomplete="current-password"
                    aria-invalid=[invalid] aria-describedby=[described];
                label for="password" { "New password" }
                input #password type="password" name="password" required autocomplete="new-password"
                    minlength=(password::MIN_CHARS) aria-invalid=[invalid] aria-describedby=[described];
                @if let Some(error) = error {
                    p.field-error #password-error { (error) }
                }
                p.hint { "At least " (password::MIN_CHARS) " characters. Your other sessions will be signed out." }
                button type="submit" { "Change password" }
            }
        }
    }
}

fn sessions_section(csrf: &str, sessions: &[ListedSession], current: &TokenHash) -> Markup {
    html! {
        h2 { "Sessions" }
        p { "Where you are signed in. End any you do not recognise, then change your password." }
        div.table-wrap tabindex="0" { table #sessions.stack {
            thead { tr { th { "Signed in" } th { "Last used" } th { "Ends" } th { "Sign out" } } }
            tbody { @for listed in sessions {
                @let this = &listed.token == current;
                tr {
                    td data-label="Signed in" { (when(listed.session.created_at)) @if this { " " span.badge { "this browser" } } }
                    td data-label="Last used" { (when(listed.session.last_seen_at)) }
                    td data-label="Ends" { (when(listed.session.expires_at)) }
                    td data-label="Sign out" {
                        form.end-session method="post" action="/dashboard/account/sessions/end" {
                            input type="hidden" name="csrf" value=(csrf);
                            input type="hidden" name="session" value=(hex::encode(listed.token.0));
                            button.link type="submit" { @if this { "Sign out here" } @else { "End" } }
                        }
                    }
                }
            } }
        } }
    }
}

/// `POST /dashboard/account/password`: the current password, then the new one.
pub async fn change_password(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<PasswordForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    if let Err(why) = password::check_new(&form.password) {
        let why = format!("{}{}.", why[..1].to_uppercase(), &why[1..]);
        return render(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            None,
            Some(&why),
        )
        .await;
    }
    let now = dashboard.clock.now();
    let bucket = Bucket::Account {
        email: signed_in.email.to_lowercase(),
        source: client_key(addr),
    };
    if let Err(wait) = dashboard.throttle.check(&bucket, now) {
        let why = format!(
            "Too many wrong passwords from your network address. Try again in {}.",
            describe_wait(wait)
        );
        return render(
            &dashboard,
            &signed_in,
            StatusCode::TOO_MANY_REQUESTS,
            None,
            Some(&why),
        )
        .await;
    }
    dashboard.throttle.record(bucket.clone(), now);
    let _hashing = dashboard.hashing().await?;
    let store = Arc::clone(&dashboard.store);
    let (account, keep) = (signed_in.account_id, signed_in.session.clone());
    let (current, new) = (form.current, form.password);
    let changed = blocking(move || {
        let login = store.login(account)?.ok_or(PageError::NotFound)?;
        if !password::verify(&current, &login.password_hash) {
            return Ok(false);
        }
        let stored = password::hash(&new).map_err(PageError::Internal)?;
        store.set_password(account, &stored)?;
        let ended = store.close_other_sessions(account, &keep)?;
        store.record_activity(
            account,
            "password_changed",
            &format!("password changed; {ended} other sessions ended"),
            now,
        )?;
        Ok(true)
    })
    .await?;
    if !changed {
        return render(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            None,
            Some("The current password is not right; nothing was changed."),
        )
        .await;
    }
    dashboard.throttle.clear(&bucket);
    Ok(Redirect::to("/dashboard/account?changed=1").into_response())
}

/// `POST /dashboard/account/sessions/end`: ends one of the account's sessions (this one:
/// signed out).
pub async fn end_session(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<EndSessionForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let token = hex::decode(&form.session)
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .map(TokenHash)
        .ok_or_else(|| {
            PageError::BadRequest("This form is out of date: reload the account page.".to_owned())
        })?;
    let this = token == signed_in.session;
    let store = Arc::clone(&dashboard.store);
    let (account, now) = (signed_in.account_id, dashboard.clock.now());
    blocking(move || {
        if store.close_account_session(account, &token)? {
            store.record_activity(account, "session_ended", "a session was signed out", now)?;
        }
        Ok(())
    })
    .await?;
    if this {
        return Ok(redirect_setting(
            "/login?ended=1",
            session::clear_cookie(&dashboard),
        ));
    }
    Ok(Redirect::to("/dashboard/account?ended=1").into_response())
}

/// `GET /dashboard/account/export.json`: what the service keeps about the account.
pub async fn export(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let store: Arc<dyn DeveloperStore> = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (now, idle) = (dashboard.clock.now(), dashboard.config.session_idle);
    let data = blocking(move || account_data(store.as_ref(), account, now, idle)).await?;
    let body =
        serde_json::to_string_pretty(&data).map_err(|err| PageError::Internal(err.into()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!(
                    "attachment; filename=\"forumdex-account-{}.json\"",
                    account.get()
                ),
            ),
        ],
        body,
    )
        .into_response())
}

/// The account's data as one JSON document.
fn account_data(
    store: &dyn DeveloperStore,
    account: forumdex_accounts::AccountId,
    now: chrono::DateTime<chrono::Utc>,
    idle: chrono::Duration,
) -> Result<Value, PageError> {
    let stored = store.account(account)?;
    let login = store.login(account)?;
    let time = |at: chrono::DateTime<chrono::Utc>| at.to_rfc3339();
    let keys: Vec<Value> = store
        .list_keys(account)?
        .iter()
        .map(|key| {
            json!({
                "key_id": key.key_id.as_str(),
                "name": key.name,
                "prefix": key.secret_prefix,
                "status": key.status(now).as_str(),
                "created_at": time(key.created_at),
                "expires_at": key.expires_at.map(time),
                "revoked_at": key.revoked_at.map(time),
                "allowlist": key.allow.to_strings(),
            })
        })
        .collect();
    let ledger: Vec<Value> = store
        .ledger(account)?
        .iter()
        .map(|row| {
            json!({
                "at": time(row.created_at),
                "operation": row.operation,
                "key_id": row.key_id.as_ref().map(|key| key.as_str()),
                "request_id": row.request_id,
                "credits": row.amount,
                "balance_after": row.balance_after,
            })
        })
        .collect();
    let topups: Vec<Value> = store
        .topups(account)?
        .iter()
        .map(|topup| {
            json!({
                "id": topup.id,
                "credits": topup.credits,
                "amount_cents": topup.amount_cents,
                "currency": topup.currency,
                "status": topup.status.as_str(),
                "refunded_cents": topup.refunded_cents,
                "refunded_credits": topup.refunded_credits,
                "created_at": time(topup.created_at),
            })
        })
        .collect();
    let activity: Vec<Value> = store
        .activity(account, u32::MAX)?
        .iter()
        .map(|line| json!({ "at": time(line.at), "kind": line.kind, "detail": line.detail }))
        .collect();
    let usage: Vec<Value> = store
        .usage(account, chrono::NaiveDate::MIN)?
        .iter()
        .map(|count| {
            json!({
                "day": count.day.to_string(),
                "key_id": count.key_id.as_str(),
                "endpoint": count.endpoint,
                "status": count.status,
                "count": count.count,
            })
        })
        .collect();
    let sessions: Vec<Value> = store
        .sessions(account, now, idle)?
        .iter()
        .map(|listed| {
            json!({
                "created_at": time(listed.session.created_at),
                "last_used_at": time(listed.session.last_seen_at),
                "expires_at": time(listed.session.expires_at),
            })
        })
        .collect();
    Ok(json!({
        "exported_at": time(now),
        "account": {
            "id": account.get(),
            "email": stored.email.as_str(),
            "created_at": time(stored.created_at),
            "verified_at": login.as_ref().and_then(|login| login.verified_at).map(time),
            "balance": stored.credits,
        },
        "keys": keys,
        "ledger": ledger,
        "topups": topups,
        "activity": activity,
        "usage": usage,
        "sessions": sessions,
    }))
}
