//! Two-factor sign-in settings (`/dashboard/account/two-factor`): turn it on (scan the QR
//! code or type the secret into an authenticator app, then prove it with a code and the
//! password), see how many recovery codes are left, renew them (with a code), or turn it off
//! (with the password and a code). Recovery codes are shown once, in the answer to the form
//! that made them, and kept only as hashes. Password attempts here count against the
//! sign-in throttle, as on the account page.

use std::sync::Arc;

use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use forumdex_accounts::{DeveloperStore, TokenHash};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::pages::account::{Refusal, attempt_bucket, prove};
use crate::pages::{respond, when};
use crate::second_factor::{self, RECOVERY_CODES};
use crate::secret_seal::SecretSeal;
use crate::session::SignedIn;
use crate::throttle::describe_wait;
use crate::{ClientAddr, Dashboard};

/// The page's title.
const TITLE: &str = "Two-factor sign-in";

/// The form that turns it on: the secret the page showed, a code of it, the password.
#[derive(Debug, Deserialize)]
pub struct EnableForm {
    csrf: String,
    #[serde(default)]
    secret: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    password: String,
}

/// The forms that turn it off (password and code) or renew the recovery codes (code only).
#[derive(Debug, Deserialize)]
pub struct GuardedForm {
    csrf: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    code: String,
}

/// `?off=1` after turning it off.
#[derive(Debug, Default, Deserialize)]
pub struct TwoFactorQuery {
    #[serde(default)]
    off: Option<String>,
}

/// `GET /dashboard/account/two-factor`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    axum::extract::Query(query): axum::extract::Query<TwoFactorQuery>,
) -> Result<Response, PageError> {
    let flash = query
        .off
        .map(|_| Flash::Success("Two-factor sign-in is off.".to_owned()));
    render(&dashboard, &signed_in, StatusCode::OK, flash, None, None).await
}

/// The page: the setup form (with `secret`, a new one when `None`) when it is off, its
/// state and forms when on; `error` beside the form that was refused.
async fn render(
    dashboard: &Dashboard,
    signed_in: &SignedIn,
    status: StatusCode,
    flash: Option<Flash>,
    secret: Option<Vec<u8>>,
    error: Option<&str>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let state = blocking(move || Ok(store.two_factor(account)?)).await?;
    let content = match state {
        None => {
            let secret = secret.unwrap_or_else(second_factor::new_secret);
            setup(signed_in, &secret, error)?
        }
        Some(on) => html! {
            h1 { (TITLE) }
            p #two-factor-state { "On since " (when(on.enabled_at)) ". Signing in asks for a code "
                "from your authenticator app after your password." }
            p { strong #codes-left { (on.recovery_codes_left) } " of " (RECOVERY_CODES)
                " recovery codes left. Each works once, in place of an app code." }
            (guarded_form(signed_in, "recovery", "Renew recovery codes",
                "New codes replace the old ones, which stop working.", false, error))
            (guarded_form(signed_in, "disable", "Turn off two-factor sign-in",
                "Signing in will ask only for your password.", true, error))
        },
    };
    Ok(respond(
        status,
        TITLE,
        Some(&signed_in.nav()),
        flash.as_ref(),
        html! { (content) p { a href="/dashboard/account" { "Back to your account" } } },
    ))
}

/// The setup form of `secret`.
fn setup(signed_in: &SignedIn, secret: &[u8], error: Option<&str>) -> Result<Markup, PageError> {
    let uri = second_factor::otpauth_uri(secret, &signed_in.email);
    let qr = second_factor::qr_svg(&uri)?;
    let encoded = second_factor::encode_secret(secret);
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| "enable-error"));
    Ok(html! {
        h1 { (TITLE) }
        p { "Off. Turn it on so that signing in, and changing your address, password or this "
            "setting, also needs a code from an authenticator app on your phone." }
        ol.steps {
            li { "Scan this code with your authenticator app (or add the key below by hand)." }
            li { "Type the six digits it shows, and your password." }
        }
        figure #qr role="img" aria-label="QR code of your two-factor key" { (PreEscaped(qr)) }
        p { "Key: " code #secret { (encoded) } }
        p { a href=(uri) { "Open in an authenticator app on this device" } }
        form #enable-form.stack method="post" action="/dashboard/account/two-factor/enable" {
            input type="hidden" name="csrf" value=(signed_in.csrf);
            input type="hidden" name="secret" value=(encoded);
            label for="enable-code" { "Code from the app" }
            input #enable-code type="text" name="code" required autocomplete="one-time-code"
                inputmode="numeric" spellcheck="false" aria-invalid=[invalid] aria-describedby=[described];
            label for="enable-password" { "Your password" }
            input #enable-password type="password" name="password" required autocomplete="current-password"
                aria-invalid=[invalid] aria-describedby=[described];
            @if let Some(error) = error {
                p.field-error #enable-error { (error) }
            }
            button type="submit" { "Turn on" }
        }
    })
}

/// The form posting to `two-factor/{action}`: a code, and the password when `password`.
fn guarded_form(
    signed_in: &SignedIn,
    action: &str,
    title: &str,
    hint: &str,
    password: bool,
    error: Option<&str>,
) -> Markup {
    let error_id = format!("{action}-error");
    let (invalid, described) = (error.map(|_| "true"), error.map(|_| error_id.as_str()));
    html! {
        section.card {
            h2 { (title) }
            form.stack id=(format!("{action}-form")) method="post" action=(format!("/dashboard/account/two-factor/{action}")) {
                input type="hidden" name="csrf" value=(signed_in.csrf);
                @if password {
                    label for=(format!("{action}-password")) { "Your password" }
                    input id=(format!("{action}-password")) type="password" name="password" required
                        autocomplete="current-password" aria-invalid=[invalid] aria-describedby=[described];
                }
                label for=(format!("{action}-code")) { "Code from your app (or a recovery code)" }
                input id=(format!("{action}-code")) type="text" name="code" required autocomplete="one-time-code"
                    spellcheck="false" aria-invalid=[invalid] aria-describedby=[described];
                @if let Some(error) = error {
                    p.field-error id=(error_id) { (error) }
                }
                p.hint { (hint) }
                button.danger[password] type="submit" { (title) }
            }
        }
    }
}

/// The one-time page listing new recovery codes.
fn codes_page(signed_in: &SignedIn, heading: &str, codes: &[String]) -> Response {
    respond(
        StatusCode::OK,
        TITLE,
        Some(&signed_in.nav()),
        Some(&Flash::Success(heading.to_owned())),
        html! {
            h1 { "Your recovery codes" }
            p { "Keep them somewhere safe, apart from your phone. Each signs you in once if you "
                "lose your authenticator app. " strong { "They are shown only now." } }
            ul #recovery-codes.codes { @for code in codes { li { code { (code) } } } }
            p { a.button href="/dashboard/account/two-factor" { "I have saved them" } }
        },
    )
}

/// New recovery codes and their hashes.
fn recovery_codes() -> (Vec<String>, Vec<TokenHash>) {
    let codes = second_factor::new_recovery_codes();
    let hashes = codes
        .iter()
        .map(|code| second_factor::recovery_hash(code))
        .collect();
    (codes, hashes)
}

/// The refusal page of a throttled attempt.
async fn throttled(
    dashboard: &Dashboard,
    signed_in: &SignedIn,
    wait: chrono::Duration,
    secret: Option<Vec<u8>>,
) -> Result<Response, PageError> {
    let why = format!(
        "Too many wrong passwords or codes from your network address. Try again in {}.",
        describe_wait(wait)
    );
    let status = StatusCode::TOO_MANY_REQUESTS;
    render(dashboard, signed_in, status, None, secret, Some(&why)).await
}

/// `POST /dashboard/account/two-factor/enable`.
pub async fn enable(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<EnableForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let Some(secret) = second_factor::decode_secret(&form.secret) else {
        return Err(PageError::BadRequest(
            "This form is out of date: reload the two-factor page.".to_owned(),
        ));
    };
    let now = dashboard.clock.now();
    let Some(step) = second_factor::matching_step(&secret, &form.code, now) else {
        let why = "That code is not right: type the six digits the app shows now (check the \
                   phone's clock if it keeps failing).";
        return render(
            &dashboard,
            &signed_in,
            StatusCode::BAD_REQUEST,
            None,
            Some(secret),
            Some(why),
        )
        .await;
    };
    let bucket = match attempt_bucket(&dashboard, &signed_in, addr) {
        Ok(bucket) => bucket,
        Err(wait) => return throttled(&dashboard, &signed_in, wait, Some(secret)).await,
    };
    let _hashing = dashboard.hashing().await?;
    let store: Arc<dyn DeveloperStore> = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let account = signed_in.account_id;
    let (codes, hashes) = recovery_codes();
    let stored = seal.seal(account, &secret);
    let outcome = blocking(move || {
        if store.two_factor(account)?.is_some() {
            return Ok(Ok(false));
        }
        if let Some(refusal) = prove(store.as_ref(), &seal, account, &form.password, "", now)? {
            return Ok(Err(refusal));
        }
        if !store.enable_two_factor(account, &stored, step, &hashes, now)? {
            return Ok(Ok(false));
        }
        store.record_activity(
            account,
            "two_factor_on",
            "two-factor sign-in turned on",
            now,
        )?;
        Ok(Ok(true))
    })
    .await?;
    match outcome {
        Err(refusal) => {
            let why = refusal.says("two-factor sign-in is still off");
            render(
                &dashboard,
                &signed_in,
                StatusCode::BAD_REQUEST,
                None,
                Some(secret),
                Some(&why),
            )
            .await
        }
        Ok(false) => {
            let flash = Flash::Error(
                "Two-factor sign-in is already on (this form was sent before).".to_owned(),
            );
            render(
                &dashboard,
                &signed_in,
                StatusCode::CONFLICT,
                Some(flash),
                None,
                None,
            )
            .await
        }
        Ok(true) => {
            dashboard.throttle.clear(&bucket);
            Ok(codes_page(&signed_in, "Two-factor sign-in is on.", &codes))
        }
    }
}

/// `POST /dashboard/account/two-factor/recovery`: new recovery codes, with a code.
pub async fn renew_codes(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<GuardedForm>,
) -> Result<Response, PageError> {
    guarded(dashboard, signed_in, addr, form, false).await
}

/// `POST /dashboard/account/two-factor/disable`: with the password and a code.
pub async fn disable(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    PageForm(form): PageForm<GuardedForm>,
) -> Result<Response, PageError> {
    guarded(dashboard, signed_in, addr, form, true).await
}

/// Turns two-factor sign-in off (`off`) or renews its recovery codes, once the code (and
/// for turning it off, the password) proved right.
async fn guarded(
    dashboard: Arc<Dashboard>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    form: GuardedForm,
    off: bool,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let bucket = match attempt_bucket(&dashboard, &signed_in, addr) {
        Ok(bucket) => bucket,
        Err(wait) => return throttled(&dashboard, &signed_in, wait, None).await,
    };
    let _hashing = dashboard.hashing().await?;
    let now = dashboard.clock.now();
    let store: Arc<dyn DeveloperStore> = Arc::clone(&dashboard.store);
    let seal = dashboard.config.two_factor_seal.clone();
    let account = signed_in.account_id;
    let (codes, hashes) = recovery_codes();
    let outcome = blocking(move || {
        if store.two_factor(account)?.is_none() {
            return Ok(Err(None));
        }
        let password = off.then_some(form.password.as_str());
        if let Some(refusal) =
            prove_code(store.as_ref(), &seal, account, password, &form.code, now)?
        {
            return Ok(Err(Some(refusal)));
        }
        if off {
            store.disable_two_factor(account)?;
            store.record_activity(
                account,
                "two_factor_off",
                "two-factor sign-in turned off",
                now,
            )?;
        } else {
            store.replace_recovery_codes(account, &hashes)?;
            store.record_activity(account, "recovery_codes_renewed", "new recovery codes", now)?;
        }
        Ok(Ok(()))
    })
    .await?;
    match outcome {
        Err(None) => Ok(Redirect::to("/dashboard/account/two-factor").into_response()),
        Err(Some(refusal)) => {
            let why = refusal.says("nothing was changed");
            render(
                &dashboard,
                &signed_in,
                StatusCode::BAD_REQUEST,
                None,
                None,
                Some(&why),
            )
            .await
        }
        Ok(()) => {
            dashboard.throttle.clear(&bucket);
            if off {
                Ok(Redirect::to("/dashboard/account/two-factor?off=1").into_response())
            } else {
                Ok(codes_page(
                    &signed_in,
                    "New recovery codes: the old ones no longer work.",
                    &codes,
                ))
            }
        }
    }
}

/// Checks the password when one is asked for, then the code.
fn prove_code(
    store: &dyn DeveloperStore,
    seal: &SecretSeal,
    account: forumdex_accounts::AccountId,
    password: Option<&str>,
    code: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<Refusal>, PageError> {
    match password {
        Some(password) => prove(store, seal, account, password, code, now),
        None if second_factor::passes(store, seal, account, code, now)? => Ok(None),
        None => Ok(Some(Refusal::WrongCode)),
    }
}
