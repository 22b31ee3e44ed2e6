//! The account page (`/dashboard/account`): the sign-in address, a password change (the
//! current password first; every other session ends), the open sessions with their last use
//! (any can be ended, this one included), and a download of everything the service keeps
//! about the account as JSON.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use forumdex_accounts::{DeveloperError, DeveloperStore, Email, ListedSession, TokenHash};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{PageError, PageForm, blocking};
use crate::layout::{ACCOUNT_TITLE, Flash};
use crate::mail::Mail;
use crate::pages::auth::{LinkMail, Mailed, TokenQuery, redirect_setting, send};
use crate::pages::{client_key, respond, when};
use crate::password;
use crate::second_factor;
use crate::secret_seal::SecretSeal;
use crate::session::{self, SignedIn};
use crate::throttle::{Bucket, describe_wait};
use crate::{ClientAddr, Dashboard};

/// `?changed=1` after a password change, `?ended=1` after ending a session,
/// `?email_sent=1` after asking for an address change.
#[derive(Debug, Default, Deserialize)]
pub struct AccountQuery {
    #[serde(default)]
    changed: Option<String>,
    #[serde(default)]
    email_sent: Option<String>,
    #[serde(default)]
    ended: Option<String>,
}

/// The password form.
#[derive(Debug, Deserialize)]
pub struct PasswordForm {
    csrf: String,
    #[serde(default)]
    current: String,
    /// The two-factor code, when two-factor sign-in is on.
    #[serde(default)]
    code: String,
    #[serde(default)]
    password: String,
}

/// The address change form: the password and the new address.
#[derive(Debug, Deserialize)]
pub struct EmailForm {
    csrf: String,
    #[serde(default)]
    password: String,
    /// The two-factor code, when two-factor sign-in is on.
    #[serde(default)]
    code: String,
    #[serde(default)]
    email: String,
}

/// The delete form: the password and the box that confirms it.
#[derive(Debug, Deserialize)]
pub struct DeleteForm {
    csrf: String,
    #[serde(default)]
    password: String,
    /// The two-factor code, when two-factor sign-in is on.
    #[serde(default)]
    code: String,
    #[serde(default)]
    confirm: Option<String>,
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
    let flash = if query.email_sent.is_some() {
        Some(Flash::Success(
            "We sent a link to the new address: your sign-in address changes when you open it \
             (within 24 hours). Until then, sign in with the current one."
                .to_owned(),
        ))
    } else if query.changed.is_some() {
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
    refused: Option<(Guarded, &str)>,
) -> Result<Response, PageError> {
    let error_of = |form: Guarded| refused.filter(|(at, _)| *at == form).map(|(_, why)| why);
    let (password_error, email_error, delete_error) = (
        error_of(Guarded::Password),
        error_of(Guarded::Email),
        error_of(Guarded::Delete),
    );
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (now, idle) = (dashboard.clock.now(), dashboard.config.session_idle);
    let (sessions, balance, two_factor) = blocking(move || {
        Ok((
            store.sessions(account, now, idle)?,
            store.balance(account)?,
            store.two_factor(account)?.is_some(),
        ))
    })
    .await?;
    let content = html! {
        h1 { "Account" }
        dl {
            dt { "Sign-in address" } dd #account-email { (signed_in.email) }
        }
        (two_factor_section(two_factor))
        (email_section(&signed_in.csrf, two_factor, email_error))
        (password_section(&signed_in.csrf, two_factor, password_error))
        (sessions_section(&signed_in.csrf, &sessions, &signed_in.session))
        h2 { "Your data" }
        p { "Everything this service keeps about your account: the address, balance, keys "
            "(never their secrets), ledger, top-ups, activity, usage and open sessions." }
        p.actions { a #export.button href="/dashboard/account/export.json" download { "Download as JSON" } }
        (delete_section(&signed_in.csrf, balance, two_factor, delete_error))
    };
    Ok(respond(
        status,
        ACCOUNT_TITLE,
        Some(&signed_in.nav()),
        flash.as_ref(),
        content,
    ))
}

/// A form that asks for the account's password, beside whose fields a refusal is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Guarded {
    Password,
    Email,
    Delete,
}

/// The page again, answered `status`, with `why` beside `form`'s fields.
async fn refuse(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    status: StatusCode,
    form: Guarded,
    why: &str,
) -> Result<Response, PageError> {
    render(dashboard, signed_in, status, None, Some((form, why))).await
}

/// Counts an attempt at a password- or code-guarded form against the sign-in throttle of
/// this account from this address, so that guessing here is as slow as at sign-in: the
/// bucket to clear once the attempt proved right, or how long to wait.
pub(crate) fn attempt_bucket(
    dashboard: &Dashboard,
    signed_in: &SignedIn,
    addr: Option<Extension<ClientAddr>>,
) -> Result<Bucket, chrono::Duration> {
    let now = dashboard.clock.now();
    let bucket = Bucket::Account {
        email: signed_in.email.to_lowercase(),
        source: client_key(addr),
    };
    dashboard.throttle.check(&bucket, now)?;
    dashboard.throttle.record(bucket.clone(), now);
    Ok(bucket)
}

/// [`attempt_bucket`], or the page refusing the attempt at `form`.
async fn count_attempt(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    addr: Option<Extension<ClientAddr>>,
    form: Guarded,
) -> Result<Result<Bucket, Response>, PageError> {
    match attempt_bucket(dashboard, signed_in, addr) {
        Ok(bucket) => Ok(Ok(bucket)),
        Err(wait) => {
            let why = format!(
                "Too many wrong passwords or codes from your network address. Try again in {}.",
                describe_wait(wait)
            );
            let status = StatusCode::TOO_MANY_REQUESTS;
            Ok(Err(refuse(dashboard, signed_in, status, form, &why).await?))
        }
    }
}

/// Why a guarded form was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The password is not the account's.
    WrongPassword,
    /// Two-factor sign-in is on and the code is not right, or was used.
    WrongCode,
}

impl Refusal {
    /// The sentence saying it, ending with what did not happen (`outcome`).
    pub(crate) fn says(self, outcome: &str) -> String {
        match self {
            Self::WrongPassword => format!("The password is not right; {outcome}."),
            Self::WrongCode => {
                format!("The two-factor code is not right or was used already; {outcome}.")
            }
        }
    }
}

/// Checks the account's password, then, when two-factor sign-in is on, `code` (used up when
/// it passes): `None` when both hold. Hashes a password: hold the hashing permit.
pub(crate) fn prove(
    store: &dyn DeveloperStore,
    seal: &SecretSeal,
    account: forumdex_accounts::AccountId,
    secret: &str,
    code: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<Refusal>, PageError> {
    let login = store.login(account)?.ok_or(PageError::NotFound)?;
    if !password::verify(secret, &login.password_hash) {
        return Ok(Some(Refusal::WrongPassword));
    }
    if !second_factor::passes(store, seal, account, code, now)? {
        return Ok(Some(Refusal::WrongCode));
    }
    Ok(None)
}

/// The two-factor code field of a guarded form, when two-factor sign-in is on.
fn code_field(form: &str, on: bool, error: Option<&str>) -> Markup {
    let (invalid, described) = (
        error.map(|_| "true"),
        error.map(|_| format!("{form}-error")),
    );
    html! {
        @if on {
            label for=(format!("{form}-code")) { "Two-factor code (or a recovery code)" }
            input id=(format!("{form}-code")) type="text" name="code" required autocomplete="one-time-code"
                spellcheck="false" aria-invalid=[invalid] aria-describedby=[described];
        }
    }
}

fn two_factor_section(on: bool) -> Markup {
    html! {
        section.card {
            h2 { "Two-factor sign-in" }
            p #two-factor-summary {
                @if on { "On: signing in asks for a code from your authenticator app." }
                @else { "Off: signing in asks only for your password." }
            }
            p.actions { a.button href="/dashboard/account/two-factor" {
                @if on { "Manage two-factor sign-in" } @else { "Turn on two-factor sign-in" }
            } }
        }
    }
}

fn delete_section(csrf: &str, balance: u64, two_factor: bool, error: Option<&str>) -> Markup {
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| "delete-error"));
    html! {
        section.card {
            h2 { "Delete account" }
            p { "Your keys stop working at once, you are signed out everywhere and your address "
                "is forgotten (it may sign up again). Your " strong { (balance) " credits" }
                " are forfeited, not refunded. The ledger and top-ups are kept as the account of "
                "money. Download your data first if you want it." }
            form #delete-form.stack method="post" action="/dashboard/account/delete" {
                input type="hidden" name="csrf" value=(csrf);
                label for="delete-password" { "Your password" }
                input #delete-password type="password" name="password" required autocomplete="current-password"
                    aria-invalid=[invalid] aria-describedby=[described];
                (code_field("delete", two_factor, error))
                label for="delete-confirm" {
                    input #delete-confirm type="checkbox" name="confirm" value="yes" required;
                    " Yes, delete my account and forfeit " (balance) " credits"
                }
                @if let Some(error) = error {
                    p.field-error #delete-error { (error) }
                }
                button.danger type="submit" { "Delete account" }
            }
        }
    }
}

fn email_section(csrf: &str, two_factor: bool, error: Option<&str>) -> Markup {
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| "email-error"));
    html! {
        section.card {
            h2 { "Change sign-in address" }
            form #email-form.stack method="post" action="/dashboard/account/email" {
                input type="hidden" name="csrf" value=(csrf);
                label for="new-email" { "New address" }
                input #new-email type="email" name="email" required autocomplete="email"
                    aria-invalid=[invalid] aria-describedby=[described];
                label for="email-password" { "Your password" }
                input #email-password type="password" name="password" required autocomplete="current-password"
                    aria-invalid=[invalid] aria-describedby=[described];
                (code_field("email", two_factor, error))
                @if let Some(error) = error {
                    p.field-error #email-error { (error) }
                }
                p.hint { "We mail a link to the new address; the change takes effect when it is opened." }
                button type="submit" { "Send the link" }
            }
        }
    }
}

fn password_section(csrf: &str, two_factor: bool, error: Option<&str>) -> Markup {
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
                (code_field("password", two_factor, error))
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
        return refuse(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            Guarded::Password,
            &why,
        )
        .await;
    }
    let bucket = match count_attempt(&dashboard, &signed_in, addr, Guarded::Password).await? {
        Ok(bucket) => bucket,
        Err(refused) => return Ok(refused),
    };
    let _hashing = dashboard.hashing().await?;
    let now = dashboard.clock.now();
    let store = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let (account, keep) = (signed_in.account_id, signed_in.session);
    let (current, new, code) = (form.current, form.password, form.code);
    let refused = blocking(move || {
        if let Some(refusal) = prove(store.as_ref(), &seal, account, &current, &code, now)? {
            return Ok(Some(refusal));
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
        Ok(None)
    })
    .await?;
    if let Some(refusal) = refused {
        let why = match refusal {
            Refusal::WrongPassword => {
                "The current password is not right; nothing was changed.".to_owned()
            }
            Refusal::WrongCode => refusal.says("nothing was changed"),
        };
        let status = StatusCode::BAD_REQUEST;
        return refuse(&dashboard, &signed_in, status, Guarded::Password, &why).await;
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
            "/login?signed_out=1",
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
        // Whether it is on, never its secret or recovery codes.
        "two_factor": store.two_factor(account)?.map(|on| json!({
            "enabled_at": time(on.enabled_at),
            "recovery_codes_left": on.recovery_codes_left,
        })),
    }))
}

/// `POST /dashboard/account/delete`: only with the password and the box ticked.
pub async fn delete(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<DeleteForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    if form.confirm.as_deref() != Some("yes") {
        return refuse(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            Guarded::Delete,
            "Tick the box to confirm: nothing was deleted.",
        )
        .await;
    }
    let bucket = match count_attempt(&dashboard, &signed_in, addr, Guarded::Delete).await? {
        Ok(bucket) => bucket,
        Err(refused) => return Ok(refused),
    };
    let _hashing = dashboard.hashing().await?;
    let now = dashboard.clock.now();
    let store = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let account = signed_in.account_id;
    let (secret, code) = (form.password, form.code);
    let refused = blocking(move || {
        if let Some(refusal) = prove(store.as_ref(), &seal, account, &secret, &code, now)? {
            return Ok(Some(refusal));
        }
        store.close_account(account, now)?;
        Ok(None)
    })
    .await?;
    if let Some(refusal) = refused {
        let why = refusal.says("nothing was deleted");
        let status = StatusCode::BAD_REQUEST;
        return refuse(&dashboard, &signed_in, status, Guarded::Delete, &why).await;
    }
    dashboard.throttle.clear(&bucket);
    Ok(redirect_setting(
        "/login?closed=1",
        session::clear_cookie(&dashboard),
    ))
}

/// `POST /dashboard/account/email`: mails a confirmation link to the new address (and a
/// notice to the current one). An address another account has gets the same answer and no
/// mail, so the form tells nobody which addresses have accounts; its link would fail.
pub async fn change_email(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<EmailForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let Ok(new) = Email::parse(&form.email) else {
        return refuse(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            Guarded::Email,
            "That is not an email address; nothing was changed.",
        )
        .await;
    };
    if new.as_str().eq_ignore_ascii_case(&signed_in.email) {
        return refuse(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            Guarded::Email,
            "That is already your sign-in address.",
        )
        .await;
    }
    let bucket = match count_attempt(&dashboard, &signed_in, addr, Guarded::Email).await? {
        Ok(bucket) => bucket,
        Err(refused) => return Ok(refused),
    };
    let _hashing = dashboard.hashing().await?;
    let now = dashboard.clock.now();
    let token = session::new_token();
    let link = LinkMail::of(Mailed::ChangeEmail);
    let store = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let (account, secret, hash) = (signed_in.account_id, form.password, TokenHash::of(&token));
    let (address, code) = (new.clone(), form.code);
    let outcome = blocking(move || {
        if let Some(refusal) = prove(store.as_ref(), &seal, account, &secret, &code, now)? {
            return Ok(Err(refusal));
        }
        match store.request_email_change(account, &address, &hash, now, now + link.lifetime) {
            Ok(()) => {}
            Err(DeveloperError::EmailTaken) => return Ok(Ok(false)),
            Err(err) => return Err(err.into()),
        }
        store.record_activity(account, "email_change_asked", address.as_str(), now)?;
        Ok(Ok(true))
    })
    .await?;
    let free = match outcome {
        Ok(free) => free,
        Err(refusal) => {
            let why = refusal.says("nothing was changed");
            let status = StatusCode::BAD_REQUEST;
            return refuse(&dashboard, &signed_in, status, Guarded::Email, &why).await;
        }
    };
    dashboard.throttle.clear(&bucket);
    if free {
        let notice = Mail {
            to: signed_in.email.clone(),
            subject: "Your forumdex sign-in address is changing".to_owned(),
            body: format!(
                "Someone signed in to your forumdex account asked to sign in with {new} from now \
                 on. It changes when the link mailed there is opened. If it was not you, sign \
                 in, change your password and end the sessions you do not know.\n\n-- forumdex\n"
            ),
        };
        send(&dashboard, notice).await?;
        let link = LinkMail::of(Mailed::ChangeEmail);
        send(&dashboard, link.mail(&dashboard, &new, &token)).await?;
    }
    Ok(Redirect::to("/dashboard/account?email_sent=1").into_response())
}

/// `GET /account/email/confirm?token=`: the link mailed to the new address.
pub async fn confirm_email(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let hash = TokenHash::of(&query.token);
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let outcome = blocking(move || match store.confirm_email_change(&hash, now) {
        Ok(Some(change)) => {
            store.record_activity(change.account, "email_changed", change.new.as_str(), now)?;
            Ok(Ok(Some(change)))
        }
        Ok(None) => Ok(Ok(None)),
        Err(DeveloperError::EmailTaken) => Ok(Err(())),
        Err(err) => Err(err.into()),
    })
    .await?;
    let (status, title, message) = match outcome {
        Ok(Some(change)) => {
            dashboard.throttle.clear_account(change.old.as_str());
            (
                StatusCode::OK,
                "Address changed",
                format!("You now sign in with {}.", change.new),
            )
        }
        Ok(None) => (
            StatusCode::BAD_REQUEST,
            "Link expired",
            "This link is invalid, was already used, or has expired: ask for a new one on your \
             account page."
                .to_owned(),
        ),
        Err(()) => (
            StatusCode::CONFLICT,
            "Address taken",
            "Another account signed up with this address meanwhile: your sign-in address did \
             not change."
                .to_owned(),
        ),
    };
    let flash = if status == StatusCode::OK {
        Flash::Success(message)
    } else {
        Flash::Error(message)
    };
    Ok(respond(
        status,
        title,
        None,
        Some(&flash),
        html! {
            h1 { (title) }
            p { a href="/dashboard/account" { "Go to your account" } }
        },
    ))
}
