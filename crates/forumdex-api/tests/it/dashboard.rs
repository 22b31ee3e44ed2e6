//! The developer dashboard over HTTP, in-process: every flow (sign-up, verification,
//! sign-in, keys, usage, top-ups, password reset, sign-out) and every refusal (wrong
//! password, unverified address, expired session, CSRF, another account's key, bad CIDR,
//! webhook duplicates, bad signatures, stale timestamps, amount mismatches).

use std::path::Path;

use chrono::Duration;
use forumdex_accounts::{AccountId, Email, TopupStatus};
use forumdex_payments::{TestOutcome, TestProvider, signature};
use reqwest::header;

use crate::harness::{POST, TestApp};

/// The webhook secret the test provider is configured with.
const WEBHOOK_SECRET: &str = "whsec_dashboard_tests";
pub(crate) const PASSWORD: &str = "correct horse battery";

pub(crate) fn config() -> String {
    format!(
        "payment_provider = \"test\"\nstripe_webhook_secret = \"{WEBHOOK_SECRET}\"\nsignup_credits = 2\ncredit_packs = [\"5:1.00 USD\", \"50:9.00 USD\"]\nreceipt_seller = \"Forumdex Ltd | 1 Example Street\"\n"
    )
}

pub(crate) async fn app() -> TestApp {
    TestApp::with_config(&config()).await
}

/// A signed-in browser: its session cookie and the session's CSRF token.
pub(crate) struct Browser {
    pub(crate) cookie: String,
    pub(crate) csrf: String,
}

/// A response's status, `Location` and body.
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) location: Option<String>,
    pub(crate) set_cookie: Option<String>,
    pub(crate) body: String,
    pub(crate) headers: header::HeaderMap,
}

async fn read(response: reqwest::Response) -> Page {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let location = headers
        .get(header::LOCATION)
        .map(|v| v.to_str().unwrap().to_owned());
    let set_cookie = headers
        .get(header::SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_owned());
    Page {
        status,
        location,
        set_cookie,
        body: response.text().await.unwrap(),
        headers,
    }
}

pub(crate) async fn get(app: &TestApp, path: &str, browser: Option<&Browser>) -> Page {
    let mut request = app.client.get(app.url(path));
    if let Some(browser) = browser {
        request = request.header(header::COOKIE, &browser.cookie);
    }
    read(app.send(request).await.unwrap()).await
}

pub(crate) async fn post(
    app: &TestApp,
    path: &str,
    browser: Option<&Browser>,
    form: &[(&str, &str)],
) -> Page {
    let mut request = app
        .client
        .post(app.url(path))
        .header("sec-fetch-site", "same-origin")
        .form(form);
    if let Some(browser) = browser {
        request = request.header(header::COOKIE, &browser.cookie);
    }
    read(app.send(request).await.unwrap()).await
}

/// The newest mail's link to `path` (`/verify` or `/password/reset`), as a path with query.
/// Some mail is sent after the answer (password resets): it waits for it, up to 10 s.
async fn mailed_link(dir: &Path, path: &str) -> String {
    let needle = format!("{path}?token=");
    let line = mailed_link_to(dir, &needle).await;
    line[line.find(&needle).unwrap()..].to_owned()
}

fn mail_count(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("outbox")).map_or(0, |d| d.count())
}

/// The value of the first `name="csrf"` field.
pub(crate) fn csrf_in(body: &str) -> String {
    let start = body.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    body[start..start + 64].to_owned()
}

/// The text of the element with `id`.
pub(crate) fn text_of(body: &str, id: &str) -> String {
    let start = body
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("#{id} in {body}"));
    let open = body[start..].find('>').unwrap() + start + 1;
    let close = body[open..].find('<').unwrap() + open;
    body[open..close].trim().to_owned()
}

async fn sign_up(app: &TestApp, email: &str) {
    let page = post(
        app,
        "/signup",
        None,
        &[("email", email), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(page.status, 303, "{}", page.body);
    assert_eq!(page.location.as_deref(), Some("/signup/sent"));
}

async fn verify(app: &TestApp) {
    let link = mailed_link(app.dir.path(), "/verify").await;
    let page = get(app, &link, None).await;
    assert_eq!(page.status, 303, "{}", page.body);
    assert_eq!(page.location.as_deref(), Some("/login?verified=1"));
}

pub(crate) async fn sign_in(app: &TestApp, email: &str, password: &str) -> Browser {
    let page = post(
        app,
        "/login",
        None,
        &[("email", email), ("password", password)],
    )
    .await;
    assert_eq!(page.status, 303, "{}", page.body);
    signed_in_by(app, page).await
}

/// The browser a sign-in answer (`page`, a redirect setting the session cookie) signed in.
pub(crate) async fn signed_in_by(app: &TestApp, page: Page) -> Browser {
    let cookie = page
        .set_cookie
        .expect("a session cookie")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let mut browser = Browser {
        cookie,
        csrf: String::new(),
    };
    browser.csrf = csrf_in(&get(app, "/dashboard/keys", Some(&browser)).await.body);
    browser
}

/// A new verified developer, signed in.
pub(crate) async fn developer(app: &TestApp, email: &str) -> Browser {
    sign_up(app, email).await;
    verify(app).await;
    sign_in(app, email, PASSWORD).await
}

pub(crate) fn account_of(app: &TestApp, email: &str) -> AccountId {
    app.store(|accounts| accounts.login_by_email(&Email::parse(email).unwrap()))
        .unwrap()
        .expect("a login")
        .account_id
}

/// Creates a key through the form; its id and secret.
/// The one-time token of the create-key form, as a fresh keys page carries it.
async fn form_token(app: &TestApp, browser: &Browser) -> String {
    let page = get(app, "/dashboard/keys", Some(browser)).await;
    let field = "name=\"form\" value=\"";
    let start = page.body.find(field).expect("a form token") + field.len();
    page.body[start..start + 64].to_owned()
}

pub(crate) async fn create_key(app: &TestApp, browser: &Browser, allow: &str) -> (String, String) {
    let form = form_token(app, browser).await;
    let page = post(
        app,
        "/dashboard/keys",
        Some(browser),
        &[
            ("csrf", &browser.csrf),
            ("form", &form),
            ("name", "laptop"),
            ("lifetime", "30d"),
            ("allow", allow),
        ],
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let secret = text_of(&page.body, "secret");
    assert!(secret.starts_with("fdx_live_"), "{secret}");
    let start = page.body.find("key_").unwrap();
    (page.body[start..start + 24].to_owned(), secret)
}

#[tokio::test]
async fn a_developer_signs_up_verifies_creates_a_key_calls_and_tops_up() {
    let app = app().await;
    assert_eq!(get(&app, "/", None).await.status, 200);
    let browser = developer(&app, "dev@example.com").await;
    let overview = get(&app, "/dashboard", Some(&browser)).await;
    assert_eq!(text_of(&overview.body, "balance"), "2");
    assert!(
        !overview.body.contains("id=\"low-balance\""),
        "a new account's sign-up credit is not running out"
    );

    let (key_id, secret) = create_key(&app, &browser, "").await;
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    let low = get(&app, "/dashboard", Some(&browser)).await;
    assert!(
        low.body.contains("Your balance is low: 1 credits"),
        "{}",
        low.body
    );
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    let refused = app.get(POST, Some(&secret)).await;
    assert_eq!(refused.status(), 402);
    for path in ["/dashboard", "/dashboard/billing"] {
        let empty = get(&app, path, Some(&browser)).await;
        assert!(
            empty
                .body
                .contains("Your balance is 0 credits: requests are answered 402 until you top up."),
            "{path}: {}",
            empty.body
        );
        assert!(!empty.body.contains("is low"), "{path}");
    }
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["topupUrl"], "http://127.0.0.1:9/dashboard/billing");

    app.app.usage.flush(&app.app.developers).await;
    let usage = get(&app, "/dashboard/usage", Some(&browser)).await;
    assert!(
        usage.body.contains("<td>200</td><td class=\"num\">2</td>"),
        "{}",
        usage.body
    );
    assert!(
        usage.body.contains("<td>402</td><td class=\"num\">1</td>"),
        "{}",
        usage.body
    );
    assert!(
        usage.body.contains(&format!(
            "<td><a href=\"/dashboard/keys/{key_id}\">laptop <code class=\"faint\">{key_id}</code></a></td>"
        )),
        "keys by name, the id beside: {}",
        usage.body
    );
    let csv = get(&app, "/dashboard/usage.csv", Some(&browser)).await;
    assert!(
        csv.body
            .contains(&format!("{key_id},/api/v1/posts/{{id}},200,2,")),
        "{}",
        csv.body
    );
    let keys = get(&app, "/dashboard/keys", Some(&browser)).await;
    assert!(keys.body.contains(&format!("data-key-id=\"{key_id}\"")));
    assert!(
        keys.body.contains(&secret[..13]),
        "the key's prefix is listed"
    );
    assert!(
        !keys.body.contains(&secret),
        "the secret is never shown again"
    );

    let checkout = post(
        &app,
        "/dashboard/billing/checkout",
        Some(&browser),
        &[("csrf", &browser.csrf), ("pack", "1")],
    )
    .await;
    assert_eq!(checkout.status, 303);
    let location = checkout.location.unwrap();
    let path = location
        .strip_prefix("http://127.0.0.1:9")
        .unwrap()
        .to_owned();
    assert!(path.starts_with("/dashboard/test-checkout/"), "{path}");
    assert_eq!(get(&app, &path, Some(&browser)).await.status, 200);
    let paid = post(
        &app,
        &path,
        Some(&browser),
        &[("csrf", &browser.csrf), ("outcome", "pay")],
    )
    .await;
    assert_eq!(paid.status, 303);
    let billing = get(&app, paid.location.as_deref().unwrap(), Some(&browser)).await;
    assert_eq!(text_of(&billing.body, "balance"), "50");
    assert!(billing.body.contains("Payment received: 50 credits"));
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    let closed = get(&app, &path, Some(&browser)).await;
    assert!(
        closed.body.contains("This checkout is closed (paid)"),
        "{}",
        closed.body
    );
    assert!(
        !closed.body.contains("id=\"pay\""),
        "a paid checkout offers nothing to choose"
    );
    let again = post(
        &app,
        &path,
        Some(&browser),
        &[("csrf", &browser.csrf), ("outcome", "fail")],
    )
    .await;
    assert_eq!(again.status, 400);

    // Renew, rename, then revoke: the next API request is refused.
    let key_path = format!("/dashboard/keys/{key_id}");
    let renewed = post(
        &app,
        &format!("{key_path}/renew"),
        Some(&browser),
        &[("csrf", &browser.csrf), ("lifetime", "365d")],
    )
    .await;
    assert_eq!(renewed.status, 200, "{}", renewed.body);
    let renamed = post(
        &app,
        &format!("{key_path}/rename"),
        Some(&browser),
        &[("csrf", &browser.csrf), ("name", "server")],
    )
    .await;
    assert!(renamed.body.contains("server"));
    let unconfirmed = post(
        &app,
        &format!("{key_path}/revoke"),
        Some(&browser),
        &[("csrf", &browser.csrf)],
    )
    .await;
    assert_eq!(unconfirmed.status, 400, "revoking needs its box ticked");
    assert!(
        unconfirmed.body.contains("nothing was revoked"),
        "{}",
        unconfirmed.body
    );
    assert!(unconfirmed.body.contains("id=\"revoke-confirm\""));
    assert_eq!(
        app.get(POST, Some(&secret)).await.status(),
        200,
        "still active"
    );
    let revoked = post(
        &app,
        &format!("{key_path}/revoke"),
        Some(&browser),
        &[("csrf", &browser.csrf), ("confirm", "yes")],
    )
    .await;
    assert_eq!(revoked.status, 303);
    let after = get(&app, revoked.location.as_deref().unwrap(), Some(&browser)).await;
    assert!(
        after.body.contains("Revoked: the key is refused"),
        "{}",
        after.body
    );
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 401);

    let activity = get(&app, "/dashboard/activity", Some(&browser)).await;
    for kind in [
        "sign up",
        "email verified",
        "sign in",
        "key created",
        "topup paid",
        "key renewed",
        "key renamed",
        "key revoked",
    ] {
        assert!(activity.body.contains(kind), "{kind} in the activity log");
    }
}

#[tokio::test]
async fn sign_in_refuses_wrong_passwords_unverified_addresses_and_too_many_tries() {
    let app = app().await;
    sign_up(&app, "dev@example.com").await;
    let unverified = post(
        &app,
        "/login",
        None,
        &[("email", "dev@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(unverified.status, 403, "{}", unverified.body);
    assert!(unverified.set_cookie.is_none());
    verify(&app).await;
    let wrong = post(
        &app,
        "/login",
        None,
        &[
            ("email", "dev@example.com"),
            ("password", "not the password"),
        ],
    )
    .await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("Wrong email or password"));
    let unknown = post(
        &app,
        "/login",
        None,
        &[("email", "nobody@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(unknown.status, 401, "an unknown address reads the same");
    for _ in 0..4 {
        post(
            &app,
            "/login",
            None,
            &[("email", "DEV@example.com"), ("password", "still wrong")],
        )
        .await;
    }
    let throttled = post(
        &app,
        "/login",
        None,
        &[("email", "dev@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(
        throttled.status, 429,
        "five failures lock the account for a while"
    );
    app.clock.advance(Duration::minutes(16));
    sign_in(&app, "dev@example.com", PASSWORD).await;
}

#[tokio::test]
async fn sign_in_goes_back_only_to_a_page_of_this_site() {
    let app = app().await;
    developer(&app, "dev@example.com").await;
    for (next, expected) in [
        ("/dashboard/usage", "/dashboard/usage"),
        ("//evil.example", "/dashboard"),
        ("/\t/evil.example", "/dashboard"),
        ("/\n/evil.example", "/dashboard"),
        ("/ /evil.example", "/dashboard"),
        ("/\\evil.example", "/dashboard"),
        ("https://evil.example/", "/dashboard"),
    ] {
        let next = next.replace("\\t", "\t").replace("\\n", "\n");
        let page = post(
            &app,
            "/login",
            None,
            &[
                ("email", "dev@example.com"),
                ("password", PASSWORD),
                ("next", &next),
            ],
        )
        .await;
        assert_eq!(page.location.as_deref(), Some(expected), "next={next:?}");
    }
}

#[tokio::test]
async fn sign_up_never_tells_whether_an_address_is_taken() {
    let app = app().await;
    sign_up(&app, "dev@example.com").await;
    let mails = mail_count(app.dir.path());
    sign_up(&app, "Dev@Example.com").await;
    assert_eq!(
        mail_count(app.dir.path()),
        mails + 1,
        "the owner is told by mail"
    );
    let short = post(
        &app,
        "/signup",
        None,
        &[("email", "x@example.com"), ("password", "short")],
    )
    .await;
    assert_eq!(short.status, 400);
    let bad = post(
        &app,
        "/signup",
        None,
        &[("email", "not an address"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(bad.status, 400);
    // An address mail cannot be sent to is refused on the form, with what was typed kept
    // (escaped), no mail sent and no account made.
    let mails = mail_count(app.dir.path());
    let script = post(
        &app,
        "/signup",
        None,
        &[
            ("email", "<script>alert(1)</script>@example.test"),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(script.status, 400);
    assert!(
        script.body.contains("Enter an email address"),
        "{}",
        script.body
    );
    assert!(script.body.contains("&lt;script&gt;"), "{}", script.body);
    assert!(!script.body.contains("<script>alert"), "{}", script.body);
    assert_eq!(
        mail_count(app.dir.path()),
        mails,
        "no mail for a bad address"
    );
    let mut files: Vec<_> = std::fs::read_dir(app.dir.path().join("outbox"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    let newest = std::fs::read_to_string(files.last().unwrap()).unwrap();
    assert!(newest.contains("which already has one"), "{newest}");
}

#[tokio::test]
async fn sessions_expire_when_idle_and_end_everywhere() {
    let app = app().await;
    let first = developer(&app, "dev@example.com").await;
    let second = sign_in(&app, "dev@example.com", PASSWORD).await;
    app.clock.advance(Duration::hours(13));
    let expired = get(&app, "/dashboard", Some(&first)).await;
    assert_eq!(expired.status, 303);
    assert_eq!(
        expired.location.as_deref(),
        Some("/login?next=%2Fdashboard")
    );

    let third = sign_in(&app, "dev@example.com", PASSWORD).await;
    let fourth = sign_in(&app, "dev@example.com", PASSWORD).await;
    let ended = post(
        &app,
        "/logout/everywhere",
        Some(&third),
        &[("csrf", &third.csrf)],
    )
    .await;
    assert_eq!(ended.status, 303);
    let told = ended.location.expect("a redirect");
    assert!(told.starts_with("/login?ended="), "{told}");
    let login = get(&app, &told, None).await;
    assert!(
        login.body.contains("You were signed out everywhere: ")
            && login.body.contains(" sessions ended, this one included."),
        "it says what it did: {}",
        login.body
    );
    for browser in [&second, &third, &fourth] {
        assert_eq!(get(&app, "/dashboard", Some(browser)).await.status, 303);
    }
    let again = sign_in(&app, "dev@example.com", PASSWORD).await;
    let out = post(&app, "/logout", Some(&again), &[("csrf", &again.csrf)]).await;
    assert!(out.set_cookie.unwrap().contains("Max-Age=0"));
    assert_eq!(get(&app, "/dashboard", Some(&again)).await.status, 303);
}

#[tokio::test]
async fn forms_without_this_sites_token_or_origin_are_refused() {
    let app = app().await;
    let browser = developer(&app, "dev@example.com").await;
    let missing = post(
        &app,
        "/dashboard/keys",
        Some(&browser),
        &[("name", "x"), ("lifetime", "7d")],
    )
    .await;
    assert_eq!(
        missing.status, 400,
        "a form without its token does not parse"
    );
    let wrong = post(
        &app,
        "/dashboard/keys",
        Some(&browser),
        &[("csrf", &"0".repeat(64)), ("name", "x"), ("lifetime", "7d")],
    )
    .await;
    assert_eq!(wrong.status, 403);
    let cross_site = app
        .client
        .post(app.url("/dashboard/keys"))
        .header(header::COOKIE, &browser.cookie)
        .header("sec-fetch-site", "cross-site")
        .form(&[
            ("csrf", browser.csrf.as_str()),
            ("name", "x"),
            ("lifetime", "7d"),
        ]);
    assert_eq!(app.send(cross_site).await.unwrap().status(), 403);
    let foreign = app
        .client
        .post(app.url("/login"))
        .header(header::ORIGIN, "https://evil.example")
        .form(&[("email", "dev@example.com"), ("password", PASSWORD)]);
    assert_eq!(app.send(foreign).await.unwrap().status(), 403);
    let unmarked = app
        .client
        .post(app.url("/login"))
        .form(&[("email", "dev@example.com"), ("password", PASSWORD)]);
    assert_eq!(
        app.send(unmarked).await.unwrap().status(),
        403,
        "a form a browser did not mark as this site's"
    );
    let account = account_of(&app, "dev@example.com");
    assert!(
        app.store(|accounts| accounts.list_keys(account))
            .unwrap()
            .is_empty(),
        "no key was made"
    );
}

#[tokio::test]
async fn another_accounts_key_is_not_found_and_stays_untouched() {
    let app = app().await;
    let alice = developer(&app, "alice@example.com").await;
    let (alice_key, alice_secret) = create_key(&app, &alice, "").await;
    let mallory = developer(&app, "mallory@example.com").await;
    let path = format!("/dashboard/keys/{alice_key}");
    assert_eq!(get(&app, &path, Some(&mallory)).await.status, 404);
    let revoke = post(
        &app,
        &format!("{path}/revoke"),
        Some(&mallory),
        &[("csrf", &mallory.csrf), ("confirm", "yes")],
    )
    .await;
    assert_eq!(revoke.status, 404);
    let allow = post(
        &app,
        &format!("{path}/allowlist"),
        Some(&mallory),
        &[("csrf", &mallory.csrf), ("allow", "10.0.0.1")],
    )
    .await;
    assert_eq!(allow.status, 404);
    assert_eq!(
        get(&app, "/dashboard/keys/key_nonsense", Some(&mallory))
            .await
            .status,
        404
    );
    assert_eq!(app.get(POST, Some(&alice_secret)).await.status(), 200);
}

#[tokio::test]
async fn allowlists_are_validated_and_apply_at_the_next_request() {
    let app = app().await;
    let browser = developer(&app, "dev@example.com").await;
    let (key_id, secret) = create_key(&app, &browser, "").await;
    let path = format!("/dashboard/keys/{key_id}");
    let detail = get(&app, &path, Some(&browser)).await;
    assert_eq!(text_of(&detail.body, "your-address"), "127.0.0.1");
    let bad = post(
        &app,
        &format!("{path}/allowlist"),
        Some(&browser),
        &[("csrf", &browser.csrf), ("allow", "10.0.0.0/33")],
    )
    .await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.body.contains("10.0.0.0/33"),
        "the refusal names the entry"
    );
    let key = forumdex_accounts::KeyId::parse(&key_id).unwrap();
    assert!(
        app.store(|accounts| accounts.key(&key))
            .unwrap()
            .allow
            .is_empty()
    );
    let saved = post(
        &app,
        &format!("{path}/allowlist"),
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("allow", "203.0.113.0/24\n2001:db8::1"),
        ],
    )
    .await;
    assert_eq!(saved.status, 200, "{}", saved.body);
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 403);
    post(
        &app,
        &format!("{path}/allowlist"),
        Some(&browser),
        &[("csrf", &browser.csrf), ("allow", "127.0.0.1")],
    )
    .await;
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    let form = form_token(&app, &browser).await;
    let created_bad = post(
        &app,
        "/dashboard/keys",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("form", &form),
            ("name", "x"),
            ("lifetime", "9d"),
            ("allow", ""),
        ],
    )
    .await;
    assert_eq!(
        created_bad.status, 400,
        "a lifetime outside the contract's choices"
    );
}

#[tokio::test]
async fn the_dashboard_never_takes_an_api_key_and_the_api_never_takes_a_session() {
    let app = app().await;
    let browser = developer(&app, "dev@example.com").await;
    let (_, secret) = create_key(&app, &browser, "").await;
    let with_key = app.client.get(app.url("/dashboard")).bearer_auth(&secret);
    let response = app.send(with_key).await.unwrap();
    assert_eq!(response.status(), 303, "an API key is no sign-in");
    let with_session = app
        .client
        .get(app.url(POST))
        .header(header::COOKIE, &browser.cookie);
    assert_eq!(app.send(with_session).await.unwrap().status(), 401);
}

#[tokio::test]
async fn pages_carry_the_security_headers() {
    let app = app().await;
    for path in ["/", "/login", "/docs"] {
        let page = get(&app, path, None).await;
        assert_eq!(page.status, 200);
        let csp = page.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        assert_eq!(page.headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(page.headers[header::REFERRER_POLICY], "same-origin");
        assert!(page.headers.contains_key("x-request-id"));
    }
    let docs = get(&app, "/docs", None).await;
    for operation in ["searchForumPosts", "getForumPost", "listForumTopicPosts"] {
        assert!(docs.body.contains(operation), "{operation} in /docs");
    }
}

#[tokio::test]
async fn a_password_reset_works_once_and_signs_out_everywhere() {
    let app = app().await;
    let old = developer(&app, "dev@example.com").await;
    let asked = post(
        &app,
        "/password/forgot",
        None,
        &[("email", "dev@example.com")],
    )
    .await;
    assert_eq!(asked.location.as_deref(), Some("/password/sent"));
    let link = mailed_link(app.dir.path(), "/password/reset").await;
    assert_eq!(
        get(&app, &link, None).await.status,
        200,
        "opening the link uses nothing up"
    );
    let token = link.split("token=").nth(1).unwrap().to_owned();
    let reset = post(
        &app,
        "/password/reset",
        None,
        &[("token", &token), ("password", "a brand new password")],
    )
    .await;
    assert_eq!(reset.location.as_deref(), Some("/login?reset=1"));
    assert_eq!(
        get(&app, "/dashboard", Some(&old)).await.status,
        303,
        "old sessions ended"
    );
    let again = post(
        &app,
        "/password/reset",
        None,
        &[("token", &token), ("password", "another new password")],
    )
    .await;
    assert_eq!(again.status, 400, "a used link is refused");
    for (opened, what) in [
        (link.clone(), "a used link"),
        ("/password/reset?token=bogus".to_owned(), "a bogus link"),
    ] {
        let page = get(&app, &opened, None).await;
        assert_eq!(page.status, 400, "{what} says so when opened");
        assert!(
            page.body
                .contains("This link is invalid, was already used, or has expired."),
            "{what}: {}",
            page.body
        );
        assert!(
            !page.body.contains("name=\"password\""),
            "{what}: no form to fill in vain"
        );
    }
    let wrong = post(
        &app,
        "/login",
        None,
        &[("email", "dev@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(wrong.status, 401);
    sign_in(&app, "dev@example.com", "a brand new password").await;
    let unknown = post(
        &app,
        "/password/forgot",
        None,
        &[("email", "nobody@example.com")],
    )
    .await;
    assert_eq!(
        unknown.location.as_deref(),
        Some("/password/sent"),
        "no hint an address is unknown"
    );
}

/// Posts a signed webhook body; the status and the body.
async fn deliver(app: &TestApp, body: Vec<u8>, signature: &str) -> (u16, String) {
    let request = app
        .client
        .post(app.url("/webhooks/payments"))
        .header("stripe-signature", signature)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body);
    let response = app.send(request).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn webhooks_credit_once_and_refuse_what_they_cannot_trust() {
    let app = app().await;
    let browser = developer(&app, "dev@example.com").await;
    let account = account_of(&app, "dev@example.com");
    post(
        &app,
        "/dashboard/billing/checkout",
        Some(&browser),
        &[("csrf", &browser.csrf), ("pack", "0")],
    )
    .await;
    let topup = app
        .store(|accounts| accounts.topups(account))
        .unwrap()
        .remove(0);
    let reference = topup.reference.clone().unwrap();
    let provider = TestProvider::new("http://127.0.0.1:9", WEBHOOK_SECRET.to_owned());
    let now = app.app.clock.now().timestamp();

    // A wrong amount credits nothing.
    let (body, sig) = provider.event(TestOutcome::Pay, &reference, topup.id, 99, "usd", now);
    let (status, text) = deliver(&app, body, &sig).await;
    assert_eq!(status, 200);
    assert!(text.contains("Rejected"), "{text}");
    assert_eq!(app.store(|accounts| accounts.balance(account)).unwrap(), 2);

    // A tampered body, another secret, a stale timestamp: refused before anything is read.
    let (body, sig) = provider.event(TestOutcome::Pay, &reference, topup.id, 100, "usd", now);
    let mut tampered = body.clone();
    tampered.extend_from_slice(b" ");
    assert_eq!(deliver(&app, tampered, &sig).await.0, 400);
    let forged = signature::sign("whsec_someone_else", now, &body);
    assert_eq!(deliver(&app, body.clone(), &forged).await.0, 400);
    let stale = signature::sign(WEBHOOK_SECRET, now - 3600, &body);
    assert_eq!(deliver(&app, body.clone(), &stale).await.0, 400);
    assert_eq!(deliver(&app, body.clone(), "").await.0, 400);
    assert_eq!(app.store(|accounts| accounts.balance(account)).unwrap(), 2);

    // A refund delivered before its payment is asked for again (503), not lost.
    let (early, early_sig) = provider.refund_event(topup.id, 100, 100, "usd", now);
    assert_eq!(deliver(&app, early.clone(), &early_sig).await.0, 503);

    // The right event credits once, however often it is delivered.
    for _ in 0..3 {
        assert_eq!(deliver(&app, body.clone(), &sig).await.0, 200);
    }
    assert_eq!(app.store(|accounts| accounts.balance(account)).unwrap(), 7);
    assert_eq!(
        app.store(|accounts| accounts.topup(topup.id))
            .unwrap()
            .status,
        TopupStatus::Paid
    );
    // A late expiry changes nothing; a refund takes the credits back.
    let (body, sig) = provider.event(TestOutcome::Expire, &reference, topup.id, 100, "usd", now);
    assert_eq!(deliver(&app, body, &sig).await.0, 200);
    assert_eq!(
        app.store(|accounts| accounts.topup(topup.id))
            .unwrap()
            .status,
        TopupStatus::Paid
    );
    let (body, sig) = provider.refund_event(topup.id, 100, 100, "usd", now);
    assert_eq!(deliver(&app, body, &sig).await.0, 200);
    assert_eq!(app.store(|accounts| accounts.balance(account)).unwrap(), 2);
    let (status, text) = deliver(&app, early, &early_sig).await;
    assert_eq!(status, 200, "the early delivery again, now applied: {text}");
    assert_eq!(
        app.store(|accounts| accounts.balance(account)).unwrap(),
        2,
        "a refund counts once"
    );
    let ledger = app.store(|accounts| accounts.ledger(account)).unwrap();
    let topups: Vec<_> = ledger
        .iter()
        .filter(|row| row.operation == "topup")
        .collect();
    assert_eq!(topups.len(), 1);
    assert_eq!(ledger.last().unwrap().operation, "refund");
}

#[tokio::test]
async fn top_ups_are_refused_when_no_provider_is_set() {
    let app = TestApp::start().await;
    let browser = developer(&app, "dev@example.com").await;
    let billing = get(&app, "/dashboard/billing", Some(&browser)).await;
    assert!(billing.body.contains("not enabled"));
    let checkout = post(
        &app,
        "/dashboard/billing/checkout",
        Some(&browser),
        &[("csrf", &browser.csrf), ("pack", "0")],
    )
    .await;
    assert_eq!(checkout.status, 503);
    let (status, _) = deliver(&app, b"{}".to_vec(), "t=1,v1=00").await;
    assert_eq!(status, 404);
    let test_checkout = get(&app, "/dashboard/test-checkout/1", Some(&browser)).await;
    assert_eq!(test_checkout.status, 404);
}

#[tokio::test]
async fn public_pages_know_a_signed_in_developer() {
    let app = app().await;
    let anonymous = get(&app, "/", None).await;
    assert!(anonymous.body.contains("id=\"signup\""));
    assert!(!anonymous.body.contains("id=\"logout\""));
    let browser = developer(&app, "dev@example.com").await;
    for path in ["/", "/docs"] {
        let page = get(&app, path, Some(&browser)).await;
        assert!(
            page.body.contains("id=\"logout\""),
            "{path} shows the developer's header"
        );
        assert!(!page.body.contains("id=\"signup\""), "{path}");
    }
}

/// `path` asked for as a browser does (`Accept` naming HTML first).
async fn browse(app: &TestApp, path: &str) -> Page {
    let request = app.client.get(app.url(path)).header(
        header::ACCEPT,
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    );
    read(app.send(request).await.unwrap()).await
}

#[tokio::test]
async fn browsers_get_an_html_not_found_and_api_clients_the_json_one() {
    let app = app().await;
    for path in ["/dashboard/nope", "/forgot", "/nope/deeper?x=1"] {
        let page = browse(&app, path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(
            page.headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{path}"
        );
        assert!(page.body.contains("There is nothing here."), "{path}");
        assert!(page.body.contains("href=\"/\""), "a way back: {path}");
        assert!(
            page.headers.contains_key(header::CONTENT_SECURITY_POLICY),
            "the pages' security headers: {path}"
        );
        assert!(page.headers.contains_key("x-request-id"), "{path}");
    }
    // Under /api/ and for clients that do not ask for HTML: the contract's JSON body.
    for (path, html) in [("/api/v1/nope", true), ("/dashboard/nope", false)] {
        let page = if html {
            browse(&app, path).await
        } else {
            get(&app, path, None).await
        };
        assert_eq!(page.status, 404, "{path}");
        let body: serde_json::Value = serde_json::from_str(&page.body).expect("a JSON body");
        assert_eq!(body["error"], "no such route", "{path}");
        assert!(body["requestId"].is_string(), "{path}");
    }
}

#[tokio::test]
async fn the_icon_browsers_ask_for_is_served() {
    let app = app().await;
    let response = app
        .send(app.client.get(app.url("/favicon.ico")))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/x-icon");
    let bytes = response.bytes().await.unwrap();
    assert_eq!(&bytes[..4], &[0, 0, 1, 0], "an ICO header");
    assert!(bytes.len() > 22, "with an image inside");
}

/// The `id` attributes of an HTML page, in order.
fn ids_of(body: &str) -> Vec<&str> {
    body.split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

/// The levels of an HTML page's headings (`<h2` is 2), in order.
fn heading_levels(body: &str) -> Vec<u32> {
    body.split("<h")
        .skip(1)
        .filter_map(|rest| rest.chars().next()?.to_digit(10))
        .filter(|level| (1..=6).contains(level))
        .collect()
}

#[tokio::test]
async fn no_page_repeats_an_id_or_skips_a_heading_level() {
    let app = app().await;
    let mut pages = Vec::new();
    for path in ["/", "/docs", "/login", "/signup", "/password/forgot"] {
        pages.push((path.to_owned(), get(&app, path, None).await));
    }
    let browser = developer(&app, "ids@example.com").await;
    let (key_id, _) = create_key(&app, &browser, "").await;
    for path in [
        "/".to_owned(),
        "/docs".to_owned(),
        "/dashboard".to_owned(),
        "/dashboard/keys".to_owned(),
        format!("/dashboard/keys/{key_id}"),
        "/dashboard/usage".to_owned(),
        "/dashboard/usage?by=hour".to_owned(),
        "/dashboard/requests".to_owned(),
        "/dashboard/account".to_owned(),
        "/dashboard/account/two-factor".to_owned(),
        "/dashboard/billing".to_owned(),
        "/dashboard/activity".to_owned(),
    ] {
        let page = get(&app, &path, Some(&browser)).await;
        pages.push((path, page));
    }
    for (path, page) in &pages {
        assert_eq!(page.status, 200, "{path}");
        let ids = ids_of(&page.body);
        assert!(!ids.is_empty(), "{path} has ids to check");
        let mut seen = std::collections::HashSet::new();
        for id in &ids {
            assert!(seen.insert(*id), "{path} repeats id {id:?}");
        }
        let levels = heading_levels(&page.body);
        assert_eq!(levels.first(), Some(&1), "{path} starts with its h1");
        for pair in levels.windows(2) {
            assert!(
                pair[1] <= pair[0] + 1,
                "{path} goes from h{} to h{}: {levels:?}",
                pair[0],
                pair[1]
            );
        }
    }
}

/// `POST path` with `form` from the client address `source` (named by `X-Forwarded-For`,
/// which the app believes from this machine when its config trusts it).
async fn post_from(app: &TestApp, source: &str, path: &str, form: &[(&str, &str)]) -> Page {
    let request = app
        .client
        .post(app.url(path))
        .header("sec-fetch-site", "same-origin")
        .header("x-forwarded-for", source)
        .form(form);
    read(app.send(request).await.unwrap()).await
}

#[tokio::test]
async fn a_stranger_guessing_a_password_locks_out_only_themselves_and_a_reset_lifts_it() {
    let app = TestApp::with_config(&format!(
        "{}trusted_proxies = [\"127.0.0.1\", \"::1\"]\n",
        config()
    ))
    .await;
    developer(&app, "dev@example.com").await;
    let (stranger, owner) = ("203.0.113.9", "198.51.100.2");
    let wrong = [("email", "dev@example.com"), ("password", "a guess")];
    for _ in 0..5 {
        assert_eq!(
            post_from(&app, stranger, "/login", &wrong).await.status,
            401
        );
    }
    let locked = post_from(&app, stranger, "/login", &wrong).await;
    assert_eq!(locked.status, 429);
    assert!(
        locked
            .body
            .contains("Too many failed sign-ins to this account from your network address"),
        "{}",
        locked.body
    );
    let right = [("email", "dev@example.com"), ("password", PASSWORD)];
    let signed_in = post_from(&app, owner, "/login", &right).await;
    assert_eq!(
        signed_in.status, 303,
        "the owner elsewhere: {}",
        signed_in.body
    );

    // The owner's own mistakes lock their address out, until a completed reset.
    for _ in 0..5 {
        post_from(&app, owner, "/login", &wrong).await;
    }
    assert_eq!(post_from(&app, owner, "/login", &right).await.status, 429);
    post_from(
        &app,
        owner,
        "/password/forgot",
        &[("email", "dev@example.com")],
    )
    .await;
    let link = mailed_link(app.dir.path(), "/password/reset").await;
    let token = link.split("token=").nth(1).unwrap().to_owned();
    let new_password = "a brand new password";
    let reset = post_from(
        &app,
        owner,
        "/password/reset",
        &[("token", &token), ("password", new_password)],
    )
    .await;
    assert_eq!(reset.location.as_deref(), Some("/login?reset=1"));
    let after = post_from(
        &app,
        owner,
        "/login",
        &[("email", "dev@example.com"), ("password", new_password)],
    )
    .await;
    assert_eq!(
        after.status, 303,
        "the reset lifted the lock: {}",
        after.body
    );
}

#[tokio::test]
async fn pages_mark_where_you_are_and_who_you_are() {
    let app = app().await;
    let anonymous = get(&app, "/docs", None).await;
    assert!(
        anonymous
            .body
            .contains("<a class=\"skip\" href=\"#content\">")
    );
    assert!(anonymous.body.contains("<main id=\"content\""));
    assert!(
        anonymous
            .body
            .contains("<a href=\"/docs\" aria-current=\"page\">API docs</a>"),
        "{}",
        anonymous.body
    );
    let browser = developer(&app, "where@example.com").await;
    create_key(&app, &browser, "").await;
    for (path, current) in [
        ("/dashboard", "Overview"),
        ("/dashboard/keys", "Keys"),
        ("/dashboard/usage", "Usage"),
        ("/dashboard/requests", "Requests"),
        ("/dashboard/billing", "Billing"),
        ("/dashboard/activity", "Activity"),
    ] {
        let page = get(&app, path, Some(&browser)).await;
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(
            page.body.matches("aria-current=\"page\"").count(),
            1,
            "one current section on {path}"
        );
        assert!(
            page.body.contains(&format!(
                "href=\"{path}\" aria-current=\"page\">{current}</a>"
            )),
            "{path}: {}",
            page.body
        );
        assert!(
            page.body
                .contains("title=\"Your account\">where@example.com</a>"),
            "the signed-in address in plain view on {path}"
        );
    }
    let overview = get(&app, "/dashboard", Some(&browser)).await;
    assert!(
        overview.body.contains("With your active key ("),
        "{}",
        overview.body
    );
    assert!(!overview.body.contains("1 active keys"));
}

#[tokio::test]
async fn a_refused_form_keeps_what_was_typed_and_marks_every_bad_entry() {
    let app = app().await;
    let browser = developer(&app, "typed@example.com").await;
    let form = form_token(&app, &browser).await;
    let refused = post(
        &app,
        "/dashboard/keys",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("form", &form),
            ("name", "prod server"),
            ("lifetime", "365d"),
            ("allow", "10.0.0.0/8\n300.1.1.1\nnot-an-ip"),
        ],
    )
    .await;
    assert_eq!(refused.status, 400);
    let body = &refused.body.replace("&quot;", "\"");
    assert!(
        body.contains("value=\"prod server\""),
        "the name stays: {body}"
    );
    assert!(
        body.contains("<option value=\"365d\" selected>"),
        "the lifetime stays: {body}"
    );
    assert!(
        body.contains("10.0.0.0/8\n300.1.1.1\nnot-an-ip</textarea>"),
        "the allowlist stays as typed: {body}"
    );
    assert!(
        body.contains(
            "<p class=\"field-error\" id=\"allow-error\">\"300.1.1.1\", \"not-an-ip\" are not IPv4 or IPv6 addresses or CIDR ranges</p>"
        ),
        "every bad entry named beside the field: {body}"
    );
    assert!(
        body.contains("aria-invalid=\"true\" aria-describedby=\"allow-error\""),
        "the field marked and tied to its message: {body}"
    );
    assert!(
        !body.contains("id=\"name-error\""),
        "a good field is not marked"
    );
    let keys = app.store(|accounts| accounts.list_keys(account_of(&app, "typed@example.com")));
    assert!(keys.unwrap().is_empty(), "nothing was created");

    // The same on a key's settings: the typed list stays, each bad entry named.
    let (key_id, _) = create_key(&app, &browser, "").await;
    let path = format!("/dashboard/keys/{key_id}");
    let bad = post(
        &app,
        &format!("{path}/allowlist"),
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("allow", "203.0.113.7, 10.0.0.0/33 ::1 bogus"),
        ],
    )
    .await;
    assert_eq!(bad.status, 400);
    let body = bad.body.replace("&quot;", "\"");
    assert!(
        body.contains("203.0.113.7, 10.0.0.0/33 ::1 bogus</textarea>"),
        "{body}"
    );
    assert!(
        body.contains("\"10.0.0.0/33\", \"bogus\" are not IPv4 or IPv6 addresses"),
        "{body}"
    );
    assert!(body.contains("aria-describedby=\"allow-error\""));
}

#[tokio::test]
async fn a_reloaded_new_key_page_creates_no_second_key() {
    let app = app().await;
    let browser = developer(&app, "reload@example.com").await;
    let account = account_of(&app, "reload@example.com");
    let keys = || app.store(|accounts| accounts.list_keys(account)).unwrap();
    let form = form_token(&app, &browser).await;
    let fields = [
        ("csrf", browser.csrf.as_str()),
        ("form", form.as_str()),
        ("name", "prod"),
        ("lifetime", "30d"),
        ("allow", ""),
    ];
    let first = post(&app, "/dashboard/keys", Some(&browser), &fields).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let secret = text_of(&first.body, "secret");

    // The browser's "resend the form?" after a reload: the same fields again.
    let again = post(&app, "/dashboard/keys", Some(&browser), &fields).await;
    assert_eq!(again.status, 409, "{}", again.body);
    let created = keys();
    assert_eq!(created.len(), 1, "one key from one form");
    assert!(
        again.body.contains("This key was already created"),
        "{}",
        again.body
    );
    assert!(
        again.body.contains(created[0].key_id.as_str()),
        "{}",
        again.body
    );
    assert!(
        !again.body.contains(&secret),
        "the secret is shown once only"
    );

    // A form from a page without a token (or a forged one) creates nothing.
    let stale = post(
        &app,
        "/dashboard/keys",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("name", "old"),
            ("lifetime", "30d"),
        ],
    )
    .await;
    assert_eq!(stale.status, 400, "{}", stale.body);
    assert!(stale.body.contains("out of date"), "{}", stale.body);
    assert_eq!(keys().len(), 1);

    // Every keys page carries a new form: creating another key still works.
    assert_ne!(form_token(&app, &browser).await, form);
    create_key(&app, &browser, "").await;
    assert_eq!(keys().len(), 2);
}

#[tokio::test]
async fn the_ledger_sums_charges_per_day_and_key_keeps_every_credit_and_exports_csv() {
    let app = app().await;
    let browser = developer(&app, "ledger@example.com").await;
    let account = account_of(&app, "ledger@example.com");
    app.store(|accounts| accounts.add_credits(account, 150, chrono::Utc::now()))
        .unwrap();
    let (key_id, secret) = create_key(&app, &browser, "").await;
    for _ in 0..120 {
        assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    }

    let billing = get(&app, "/dashboard/billing", Some(&browser)).await;
    assert_eq!(billing.status, 200);
    let body = &billing.body;
    assert!(
        body.contains("Sign-up credit"),
        "the sign-up credit stays after 120 calls: {body}"
    );
    assert!(body.contains("Credits added by the operator"), "{body}");
    assert!(
        body.contains(&format!(
            "Requests with key <a href=\"/dashboard/keys/{key_id}\">laptop</a>"
        )),
        "charges summed under the key's name: {body}"
    );
    assert!(
        body.contains("<table class=\"stack\" id=\"ledger\">"),
        "one block per row on a phone: {body}"
    );
    assert!(body.contains("id=\"ledger-csv\""), "{body}");

    let csv = get(&app, "/dashboard/billing/ledger.csv", Some(&browser)).await;
    assert_eq!(csv.status, 200);
    assert_eq!(csv.headers[header::CONTENT_TYPE], "text/csv; charset=utf-8");
    assert!(
        csv.headers[header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"forumdex-ledger-"),
    );
    let rows: Vec<Vec<&str>> = csv.body.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "date",
            "kind",
            "key_id",
            "key_name",
            "operation",
            "requests",
            "credits",
            "balance_after"
        ]
    );
    let charged: u64 = rows[1..]
        .iter()
        .filter(|row| row[1] == "charges")
        .map(|row| row[5].parse::<u64>().unwrap())
        .sum();
    assert_eq!(charged, 120, "every request charged: {}", csv.body);
    let credits: Vec<(&str, &str)> = rows[1..]
        .iter()
        .filter(|row| row[1] == "entry")
        .map(|row| (row[4], row[6]))
        .collect();
    assert_eq!(
        credits,
        [("\"credits_add\"", "150"), ("\"signup_credits\"", "2")],
        "credits one by one, newest first"
    );
    assert_eq!(rows.last().unwrap()[7], "2", "the first row's balance");

    let empty = get(&app, "/dashboard/billing?month=2001-01", Some(&browser)).await;
    assert_eq!(empty.status, 200);
    assert!(
        empty
            .body
            .contains("Nothing changed your balance this month.")
    );
    assert!(!empty.body.contains("id=\"ledger-older\""), "nothing older");
    assert!(empty.body.contains("id=\"ledger-newer\""));
    let bad = get(&app, "/dashboard/billing?month=11-2026", Some(&browser)).await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("is not a month"), "{}", bad.body);
}

#[tokio::test]
async fn the_request_log_shows_each_request_with_its_id_filters_and_leaves_out_cursors() {
    let app = app().await;
    let browser = developer(&app, "log@example.com").await;
    let (key_id, secret) = create_key(&app, &browser, "").await;
    let served = app.get(POST, Some(&secret)).await;
    assert_eq!(served.status(), 200);
    let served_id = served.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let walk = "/api/v1/topics/1/posts?limit=5&cursor=not-a-real-cursor";
    let refused = app.get(walk, Some(&secret)).await;
    assert_eq!(refused.status(), 400, "a cursor this server did not sign");
    let refused_id = refused.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    app.app.request_log.flush(&app.app.developers).await;

    let page = get(&app, "/dashboard/requests", Some(&browser)).await;
    assert_eq!(page.status, 200);
    let body = &page.body;
    assert!(
        body.contains(&format!("data-request-id=\"{served_id}\"")),
        "{body}"
    );
    assert!(
        body.contains(&format!("data-request-id=\"{refused_id}\"")),
        "{body}"
    );
    assert!(
        body.find(&refused_id) < body.find(&served_id),
        "newest first: {body}"
    );
    assert!(body.contains(&format!("GET {POST}")), "{body}");
    assert!(
        body.contains("GET /api/v1/topics/1/posts?limit=5&amp;cursor=…"),
        "the path without the cursor: {body}"
    );
    assert!(
        !body.contains("not-a-real-cursor"),
        "cursors are never kept"
    );
    assert!(body.contains(">laptop</a>"), "the key by name: {body}");
    assert!(
        body.contains(">127.0.0.1</td>"),
        "the client address: {body}"
    );

    let only_400 = get(&app, "/dashboard/requests?status=400", Some(&browser)).await;
    assert!(only_400.body.contains(&refused_id));
    assert!(!only_400.body.contains(&served_id), "{}", only_400.body);
    let by_key = get(
        &app,
        &format!("/dashboard/requests?key={key_id}&status="),
        Some(&browser),
    )
    .await;
    assert!(by_key.body.contains(&served_id) && by_key.body.contains(&refused_id));
    let bad = get(&app, "/dashboard/requests?status=abc", Some(&browser)).await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("is not an HTTP status"), "{}", bad.body);

    // Another account sees none of them.
    let stranger = developer(&app, "stranger@example.com").await;
    let theirs = get(&app, "/dashboard/requests", Some(&stranger)).await;
    assert!(
        theirs.body.contains("No requests match."),
        "{}",
        theirs.body
    );
    let probe = get(
        &app,
        &format!("/dashboard/requests?key={key_id}"),
        Some(&stranger),
    )
    .await;
    assert!(!probe.body.contains(&served_id));
}

#[tokio::test]
async fn the_account_page_changes_the_password_ends_sessions_and_exports_the_data() {
    let app = app().await;
    let laptop = developer(&app, "acct@example.com").await;
    let phone = sign_in(&app, "acct@example.com", PASSWORD).await;
    let tablet = sign_in(&app, "acct@example.com", PASSWORD).await;
    create_key(&app, &laptop, "").await;

    let page = get(&app, "/dashboard/account", Some(&laptop)).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("aria-current=\"page\">acct@example.com</a>"),
        "{}",
        page.body
    );
    assert_eq!(
        page.body.matches("name=\"session\"").count(),
        3,
        "three sessions"
    );
    assert_eq!(page.body.matches("this browser").count(), 1);

    // End the tablet's session from the laptop: the tablet is signed out, the rest stay.
    let tablet_hash = forumdex_accounts::TokenHash::of(tablet.cookie.split_once('=').unwrap().1);
    let ended = post(
        &app,
        "/dashboard/account/sessions/end",
        Some(&laptop),
        &[
            ("csrf", &laptop.csrf),
            ("session", &hex::encode(tablet_hash.0)),
        ],
    )
    .await;
    assert_eq!(ended.status, 303, "{}", ended.body);
    assert_eq!(
        get(&app, "/dashboard", Some(&tablet)).await.status,
        303,
        "signed out"
    );
    assert_eq!(get(&app, "/dashboard", Some(&phone)).await.status, 200);

    // A wrong current password changes nothing and says so beside the field.
    let wrong = post(
        &app,
        "/dashboard/account/password",
        Some(&laptop),
        &[
            ("csrf", &laptop.csrf),
            ("current", "not my password"),
            ("password", "a new long password"),
        ],
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert!(
        wrong
            .body
            .contains("id=\"password-error\">The current password is not right"),
        "{}",
        wrong.body
    );
    let short = post(
        &app,
        "/dashboard/account/password",
        Some(&laptop),
        &[
            ("csrf", &laptop.csrf),
            ("current", PASSWORD),
            ("password", "short"),
        ],
    )
    .await;
    assert_eq!(short.status, 400);
    assert!(
        short
            .body
            .contains("aria-invalid=\"true\" aria-describedby=\"password-error\"")
    );

    let changed = post(
        &app,
        "/dashboard/account/password",
        Some(&laptop),
        &[
            ("csrf", &laptop.csrf),
            ("current", PASSWORD),
            ("password", "a new long password"),
        ],
    )
    .await;
    assert_eq!(changed.status, 303, "{}", changed.body);
    assert_eq!(
        changed.location.as_deref(),
        Some("/dashboard/account?changed=1")
    );
    assert_eq!(
        get(&app, "/dashboard", Some(&laptop)).await.status,
        200,
        "this session stays"
    );
    assert_eq!(
        get(&app, "/dashboard", Some(&phone)).await.status,
        303,
        "the others end"
    );
    let old = post(
        &app,
        "/login",
        None,
        &[("email", "acct@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(old.status, 401, "the old password no longer signs in");
    sign_in(&app, "acct@example.com", "a new long password").await;

    // The data download: the account, its key (no secret), the ledger, the activity.
    let export = get(&app, "/dashboard/account/export.json", Some(&laptop)).await;
    assert_eq!(export.status, 200);
    assert!(
        export.headers[header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .starts_with("attachment;")
    );
    let data: serde_json::Value = serde_json::from_str(&export.body).unwrap();
    assert_eq!(data["account"]["email"], "acct@example.com");
    assert_eq!(data["account"]["balance"], 2);
    assert_eq!(data["keys"].as_array().unwrap().len(), 1);
    assert_eq!(data["keys"][0]["name"], "laptop");
    assert!(!export.body.contains("fdx_live_") || export.body.contains("\"prefix\": \"fdx_live_"));
    assert_eq!(data["ledger"][0]["operation"], "signup_credits");
    let kinds: Vec<&str> = data["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"password_changed") && kinds.contains(&"session_ended"),
        "{kinds:?}"
    );

    // Signing out here from the list ends this session.
    let own = forumdex_accounts::TokenHash::of(laptop.cookie.split_once('=').unwrap().1);
    let out = post(
        &app,
        "/dashboard/account/sessions/end",
        Some(&laptop),
        &[("csrf", &laptop.csrf), ("session", &hex::encode(own.0))],
    )
    .await;
    assert_eq!(out.location.as_deref(), Some("/login?signed_out=1"));
    assert_eq!(get(&app, "/dashboard", Some(&laptop)).await.status, 303);
}

#[tokio::test]
async fn deleting_the_account_needs_the_password_and_the_box_and_stops_its_keys() {
    let app = app().await;
    let browser = developer(&app, "leaving@example.com").await;
    let account = account_of(&app, "leaving@example.com");
    let (_, secret) = create_key(&app, &browser, "").await;
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    let page = get(&app, "/dashboard/account", Some(&browser)).await;
    assert!(
        page.body.contains("forfeit 1 credits"),
        "the balance at stake: {}",
        page.body
    );

    let unticked = post(
        &app,
        "/dashboard/account/delete",
        Some(&browser),
        &[("csrf", &browser.csrf), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(unticked.status, 400);
    assert!(
        unticked.body.contains("id=\"delete-error\">Tick the box"),
        "{}",
        unticked.body
    );
    let wrong = post(
        &app,
        "/dashboard/account/delete",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("password", "not my password"),
            ("confirm", "yes"),
        ],
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert!(wrong.body.contains("nothing was deleted"), "{}", wrong.body);
    assert_eq!(
        app.get(POST, Some(&secret)).await.status(),
        200,
        "the key still works"
    );
    app.store(|accounts| accounts.add_credits(account, 5, chrono::Utc::now()))
        .unwrap();

    let deleted = post(
        &app,
        "/dashboard/account/delete",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("password", PASSWORD),
            ("confirm", "yes"),
        ],
    )
    .await;
    assert_eq!(deleted.status, 303, "{}", deleted.body);
    assert_eq!(deleted.location.as_deref(), Some("/login?closed=1"));
    assert_eq!(
        app.get(POST, Some(&secret)).await.status(),
        401,
        "its keys stop at once"
    );
    assert_eq!(
        get(&app, "/dashboard", Some(&browser)).await.status,
        303,
        "signed out"
    );
    let farewell = get(&app, "/login?closed=1", None).await;
    assert!(farewell.body.contains("Your account was deleted"));
    let signin = post(
        &app,
        "/login",
        None,
        &[("email", "leaving@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(signin.status, 401, "the login is gone");
    let ledger = app.store(|accounts| accounts.ledger(account)).unwrap();
    let last = ledger.last().unwrap();
    assert_eq!(
        (last.operation.as_str(), last.amount),
        ("account_closed", -5)
    );
    // The address may sign up again, as a new account.
    developer(&app, "leaving@example.com").await;
    assert_ne!(account_of(&app, "leaving@example.com"), account);
}

#[tokio::test]
async fn the_sign_in_address_changes_once_the_new_one_confirms_it() {
    let app = app().await;
    let browser = developer(&app, "before@example.com").await;
    developer(&app, "taken@example.com").await;
    let change = |email: &'static str, password: &'static str| {
        let browser = &browser;
        let app = &app;
        async move {
            post(
                app,
                "/dashboard/account/email",
                Some(browser),
                &[
                    ("csrf", &browser.csrf),
                    ("email", email),
                    ("password", password),
                ],
            )
            .await
        }
    };
    let bad = change("<script>@x", PASSWORD).await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.body
            .contains("id=\"email-error\">That is not an email address"),
        "{}",
        bad.body
    );
    let wrong = change("after@example.com", "not my password").await;
    assert_eq!(wrong.status, 400);
    assert!(
        wrong.body.contains("The password is not right"),
        "{}",
        wrong.body
    );

    // An address another account has gets the same answer, and no mail goes out.
    let mails = mail_count(app.dir.path());
    let taken = change("taken@example.com", PASSWORD).await;
    assert_eq!(taken.status, 303);
    assert_eq!(
        taken.location.as_deref(),
        Some("/dashboard/account?email_sent=1")
    );
    assert_eq!(
        mail_count(app.dir.path()),
        mails,
        "nothing tells the address is taken"
    );

    let asked = change("after@example.com", PASSWORD).await;
    assert_eq!(asked.status, 303);
    let link = mailed_link(app.dir.path(), "/account/email/confirm").await;
    assert_eq!(
        mail_count(app.dir.path()),
        mails + 2,
        "the link to the new address, a notice to the old"
    );
    let old = post(
        &app,
        "/login",
        None,
        &[("email", "before@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(
        old.status, 303,
        "the old address signs in until the link is opened"
    );

    let confirmed = get(&app, &link, None).await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.body);
    assert!(
        confirmed
            .body
            .contains("You now sign in with after@example.com"),
        "{}",
        confirmed.body
    );
    assert_eq!(
        get(&app, &link, None).await.status,
        400,
        "the link works once"
    );
    let now_old = post(
        &app,
        "/login",
        None,
        &[("email", "before@example.com"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(now_old.status, 401);
    sign_in(&app, "after@example.com", PASSWORD).await;
    let page = get(&app, "/dashboard/account", Some(&browser)).await;
    assert!(
        page.body
            .contains("id=\"account-email\">after@example.com<"),
        "{}",
        page.body
    );
}

#[tokio::test]
async fn a_paid_top_up_has_a_printable_receipt_that_is_also_mailed() {
    let app = app().await;
    let browser = developer(&app, "payer@example.com").await;
    let order = |pack: &'static str| {
        let (app, browser) = (&app, &browser);
        async move {
            let checkout = post(
                app,
                "/dashboard/billing/checkout",
                Some(browser),
                &[("csrf", &browser.csrf), ("pack", pack)],
            )
            .await;
            assert_eq!(checkout.status, 303);
            checkout
                .location
                .unwrap()
                .strip_prefix("http://127.0.0.1:9")
                .unwrap()
                .to_owned()
        }
    };
    let unpaid = order("0").await;
    let paid = order("1").await;
    let done = post(
        &app,
        &paid,
        Some(&browser),
        &[("csrf", &browser.csrf), ("outcome", "pay")],
    )
    .await;
    assert_eq!(done.status, 303);
    let paid_id = paid.rsplit('/').next().unwrap().to_owned();
    let unpaid_id = unpaid.rsplit('/').next().unwrap().to_owned();

    let receipt_path = format!("/dashboard/billing/receipts/{paid_id}");
    let link = mailed_link_to(app.dir.path(), &receipt_path).await;
    assert!(link.ends_with(&receipt_path), "{link}");
    let billing = get(&app, "/dashboard/billing", Some(&browser)).await;
    assert!(
        billing.body.contains(&format!("href=\"{receipt_path}\"")),
        "{}",
        billing.body
    );

    let receipt = get(&app, &receipt_path, Some(&browser)).await;
    assert_eq!(receipt.status, 200);
    assert!(
        receipt
            .body
            .contains(&format!("Receipt FDX-{:0>6}", paid_id)),
        "{}",
        receipt.body
    );
    assert!(receipt.body.contains("9.00 USD"), "{}", receipt.body);
    assert!(
        receipt.body.contains("Forumdex Ltd<br>1 Example Street"),
        "the seller the operator set: {}",
        receipt.body
    );
    assert!(
        receipt.body.contains("50 forumdex API credits"),
        "{}",
        receipt.body
    );
    assert!(receipt.body.contains("payer@example.com"));

    let none = get(
        &app,
        &format!("/dashboard/billing/receipts/{unpaid_id}"),
        Some(&browser),
    )
    .await;
    assert_eq!(none.status, 404, "an unpaid order has no receipt");
    let stranger = developer(&app, "nosy@example.com").await;
    assert_eq!(get(&app, &receipt_path, Some(&stranger)).await.status, 404);
}

/// The line holding `path` of the newest mail that has one, waited for up to 10 s (mail is
/// sent after the answer).
async fn mailed_link_to(dir: &Path, path: &str) -> String {
    for _ in 0..200 {
        let mut files: Vec<_> = std::fs::read_dir(dir.join("outbox"))
            .map(|entries| {
                entries
                    .map(|entry| entry.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e == "eml"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        for file in files.iter().rev() {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if let Some(line) = text.lines().find(|line| line.contains(path)) {
                return line.trim().to_owned();
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no mail with {path} arrived");
}

/// How many outbox mails have `subject`.
fn mails_with_subject(dir: &Path, subject: &str) -> usize {
    std::fs::read_dir(dir.join("outbox"))
        .map(|entries| {
            entries
                .filter_map(|entry| std::fs::read_to_string(entry.unwrap().path()).ok())
                .filter(|text| text.contains(&format!("Subject: {subject}")))
                .count()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn a_low_balance_is_mailed_once_per_crossing_of_the_threshold_set() {
    let app = app().await;
    let browser = developer(&app, "thrifty@example.com").await;
    let (_, secret) = create_key(&app, &browser, "").await;
    let bad = post(
        &app,
        "/dashboard/billing/alert",
        Some(&browser),
        &[("csrf", &browser.csrf), ("threshold", "lots")],
    )
    .await;
    assert_eq!(bad.status, 400);
    let set = post(
        &app,
        "/dashboard/billing/alert",
        Some(&browser),
        &[("csrf", &browser.csrf), ("threshold", "2")],
    )
    .await;
    assert_eq!(set.status, 303);
    let billing = get(&app, "/dashboard/billing", Some(&browser)).await;
    assert!(
        billing
            .body
            .contains("falls below <strong>2</strong> credits"),
        "{}",
        billing.body
    );

    let subject = "Your forumdex balance is low";
    forumdex_dashboard::alerts::send_low_balance_alerts(&app.app.dashboard).await;
    assert_eq!(
        mails_with_subject(app.dir.path(), subject),
        0,
        "2 is not below 2"
    );
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    forumdex_dashboard::alerts::send_low_balance_alerts(&app.app.dashboard).await;
    assert_eq!(mails_with_subject(app.dir.path(), subject), 1);
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    forumdex_dashboard::alerts::send_low_balance_alerts(&app.app.dashboard).await;
    assert_eq!(
        mails_with_subject(app.dir.path(), subject),
        1,
        "once per crossing"
    );

    let off = post(
        &app,
        "/dashboard/billing/alert",
        Some(&browser),
        &[("csrf", &browser.csrf), ("threshold", "")],
    )
    .await;
    assert_eq!(off.status, 303);
    let billing = get(&app, "/dashboard/billing", Some(&browser)).await;
    assert!(
        billing.body.contains("Off: set a number of credits"),
        "{}",
        billing.body
    );
}

#[tokio::test]
async fn usage_can_be_read_for_one_key() {
    let app = app().await;
    let browser = developer(&app, "twokeys@example.com").await;
    let (first, first_secret) = create_key(&app, &browser, "").await;
    let (second, second_secret) = create_key(&app, &browser, "").await;
    assert_eq!(app.get(POST, Some(&first_secret)).await.status(), 200);
    assert_eq!(app.get(POST, Some(&second_secret)).await.status(), 200);
    app.app.usage.flush(&app.app.developers).await;

    let all = get(&app, "/dashboard/usage", Some(&browser)).await;
    assert!(all.body.contains(&first) && all.body.contains(&second));
    let one = get(
        &app,
        &format!("/dashboard/usage?key={first}"),
        Some(&browser),
    )
    .await;
    assert_eq!(one.status, 200);
    let by_key = one.body.split("id=\"by-key\"").nth(1).unwrap();
    assert!(
        by_key.contains(&first) && !by_key.contains(&second),
        "{by_key}"
    );
    assert!(
        one.body
            .contains(&format!("<option value=\"{first}\" selected>")),
        "{}",
        one.body
    );
    let csv = get(
        &app,
        &format!("/dashboard/usage.csv?key={first}"),
        Some(&browser),
    )
    .await;
    assert!(
        csv.body.contains(&first) && !csv.body.contains(&second),
        "{}",
        csv.body
    );
    let bad = get(&app, "/dashboard/usage?key=nope", Some(&browser)).await;
    assert_eq!(bad.status, 400);
}
