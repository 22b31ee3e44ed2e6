//! Sign-up, email verification, sign-in, sign-out (here or everywhere) and password reset.
//!
//! - Sign-up and the password-reset request never say whether an address has an account:
//!   both answer "check your email", and the mail says what applies.
//! - Emailed links carry a random single-use token (stored as its hash): verification lasts
//!   24 hours, a reset one hour. A reset page's GET does not use the token up (mail scanners
//!   open links), its POST does.
//! - Sign-in checks a password against a decoy hash when the address is unknown, so both
//!   refusals take as long; failures are throttled per client address and per account.
//! - An account with two-factor sign-in is asked for its code next ([`sign_in_code`]).

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Duration;
use forumdex_accounts::{AccountId, DeveloperError, Email, TokenHash, TokenPurpose};
use maud::{Markup, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::mail::Mail;
use crate::pages::{CsrfForm, client_key, respond, sign_in_code};
use crate::session::{self, SignedIn};
use crate::throttle::{Bucket, describe_wait};
use crate::{ClientAddr, Dashboard, password};

/// How long a verification link works.
fn verify_lifetime() -> Duration {
    Duration::hours(24)
}

/// How long a password-reset link works.
fn reset_lifetime() -> Duration {
    Duration::hours(1)
}

/// The sign-up and sign-in forms.
#[derive(Debug, Deserialize)]
pub struct Credentials {
    email: String,
    password: String,
    #[serde(default)]
    next: String,
}

/// A form naming only an address.
#[derive(Debug, Deserialize)]
pub struct AddressForm {
    email: String,
}

/// A token in the address (`?token=`).
#[derive(Debug, Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    pub(crate) token: String,
}

/// The new-password form.
#[derive(Debug, Deserialize)]
pub struct ResetForm {
    token: String,
    password: String,
}

/// Flags in the sign-in page's address.
#[derive(Debug, Default, Deserialize)]
pub struct LoginQuery {
    #[serde(default)]
    next: String,
    #[serde(default)]
    reset: Option<String>,
    #[serde(default)]
    verified: Option<String>,
    /// `?ended=N` after "sign out everywhere": how many sessions it ended.
    #[serde(default)]
    ended: Option<u64>,
    /// `?signed_out=1` after this session was ended from the account page.
    #[serde(default)]
    signed_out: Option<String>,
    /// `?closed=1` after the account was deleted.
    #[serde(default)]
    closed: Option<String>,
}

fn signup_content(email: &str) -> Markup {
    html! {
        h1 { "Create your forumdex account" }
        form #signup-form.stack method="post" action="/signup" {
            label for="email" { "Email" }
            input #email type="email" name="email" value=(email) required autocomplete="email";
            label for="password" { "Password" }
            input #password type="password" name="password" required minlength=(password::MIN_CHARS)
                autocomplete="new-password";
            p.hint { "At least " (password::MIN_CHARS) " characters." }
            button type="submit" { "Create account" }
        }
        p { "Already have an account? " a href="/login" { "Sign in" } "." }
    }
}

/// `GET /signup`.
pub async fn signup_form() -> Response {
    respond(StatusCode::OK, "Sign up", None, None, signup_content(""))
}

fn refuse_signup(email: &str, why: String) -> Response {
    respond(
        StatusCode::BAD_REQUEST,
        "Sign up",
        None,
        Some(&Flash::Error(why)),
        signup_content(email),
    )
}

/// Refuses while the client address has asked for too much mail.
fn check_mail_quota(dashboard: &Dashboard, client: &str) -> Result<(), PageError> {
    let now = dashboard.clock.now();
    dashboard
        .throttle
        .check(&Bucket::Mail(client.to_owned()), now)
        .map_err(|wait| {
            PageError::TooMany(format!(
                "Too many emails were requested from your address. Try again in {}.",
                describe_wait(wait)
            ))
        })?;
    dashboard
        .throttle
        .record(Bucket::Mail(client.to_owned()), now);
    Ok(())
}

/// The tokens mailed as links (a sign-in's second-factor token never is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mailed {
    VerifyEmail,
    ResetPassword,
    ChangeEmail,
}

impl Mailed {
    /// What its token is for.
    pub(crate) fn purpose(self) -> TokenPurpose {
        match self {
            Self::VerifyEmail => TokenPurpose::VerifyEmail,
            Self::ResetPassword => TokenPurpose::ResetPassword,
            Self::ChangeEmail => TokenPurpose::ChangeEmail,
        }
    }
}

/// Issues a token for `mailed` and mails its link.
async fn mail_link(
    dashboard: &Arc<Dashboard>,
    account: forumdex_accounts::AccountId,
    to: &Email,
    mailed: Mailed,
) -> Result<(), PageError> {
    let purpose = mailed.purpose();
    let token = session::new_token();
    let hash = TokenHash::of(&token);
    let now = dashboard.clock.now();
    let LinkMail { lifetime, .. } = LinkMail::of(mailed);
    let store = Arc::clone(&dashboard.store);
    blocking(move || {
        store
            .issue_token(purpose, &hash, account, now, now + lifetime)
            .map_err(PageError::from)
    })
    .await?;
    send(dashboard, LinkMail::of(mailed).mail(dashboard, to, &token)).await
}

/// The mail that carries a token's link: how long the link works, where it leads, what the
/// mail says.
pub(crate) struct LinkMail {
    /// How long the link works.
    pub(crate) lifetime: Duration,
    path: &'static str,
    subject: &'static str,
    intro: &'static str,
}

impl LinkMail {
    /// The link mail of `purpose`.
    pub(crate) fn of(mailed: Mailed) -> Self {
        let (lifetime, path, subject, intro) = match mailed {
            Mailed::VerifyEmail => (
                verify_lifetime(),
                "/verify",
                "Confirm your forumdex account",
                "Confirm your address to start using forumdex: open this link within 24 hours.",
            ),
            Mailed::ResetPassword => (
                reset_lifetime(),
                "/password/reset",
                "Reset your forumdex password",
                "Someone (hopefully you) asked to reset your forumdex password. Open this link within an hour to choose a new one; if it was not you, ignore this mail.",
            ),
            Mailed::ChangeEmail => (
                verify_lifetime(),
                "/account/email/confirm",
                "Confirm your new forumdex sign-in address",
                "You asked to sign in to forumdex with this address from now on. Open this link within 24 hours to confirm it; until then your old address stays. If it was not you, ignore this mail.",
            ),
        };
        Self {
            lifetime,
            path,
            subject,
            intro,
        }
    }

    /// The mail to `to` with the link of `token`.
    pub(crate) fn mail(&self, dashboard: &Dashboard, to: &Email, token: &str) -> Mail {
        let link = format!("{}{}?token={token}", dashboard.config.base_url, self.path);
        Mail {
            to: to.to_string(),
            subject: self.subject.to_owned(),
            body: format!("{}\n\n{link}\n\n-- forumdex\n", self.intro),
        }
    }
}

/// Mails a `purpose` link to `email` when it has a login that needs one (an unverified one
/// for verification), after the answer: the answer takes as long whether or not the address
/// has an account, and says nothing about it. Failures are logged.
fn mail_in_background(dashboard: Arc<Dashboard>, email: Email, mailed: Mailed) {
    tokio::spawn(async move {
        let store = Arc::clone(&dashboard.store);
        let lookup = email.clone();
        let outcome = async {
            let login = blocking(move || Ok(store.login_by_email(&lookup)?)).await?;
            let wanted = login
                .filter(|login| mailed == Mailed::ResetPassword || login.verified_at.is_none());
            match wanted {
                Some(login) => mail_link(&dashboard, login.account_id, &email, mailed).await,
                None => Ok(()),
            }
        };
        if let Err(err) = outcome.await {
            tracing::error!(error = %err, purpose = mailed.purpose().as_str(), "mailing a link failed");
        }
    });
}

pub(crate) async fn send(dashboard: &Dashboard, mail: Mail) -> Result<(), PageError> {
    dashboard.mailer.send(&mail).await.map_err(|err| {
        tracing::error!(error = %err, "sending mail failed");
        PageError::Unavailable(
            "We could not send the email just now. Please try again in a few minutes.".to_owned(),
        )
    })
}

/// `POST /signup`.
pub async fn signup(
    State(dashboard): State<Arc<Dashboard>>,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<Credentials>,
) -> Result<Response, PageError> {
    let Ok(email) = Email::parse(&form.email) else {
        return Ok(refuse_signup(
            &form.email,
            "Enter an email address like name@example.com.".to_owned(),
        ));
    };
    if let Err(why) = password::check_new(&form.password) {
        return Ok(refuse_signup(email.as_str(), why));
    }
    check_mail_quota(&dashboard, &client_key(addr))?;
    let _hashing = dashboard.hashing().await?;
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let new_email = email.clone();
    let secret = form.password;
    let registered = blocking(move || {
        let hash = password::hash(&secret).map_err(PageError::Internal)?;
        match store.register(&new_email, &hash, now) {
            Ok(account) => {
                store.record_activity(account, "sign_up", "account created", now)?;
                Ok(Some(account))
            }
            Err(DeveloperError::EmailTaken) => Ok(None),
            Err(err) => Err(err.into()),
        }
    })
    .await?;
    match registered {
        Some(account) => mail_link(&dashboard, account, &email, Mailed::VerifyEmail).await?,
        None => {
            let base = &dashboard.config.base_url;
            send(
                &dashboard,
                Mail {
                    to: email.to_string(),
                    subject: "Your forumdex account".to_owned(),
                    body: format!(
                        "Someone tried to create a forumdex account with this address, which already has one.\n\nSign in:\n\n{base}/login\n\nForgot the password? Reset it:\n\n{base}/password/forgot\n\n-- forumdex\n"
                    ),
                },
            )
            .await?;
        }
    }
    Ok(Redirect::to("/signup/sent").into_response())
}

/// `GET /signup/sent`.
pub async fn signup_sent() -> Response {
    respond(
        StatusCode::OK,
        "Check your email",
        None,
        None,
        html! {
            h1 { "Check your email" }
            p { "We sent a link to confirm your address. Open it within 24 hours, then sign in." }
            (resend_form())
        },
    )
}

fn resend_form() -> Markup {
    html! {
        details {
            summary { "No email?" }
            form #resend.stack method="post" action="/verify/resend" {
                label for="resend-email" { "Email" }
                input #resend-email type="email" name="email" required autocomplete="email";
                button type="submit" { "Send the link again" }
            }
        }
    }
}

/// `GET /verify?token=`: confirms the address.
pub async fn verify(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let hash = TokenHash::of(&query.token);
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let credits = dashboard.config.signup_credits;
    let verified = blocking(move || {
        let Some(account) = store.consume_token(TokenPurpose::VerifyEmail, &hash, now)? else {
            return Ok(None);
        };
        if store.mark_verified(account, credits, now)? {
            store.record_activity(account, "email_verified", "address confirmed", now)?;
        }
        Ok(Some(account))
    })
    .await?;
    if verified.is_none() {
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "Link expired",
            None,
            Some(&Flash::Error(
                "This link is invalid, was already used, or has expired.".to_owned(),
            )),
            html! {
                h1 { "Confirm your address" }
                p { "Ask for a new link:" }
                (resend_form())
            },
        ));
    }
    Ok(Redirect::to("/login?verified=1").into_response())
}

/// `POST /verify/resend`.
pub async fn resend_verification(
    State(dashboard): State<Arc<Dashboard>>,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<AddressForm>,
) -> Result<Response, PageError> {
    let Ok(email) = Email::parse(&form.email) else {
        return Ok(Redirect::to("/signup/sent").into_response());
    };
    check_mail_quota(&dashboard, &client_key(addr))?;
    mail_in_background(dashboard, email, Mailed::VerifyEmail);
    Ok(Redirect::to("/signup/sent").into_response())
}

fn login_content(email: &str, next: &str) -> Markup {
    html! {
        h1 { "Sign in" }
        form #login-form.stack method="post" action="/login" {
            input type="hidden" name="next" value=(next);
            label for="email" { "Email" }
            input #email type="email" name="email" value=(email) required autocomplete="email";
            label for="password" { "Password" }
            input #password type="password" name="password" required autocomplete="current-password";
            button type="submit" { "Sign in" }
        }
        p {
            a href="/password/forgot" { "Forgot your password?" }
            " · New here? " a href="/signup" { "Create an account" } "."
        }
    }
}

/// `GET /login`.
pub async fn login_form(Query(query): Query<LoginQuery>) -> Response {
    let flash = if query.reset.is_some() {
        Some(Flash::Success(
            "Your password was changed and every session signed out. Sign in with the new one."
                .to_owned(),
        ))
    } else if query.closed.is_some() {
        Some(Flash::Success(
            "Your account was deleted: its keys no longer work and you were signed out.".to_owned(),
        ))
    } else if query.signed_out.is_some() {
        Some(Flash::Success("You were signed out.".to_owned()))
    } else if query.verified.is_some() {
        Some(Flash::Success(
            "Your address is confirmed. Sign in to create your first API key.".to_owned(),
        ))
    } else {
        query.ended.map(|ended| {
            Flash::Success(format!(
                "You were signed out everywhere: {ended} {} ended, this one included.",
                if ended == 1 { "session" } else { "sessions" }
            ))
        })
    };
    respond(
        StatusCode::OK,
        "Sign in",
        None,
        flash.as_ref(),
        login_content("", &query.next),
    )
}

/// Where to go after signing in: a local path only (never another site; browsers drop tabs
/// and line breaks from addresses, so `/\t/evil.example` would read `//evil.example`).
fn local_path(next: &str) -> &str {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(|c| c.is_control() || c.is_whitespace());
    if local && !next.starts_with("/login") {
        next
    } else {
        "/dashboard"
    }
}

/// `POST /login`.
pub async fn login(
    State(dashboard): State<Arc<Dashboard>>,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<Credentials>,
) -> Result<Response, PageError> {
    let refuse = |status: StatusCode, why: &str| {
        respond(
            status,
            "Sign in",
            None,
            Some(&Flash::Error(why.to_owned())),
            login_content(&form.email, &form.next),
        )
    };
    let Ok(email) = Email::parse(&form.email) else {
        return Ok(refuse(
            StatusCode::BAD_REQUEST,
            "Enter the email address you signed up with.",
        ));
    };
    let now = dashboard.clock.now();
    let source = client_key(addr);
    let by_account = Bucket::Account {
        email: email.as_str().to_lowercase(),
        source: source.clone(),
    };
    let by_address = Bucket::Address(source);
    for (bucket, what) in [
        (&by_address, "from your network address"),
        (&by_account, "to this account from your network address"),
    ] {
        if let Err(wait) = dashboard.throttle.check(bucket, now) {
            return Ok(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Too many failed sign-ins {what}. Try again in {}, or reset your password: \
                     a completed reset lifts this at once.",
                    describe_wait(wait)
                ),
            ));
        }
    }
    // Counted before the password is checked, so attempts sent at once cannot all pass the
    // limit; a success takes its attempt back.
    dashboard.throttle.record(by_address.clone(), now);
    dashboard.throttle.record(by_account.clone(), now);
    let _hashing = dashboard.hashing().await?;
    let store = Arc::clone(&dashboard.store);
    let secret = form.password.clone();
    let lookup = email.clone();
    let checked = blocking(move || {
        let login = store.login_by_email(&lookup)?;
        let stored = login.as_ref().map_or_else(
            || password::decoy_hash().to_owned(),
            |l| l.password_hash.clone(),
        );
        let matches = password::verify(&secret, &stored) && login.is_some();
        if !matches && let Some(login) = &login {
            store.record_activity(login.account_id, "sign_in_failed", "wrong password", now)?;
        }
        Ok(login.filter(|_| matches))
    })
    .await?;
    let Some(login) = checked else {
        return Ok(refuse(StatusCode::UNAUTHORIZED, "Wrong email or password."));
    };
    if login.verified_at.is_none() {
        return Ok(respond(
            StatusCode::FORBIDDEN,
            "Sign in",
            None,
            Some(&Flash::Error(
                "Confirm your address first: open the link we emailed you.".to_owned(),
            )),
            html! { (login_content(&form.email, &form.next)) (resend_form()) },
        ));
    }
    dashboard.throttle.forget(&by_address, now);
    let store = Arc::clone(&dashboard.store);
    let account = login.account_id;
    if blocking(move || Ok(store.two_factor(account)?))
        .await?
        .is_some()
    {
        // The account's attempt stays counted until the code passes too, so that a known
        // password does not buy unlimited guesses at the code.
        return sign_in_code::ask(&dashboard, account, &form.next).await;
    }
    dashboard.throttle.clear(&by_account);
    start_session(&dashboard, account, &form.next, "signed in").await
}

/// Opens a session for `account` (its activity line saying `detail`) and sends the browser
/// on to `next` when it is a local path, else to the dashboard.
pub(crate) async fn start_session(
    dashboard: &Dashboard,
    account: AccountId,
    next: &str,
    detail: &'static str,
) -> Result<Response, PageError> {
    let now = dashboard.clock.now();
    let token = session::new_token();
    let hash = TokenHash::of(&token);
    let store = Arc::clone(&dashboard.store);
    let expires_at = now + dashboard.config.session_lifetime;
    blocking(move || {
        store.open_session(&hash, account, now, expires_at)?;
        store.record_activity(account, "sign_in", detail, now)?;
        Ok(())
    })
    .await?;
    Ok(redirect_setting(
        local_path(next),
        session::set_cookie(dashboard, &token),
    ))
}

/// A redirect to `to` that sets the session cookie to `cookie` (a new session, or none).
pub(crate) fn redirect_setting(to: &str, cookie: axum::http::HeaderValue) -> Response {
    let mut response = Redirect::to(to).into_response();
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    response
}

/// `POST /logout`.
pub async fn logout(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<CsrfForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    blocking(move || {
        store.close_session(&signed_in.session)?;
        store.record_activity(signed_in.account_id, "sign_out", "signed out", now)?;
        Ok(())
    })
    .await?;
    Ok(redirect_setting("/", session::clear_cookie(&dashboard)))
}

/// `POST /logout/everywhere`: ends every session of the account, this one included.
pub async fn logout_everywhere(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<CsrfForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let closed = blocking(move || {
        let closed = store.close_sessions(signed_in.account_id)?;
        store.record_activity(
            signed_in.account_id,
            "sign_out_everywhere",
            &format!("{closed} sessions ended"),
            now,
        )?;
        Ok(closed)
    })
    .await?;
    Ok(redirect_setting(
        &format!("/login?ended={closed}"),
        session::clear_cookie(&dashboard),
    ))
}

/// `GET /password/forgot`.
pub async fn forgot_form() -> Response {
    respond(
        StatusCode::OK,
        "Reset your password",
        None,
        None,
        html! {
            h1 { "Reset your password" }
            form #forgot.stack method="post" action="/password/forgot" {
                label for="email" { "Email" }
                input #email type="email" name="email" required autocomplete="email";
                button type="submit" { "Email me a reset link" }
            }
        },
    )
}

/// `POST /password/forgot`.
pub async fn forgot(
    State(dashboard): State<Arc<Dashboard>>,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<AddressForm>,
) -> Result<Response, PageError> {
    let Ok(email) = Email::parse(&form.email) else {
        return Ok(Redirect::to("/password/sent").into_response());
    };
    check_mail_quota(&dashboard, &client_key(addr))?;
    mail_in_background(dashboard, email, Mailed::ResetPassword);
    Ok(Redirect::to("/password/sent").into_response())
}

/// `GET /password/sent`.
pub async fn forgot_sent() -> Response {
    respond(
        StatusCode::OK,
        "Check your email",
        None,
        None,
        html! {
            h1 { "Check your email" }
            p { "If an account uses that address, we sent it a link to choose a new password. It works for one hour." }
        },
    )
}

fn reset_content(token: &str) -> Markup {
    html! {
        h1 { "Choose a new password" }
        form #reset.stack method="post" action="/password/reset" {
            input type="hidden" name="token" value=(token);
            label for="password" { "New password" }
            input #password type="password" name="password" required minlength=(password::MIN_CHARS)
                autocomplete="new-password";
            p.hint { "At least " (password::MIN_CHARS) " characters. Every session will be signed out." }
            button type="submit" { "Change password" }
        }
    }
}

/// `GET /password/reset?token=`.
pub async fn reset_form(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<TokenQuery>,
) -> Result<Response, PageError> {
    // Checked on open (without using it up), so a used or bogus link says so at once
    // rather than after a new password was typed.
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let hash = TokenHash::of(&query.token);
    let usable = blocking(move || {
        Ok(store
            .token_holder(TokenPurpose::ResetPassword, &hash, now)?
            .is_some())
    })
    .await?;
    if !usable {
        return Ok(expired_link());
    }
    Ok(respond(
        StatusCode::OK,
        "Choose a new password",
        None,
        None,
        reset_content(&query.token),
    ))
}

/// The answer to a reset link that is invalid, used or expired.
fn expired_link() -> Response {
    respond(
        StatusCode::BAD_REQUEST,
        "Link expired",
        None,
        Some(&Flash::Error(
            "This link is invalid, was already used, or has expired.".to_owned(),
        )),
        html! { p { a href="/password/forgot" { "Ask for a new link" } "." } },
    )
}

/// `POST /password/reset`.
pub async fn reset(
    State(dashboard): State<Arc<Dashboard>>,
    PageForm(form): PageForm<ResetForm>,
) -> Result<Response, PageError> {
    if let Err(why) = password::check_new(&form.password) {
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            "Choose a new password",
            None,
            Some(&Flash::Error(why)),
            reset_content(&form.token),
        ));
    }
    let _hashing = dashboard.hashing().await?;
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let credits = dashboard.config.signup_credits;
    let hash = TokenHash::of(&form.token);
    let secret = form.password;
    let done = blocking(move || {
        let Some(account) = store.consume_token(TokenPurpose::ResetPassword, &hash, now)? else {
            return Ok(None);
        };
        let stored = password::hash(&secret).map_err(PageError::Internal)?;
        store.set_password(account, &stored)?;
        store.close_sessions(account)?;
        // The link reached the address, which confirms it too.
        store.mark_verified(account, credits, now)?;
        store.record_activity(
            account,
            "password_reset",
            "password changed by email link",
            now,
        )?;
        Ok(Some(store.account(account)?.email))
    })
    .await?;
    let Some(email) = done else {
        return Ok(expired_link());
    };
    // The owner proved they hold the address: failed sign-ins from anywhere stop counting.
    dashboard.throttle.clear_account(email.as_str());
    Ok(Redirect::to("/login?reset=1").into_response())
}
