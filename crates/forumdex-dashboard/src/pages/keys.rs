//! API keys: the list (name, prefix, status, dates, last use, calls in 30 days, allowlist
//! size), creation (the secret is shown once), and per key: rename, renew or change the
//! expiry (the secret stays), revoke, and the IP allowlist. A key id of another account
//! answers 404, exactly like an unknown one.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Duration, Utc};
use forumdex_accounts::{
    AccountError, AccountId, AllowEntry, Allowlist, DeveloperError, DeveloperStore, KeyCreation,
    KeyId, KeyInfo, KeyLifetime, KeyStatus, NewKey, TokenHash, UsageCount,
};
use maud::{Markup, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::pages::{respond, when, when_or};
use crate::session::{self, SignedIn};
use crate::{ClientAddr, Dashboard};

/// The lifetimes a key may be given (api-contract.md), as the form writes them.
const LIFETIMES: [(&str, &str); 6] = [
    ("none", "No expiry"),
    ("7d", "7 days"),
    ("30d", "30 days"),
    ("90d", "90 days"),
    ("180d", "180 days"),
    ("365d", "365 days"),
];

/// The create form.
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    csrf: String,
    /// The form's one-time token: a reloaded answer page sends it again, and creates nothing.
    #[serde(default)]
    form: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    lifetime: String,
    #[serde(default)]
    allow: String,
}

/// The rename form.
#[derive(Debug, Deserialize)]
pub struct RenameForm {
    csrf: String,
    #[serde(default)]
    name: String,
}

/// The renew form.
#[derive(Debug, Deserialize)]
pub struct RenewForm {
    csrf: String,
    #[serde(default)]
    lifetime: String,
}

/// The allowlist form: the whole list, one entry per line (or comma-separated).
#[derive(Debug, Deserialize)]
pub struct AllowForm {
    csrf: String,
    #[serde(default)]
    allow: String,
}

/// The status badge of a key.
fn status_badge(status: KeyStatus) -> Markup {
    let name = status.as_str();
    html! { span class=(format!("badge status-{name}")) { (name) } }
}

/// Parses an allowlist typed by a person: entries separated by lines, commas or spaces. A
/// refusal names every entry that is not an address or range.
fn parse_allowlist(text: &str) -> Result<Allowlist, String> {
    let items: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|item| !item.is_empty())
        .collect();
    let bad: Vec<String> = items
        .iter()
        .filter(|item| AllowEntry::parse(item).is_err())
        .map(|item| format!("{item:?}"))
        .collect();
    match bad.as_slice() {
        [] => {}
        [one] => {
            return Err(format!(
                "{one} is not an IPv4 or IPv6 address or CIDR range"
            ));
        }
        many => {
            return Err(format!(
                "{} are not IPv4 or IPv6 addresses or CIDR ranges",
                many.join(", ")
            ));
        }
    }
    if items.len() > 100 {
        return Err("an allowlist holds at most 100 entries".to_owned());
    }
    let entries = items.iter().filter_map(|item| AllowEntry::parse(item).ok());
    Ok(Allowlist::from_entries(entries))
}

/// The attributes and message of a field a form refused: `aria-invalid` and
/// `aria-describedby` on the field (see [`refused_attrs`]), the message after it.
fn field_error(id: &str, error: Option<&str>) -> Markup {
    html! {
        @if let Some(error) = error {
            p.field-error id=(format!("{id}-error")) { (error) }
        }
    }
}

/// `aria-invalid` and `aria-describedby` values for a field `id` refused with `error`.
fn refused_attrs(id: &str, error: Option<&str>) -> (Option<&'static str>, Option<String>) {
    (error.map(|_| "true"), error.map(|_| format!("{id}-error")))
}

/// The create form as the developer left it after a refusal: what they typed and what was
/// wrong with each field.
#[derive(Debug, Default)]
struct CreateDraft {
    name: String,
    lifetime: String,
    allow: String,
    name_error: Option<String>,
    lifetime_error: Option<String>,
    allow_error: Option<String>,
}

fn parse_lifetime(text: &str) -> Result<KeyLifetime, String> {
    text.parse::<KeyLifetime>()
        .map_err(|_| "choose a lifetime from the list".to_owned())
}

fn lifetime_select(id: &str, selected: &str, error: Option<&str>) -> Markup {
    let (invalid, described) = refused_attrs(id, error);
    html! {
        select id=(id) name="lifetime" aria-invalid=[invalid] aria-describedby=[described] {
            @for (value, label) in LIFETIMES {
                option value=(value) selected[value == selected] { (label) }
            }
        }
    }
}

/// The key, when it is `account`'s (else 404).
fn owned_key(
    store: &dyn DeveloperStore,
    account: AccountId,
    key_id: &str,
) -> Result<KeyInfo, PageError> {
    let key_id = KeyId::parse(key_id).map_err(|_| PageError::NotFound)?;
    let key = store.key(&key_id)?;
    if key.account_id != account {
        return Err(PageError::NotFound);
    }
    Ok(key)
}

/// What the list shows per key beyond the key itself.
#[derive(Debug, Default, Clone, Copy)]
struct KeyUse {
    last_used: Option<DateTime<Utc>>,
    calls_30d: u64,
}

fn key_use(usage: &[UsageCount]) -> HashMap<KeyId, KeyUse> {
    let mut by_key: HashMap<KeyId, KeyUse> = HashMap::new();
    for row in usage {
        let entry = by_key.entry(row.key_id.clone()).or_default();
        entry.calls_30d += row.count;
        entry.last_used = entry.last_used.max(Some(row.last_at));
    }
    by_key
}

fn create_form(csrf: &str, draft: Option<&CreateDraft>) -> Markup {
    let fresh = CreateDraft {
        lifetime: "90d".to_owned(),
        ..CreateDraft::default()
    };
    let draft = draft.unwrap_or(&fresh);
    let (name_invalid, name_described) = refused_attrs("name", draft.name_error.as_deref());
    let (allow_invalid, allow_described) = refused_attrs("allow", draft.allow_error.as_deref());
    html! {
        section.card {
            h2 { "Create a key" }
            form #create-key.stack method="post" action="/dashboard/keys" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="form" value=(session::new_token());
                label for="name" { "Name" }
                input #name type="text" name="name" maxlength="200" placeholder="laptop, production, ..."
                    value=(draft.name) aria-invalid=[name_invalid] aria-describedby=[name_described];
                (field_error("name", draft.name_error.as_deref()))
                label for="lifetime" { "Expires after" }
                (lifetime_select("lifetime", &draft.lifetime, draft.lifetime_error.as_deref()))
                (field_error("lifetime", draft.lifetime_error.as_deref()))
                label for="allow" { "Allowed addresses (optional)" }
                textarea #allow name="allow" rows="3" placeholder="203.0.113.7\n2001:db8::/32"
                    aria-invalid=[allow_invalid] aria-describedby=[allow_described] { (draft.allow) }
                (field_error("allow", draft.allow_error.as_deref()))
                p.hint { "One IPv4 or IPv6 address or CIDR range per line. Empty: any address." }
                button type="submit" { "Create key" }
            }
        }
    }
}

/// `GET /dashboard/keys`.
pub async fn list(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    render_list(&dashboard, &signed_in, StatusCode::OK, None, None).await
}

async fn render_list(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    status: StatusCode,
    flash: Option<Flash>,
    draft: Option<&CreateDraft>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let account = signed_in.account_id;
    let since = (now - Duration::days(29)).date_naive();
    let (keys, usage) =
        blocking(move || Ok((store.list_keys(account)?, store.usage(account, since)?))).await?;
    let uses = key_use(&usage);
    let content = html! {
        h1 { "API keys" }
        p { "Send a key as " code { "Authorization: Bearer <key>" } " or " code { "X-API-Key: <key>" } ". Keep keys out of browser code and public repositories." }
        @if keys.is_empty() {
            p.empty { "No keys yet: create one below." }
        } @else {
            div.table-wrap tabindex="0" {
                table #keys {
                    thead { tr {
                        th { "Name" } th { "Key" } th { "Status" } th { "Created" } th { "Expires" }
                        th { "Last used" } th.num { "Calls (30 days)" } th.num { "Allowed addresses" }
                    } }
                    tbody {
                        @for key in keys.iter().rev() {
                            @let key_use = uses.get(&key.key_id).copied().unwrap_or_default();
                            tr data-key-id=(key.key_id.as_str()) {
                                td { a href=(format!("/dashboard/keys/{}", key.key_id)) { (key.name.as_deref().unwrap_or("(unnamed)")) } }
                                td { code { (key.secret_prefix.as_deref().unwrap_or("fdx_live_")) "…" } }
                                td { (status_badge(key.status(now))) }
                                td { (when(key.created_at)) }
                                td { (when_or(key.expires_at, "never")) }
                                td { (when_or(key_use.last_used, "never")) }
                                td.num { (key_use.calls_30d) }
                                td.num { @if key.allow.is_empty() { "any" } @else { (key.allow.entries().len()) } }
                            }
                        }
                    }
                }
            }
        }
        (create_form(&signed_in.csrf, draft))
    };
    Ok(respond(
        status,
        "API keys",
        Some(&signed_in.nav()),
        flash.as_ref(),
        content,
    ))
}

/// `POST /dashboard/keys`: creates a key and shows its secret once.
pub async fn create(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<CreateForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    if form.form.len() != 64 || !form.form.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PageError::BadRequest(
            "This form is out of date: open the keys page again and create the key from there."
                .to_owned(),
        ));
    }
    let mut draft = CreateDraft {
        name: form.name.clone(),
        lifetime: form.lifetime.clone(),
        allow: form.allow.clone(),
        ..CreateDraft::default()
    };
    let (lifetime, allow) = match (parse_lifetime(&form.lifetime), parse_allowlist(&form.allow)) {
        (Ok(lifetime), Ok(allow)) => (lifetime, allow),
        (lifetime, allow) => {
            draft.lifetime_error = lifetime.err();
            draft.allow_error = allow.err();
            return refuse_create(&dashboard, &signed_in, &draft).await;
        }
    };
    let new = NewKey {
        lifetime,
        allow,
        name: Some(form.name),
    };
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let account = signed_in.account_id;
    let sent = TokenHash::of(&form.form);
    let created = blocking(move || {
        let created = match store.create_key_once(account, &sent, &new, now) {
            Ok(KeyCreation::Created(created)) => created,
            Ok(KeyCreation::AlreadyCreated(before)) => return Ok(Ok(Err(before))),
            Err(DeveloperError::Account(AccountError::InvalidName(why))) => {
                return Ok(Err(format!("This name cannot be used: {why}.")));
            }
            Err(err) => return Err(err.into()),
        };
        store.record_activity(
            account,
            "key_created",
            &format!("{} ({})", created.info.key_id, lifetime),
            now,
        )?;
        Ok(Ok(Ok(created)))
    })
    .await?;
    let created = match created {
        Ok(Ok(created)) => created,
        Ok(Err(before)) => return Ok(already_created(&signed_in, &before)),
        Err(why) => {
            draft.name_error = Some(why);
            return refuse_create(&dashboard, &signed_in, &draft).await;
        }
    };
    let secret = created.secret.expose_secret();
    let base = &dashboard.config.base_url;
    let content = html! {
        h1 { "Your new key" }
        p.banner.warning { "Copy it now: this is the only time it is shown. We keep only a hash of it." }
        div.secret-box {
            code #secret.secret { (secret) }
            button type="button" data-copy="secret" { "Copy" }
        }
        dl {
            dt { "Key id" } dd { code { (created.info.key_id.as_str()) } }
            dt { "Expires" } dd { (when_or(created.info.expires_at, "never")) }
            dt { "Allowed addresses" } dd { @if created.info.allow.is_empty() { "any" } @else { (created.info.allow.to_strings().join(", ")) } }
        }
        h2 { "Try it" }
        pre { code { "curl -H \"Authorization: Bearer " (secret) "\" \\\n  \"" (base) "/api/v1/search?q=bitcoin\"" } }
        p.actions { a.button href="/dashboard/keys" { "Done" } a href=(format!("/dashboard/keys/{}", created.info.key_id)) { "Key settings" } }
    };
    Ok(respond(
        StatusCode::OK,
        "Your new key",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}

/// The answer to a create form sent again (a reload of "your new key"): 409, the key it
/// created the first time, and no secret, which is shown once only.
fn already_created(signed_in: &SignedIn, key: &KeyInfo) -> Response {
    let settings = format!("/dashboard/keys/{}", key.key_id);
    let content = html! {
        h1 { "This key was already created" }
        p.banner.warning {
            "This form was sent before, and created the key below then. No second key was "
            "created. Its secret was shown once, when it was created, and cannot be shown again: "
            "if you did not copy it, revoke this key and create a new one."
        }
        dl {
            dt { "Name" } dd { (key.name.as_deref().unwrap_or("(unnamed)")) }
            dt { "Key id" } dd { code { (key.key_id.as_str()) } }
            dt { "Created" } dd { (when(key.created_at)) }
        }
        p.actions { a.button href="/dashboard/keys" { "Your keys" } a href=(settings) { "Key settings" } }
    };
    respond(
        StatusCode::CONFLICT,
        "Key already created",
        Some(&signed_in.nav()),
        None,
        content,
    )
}

/// The keys page again with the create form as the developer left it, every refused field
/// marked and named.
async fn refuse_create(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    draft: &CreateDraft,
) -> Result<Response, PageError> {
    render_list(
        dashboard,
        signed_in,
        StatusCode::BAD_REQUEST,
        Some(Flash::Error(
            "The key was not created: correct the fields marked below.".to_owned(),
        )),
        Some(draft),
    )
    .await
}

/// `?revoked=1` after a revocation.
#[derive(Debug, Default, Deserialize)]
pub struct DetailQuery {
    #[serde(default)]
    revoked: Option<String>,
}

/// `GET /dashboard/keys/{key_id}`.
pub async fn detail(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    Path(key_id): Path<String>,
    Query(query): Query<DetailQuery>,
) -> Result<Response, PageError> {
    let flash = query.revoked.map(|_| {
        Flash::Success("Revoked: the key is refused from the next request on.".to_owned())
    });
    render_detail(
        &dashboard,
        &signed_in,
        addr,
        &key_id,
        StatusCode::OK,
        flash,
        None,
    )
    .await
}

async fn render_detail(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    addr: Option<Extension<ClientAddr>>,
    key_id: &str,
    status: StatusCode,
    flash: Option<Flash>,
    allow_draft: Option<(&str, &str)>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let id = key_id.to_owned();
    let key = blocking(move || owned_key(store.as_ref(), account, &id)).await?;
    let now = dashboard.clock.now();
    let key_status = key.status(now);
    let csrf = &signed_in.csrf;
    let action = |what: &str| format!("/dashboard/keys/{}/{what}", key.key_id);
    let current_lifetime = key.lifetime.to_string();
    let your_address = addr.map(|Extension(ClientAddr(ip))| ip.to_string());
    let content = html! {
        p { a href="/dashboard/keys" { "← All keys" } }
        h1 { (key.name.as_deref().unwrap_or("(unnamed)")) " " (status_badge(key_status)) }
        dl {
            dt { "Key id" } dd { code { (key.key_id.as_str()) } }
            dt { "Key" } dd { code { (key.secret_prefix.as_deref().unwrap_or("fdx_live_")) "…" } }
            dt { "Created" } dd { (when(key.created_at)) }
            dt { "Expires" } dd { (when_or(key.expires_at, "never")) }
            @if let Some(revoked) = key.revoked_at { dt { "Revoked" } dd { (when(revoked)) } }
        }
        section.card {
            h2 { "Rename" }
            form #rename.inline method="post" action=(action("rename")) {
                input type="hidden" name="csrf" value=(csrf);
                label for="name" { "New name" }
                input #name type="text" name="name" maxlength="200" value=(key.name.as_deref().unwrap_or(""));
                button type="submit" { "Save" }
            }
        }
        @if key.revoked_at.is_none() {
            section.card {
                h2 { "Expiry" }
                p { "Renewing sets the expiry to the chosen lifetime from now. The secret does not change." }
                form #renew.inline method="post" action=(action("renew")) {
                    input type="hidden" name="csrf" value=(csrf);
                    label for="renew-lifetime" { "New lifetime" }
                    (lifetime_select("renew-lifetime", &current_lifetime, None))
                    button type="submit" { "Renew" }
                }
            }
            section.card {
                h2 { "Allowed addresses" }
                @if let Some(ip) = &your_address { p { "Your current address is " code #your-address { (ip) } "." } }
                form #allowlist.stack method="post" action=(action("allowlist")) {
                    input type="hidden" name="csrf" value=(csrf);
                    label for="allow" { "One IPv4 or IPv6 address or CIDR range per line; empty allows any address" }
                    @let (typed, error) = match allow_draft {
                        Some((typed, error)) => (typed.to_owned(), Some(error)),
                        None => (key.allow.to_strings().join("\n"), None),
                    };
                    @let (invalid, described) = refused_attrs("allow", error);
                    textarea #allow name="allow" rows="4" aria-invalid=[invalid] aria-describedby=[described] { (typed) }
                    (field_error("allow", error))
                    button type="submit" { "Save allowlist" }
                }
            }
            section.card.danger-zone {
                h2 { "Revoke" }
                p { "A revoked key is refused from the next request on. This cannot be undone." }
                form #revoke method="post" action=(action("revoke")) {
                    input type="hidden" name="csrf" value=(csrf);
                    label.check {
                        input #revoke-confirm type="checkbox" name="confirm" value="yes" required;
                        " Yes, revoke " strong { (key.name.as_deref().unwrap_or("(unnamed)")) } ": calls with it are refused from now on"
                    }
                    button.danger type="submit" { "Revoke this key" }
                }
            }
        }
    };
    Ok(respond(
        status,
        "Key settings",
        Some(&signed_in.nav()),
        flash.as_ref(),
        content,
    ))
}

/// Runs a change of `key_id` (when it is the developer's), records `activity`, and shows
/// the key page again with `done` or the refusal.
async fn change_key(
    dashboard: Arc<Dashboard>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    key_id: String,
    activity: &'static str,
    done: &'static str,
    change: impl FnOnce(
        &dyn DeveloperStore,
        &KeyId,
        DateTime<Utc>,
    ) -> Result<Result<String, String>, PageError>
    + Send
    + 'static,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let now = dashboard.clock.now();
    let id = key_id.clone();
    let outcome = blocking(move || {
        let key = owned_key(store.as_ref(), account, &id)?;
        let outcome = change(store.as_ref(), &key.key_id, now)?;
        if let Ok(detail) = &outcome {
            store.record_activity(account, activity, &format!("{}: {detail}", key.key_id), now)?;
        }
        Ok(outcome)
    })
    .await?;
    match outcome {
        // Post/redirect/get: a reload of the page does not send the revocation again.
        Ok(_) if activity == "key_revoked" => {
            Ok(Redirect::to(&format!("/dashboard/keys/{key_id}?revoked=1")).into_response())
        }
        Ok(_) => {
            render_detail(
                &dashboard,
                &signed_in,
                addr,
                &key_id,
                StatusCode::OK,
                Some(Flash::Success(done.to_owned())),
                None,
            )
            .await
        }
        Err(why) => {
            render_detail(
                &dashboard,
                &signed_in,
                addr,
                &key_id,
                StatusCode::BAD_REQUEST,
                Some(Flash::Error(why)),
                None,
            )
            .await
        }
    }
}

/// `POST /dashboard/keys/{key_id}/rename`.
pub async fn rename(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    Path(key_id): Path<String>,
    PageForm(form): PageForm<RenameForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    change_key(
        dashboard,
        signed_in,
        addr,
        key_id,
        "key_renamed",
        "Renamed.",
        move |store, key, _| match store.rename_key(key, Some(&form.name)) {
            Ok(name) => Ok(Ok(format!("name {:?}", name.unwrap_or_default()))),
            Err(forumdex_accounts::DeveloperError::Account(
                forumdex_accounts::AccountError::InvalidName(why),
            )) => Ok(Err(format!("invalid name: {why}"))),
            Err(err) => Err(err.into()),
        },
    )
    .await
}

/// `POST /dashboard/keys/{key_id}/renew`.
pub async fn renew(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    Path(key_id): Path<String>,
    PageForm(form): PageForm<RenewForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let lifetime = parse_lifetime(&form.lifetime);
    change_key(
        dashboard,
        signed_in,
        addr,
        key_id,
        "key_renewed",
        "Renewed; the secret is unchanged.",
        move |store, key, now| {
            let lifetime = match lifetime {
                Ok(lifetime) => lifetime,
                Err(why) => return Ok(Err(why)),
            };
            match store.renew_key(key, Some(lifetime), now) {
                Ok(info) => Ok(Ok(format!("expires {}", when_or(info.expires_at, "never")))),
                Err(forumdex_accounts::AccountError::KeyRevoked(_)) => {
                    Ok(Err("a revoked key cannot be renewed".to_owned()))
                }
                Err(err) => Err(err.into()),
            }
        },
    )
    .await
}

/// The revoke form: the CSRF token and the box that confirms it.
#[derive(Debug, serde::Deserialize)]
pub struct RevokeForm {
    /// The session's token.
    pub csrf: String,
    /// `yes` when the developer ticked "Yes, revoke".
    #[serde(default)]
    pub confirm: Option<String>,
}

/// `POST /dashboard/keys/{key_id}/revoke`: only with the box ticked.
pub async fn revoke(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    Path(key_id): Path<String>,
    PageForm(form): PageForm<RevokeForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let confirmed = form.confirm.as_deref() == Some("yes");
    change_key(
        dashboard,
        signed_in,
        addr,
        key_id,
        "key_revoked",
        "Revoked.",
        move |store, key, now| {
            if !confirmed {
                return Ok(Err(
                    "Tick \"Yes, revoke\" to confirm: nothing was revoked.".to_owned()
                ));
            }
            store.revoke_key(key, now)?;
            Ok(Ok("revoked".to_owned()))
        },
    )
    .await
}

/// `POST /dashboard/keys/{key_id}/allowlist`: replaces the whole list.
pub async fn allowlist(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    addr: Option<Extension<ClientAddr>>,
    Path(key_id): Path<String>,
    PageForm(form): PageForm<AllowForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let wanted = match parse_allowlist(&form.allow) {
        Ok(wanted) => wanted,
        Err(why) => {
            // The list as typed stays in the field, every bad entry named beside it.
            return render_detail(
                &dashboard,
                &signed_in,
                addr,
                &key_id,
                StatusCode::BAD_REQUEST,
                Some(Flash::Error(
                    "The allowlist was not saved: correct the entries named below.".to_owned(),
                )),
                Some((&form.allow, &why)),
            )
            .await;
        }
    };
    change_key(
        dashboard,
        signed_in,
        addr,
        key_id,
        "allowlist_changed",
        "Allowlist saved; it applies from the next request.",
        move |store, key, _| {
            let current = store.key(key)?.allow;
            let remove: Vec<AllowEntry> = current
                .entries()
                .iter()
                .filter(|entry| !wanted.entries().contains(entry))
                .cloned()
                .collect();
            let now_allowed = store.update_allowlist(key, wanted.entries(), &remove)?;
            let summary = if now_allowed.is_empty() {
                "any address".to_owned()
            } else {
                now_allowed.to_strings().join(", ")
            };
            Ok(Ok(summary))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlists_read_lines_commas_and_spaces() {
        let list = parse_allowlist("203.0.113.7\n 2001:db8::/32, 10.0.0.0/8\r\n").unwrap();
        assert_eq!(
            list.to_strings(),
            ["203.0.113.7/32", "2001:db8::/32", "10.0.0.0/8"]
        );
        assert!(parse_allowlist("").unwrap().is_empty());
        let err = parse_allowlist("10.0.0.0/33").unwrap_err();
        assert!(err.contains("10.0.0.0/33"), "{err}");
        assert!(parse_allowlist("example.com").is_err());
    }
}
