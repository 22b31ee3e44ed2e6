//! Two-factor sign-in over HTTP, in-process: turning it on from the account, the second
//! sign-in step (app codes once each, recovery codes once each, the pending sign-in's
//! expiry, the throttle), the code asked again for the address, the password and the
//! setting itself; and usage read over a range of days or by the hour.

use chrono::Duration;
use totp_rs::{Algorithm, Secret, TOTP};

use forumdex_accounts::{Email, TokenHash};
use forumdex_dashboard::second_factor::encode_secret;
use forumdex_dashboard::secret_seal::{Opened, SecretSeal};

use crate::dashboard::{
    Browser, PASSWORD, Page, account_of, app, config, create_key, developer, get, post, sign_in,
    signed_in_by, text_of,
};
use crate::harness::{POST, TestApp};

/// The value of the first `name="{name}"` field.
fn field(body: &str, name: &str) -> String {
    let needle = format!("name=\"{name}\" value=\"");
    let start = body
        .find(&needle)
        .unwrap_or_else(|| panic!("{name} in {body}"))
        + needle.len();
    let end = body[start..].find('"').unwrap() + start;
    body[start..end].to_owned()
}

/// The code an authenticator app holding `secret` shows at the app's clock.
fn app_code(app: &TestApp, secret: &str) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    let totp = TOTP::new_unchecked(Algorithm::SHA1, 6, 1, 30, bytes, None, String::new());
    totp.generate(u64::try_from(app.app.clock.now().timestamp()).unwrap())
}

/// The recovery codes a page lists.
fn recovery_codes(body: &str) -> Vec<String> {
    let list = body
        .split("id=\"recovery-codes\"")
        .nth(1)
        .expect("a list of codes");
    let list = &list[..list.find("</ul>").unwrap()];
    list.split("<code>")
        .skip(1)
        .map(|code| code[..code.find('<').unwrap()].to_owned())
        .collect()
}

/// Signs in with the password: the code form's pending token.
async fn first_step(app: &TestApp, email: &str) -> String {
    let page = post(
        app,
        "/login",
        None,
        &[
            ("email", email),
            ("password", PASSWORD),
            ("next", "/dashboard/usage"),
        ],
    )
    .await;
    assert_eq!(page.status, 200, "asked for a code: {}", page.body);
    assert!(page.set_cookie.is_none(), "no session before the code");
    assert!(page.body.contains("id=\"code-form\""), "{}", page.body);
    field(&page.body, "pending")
}

async fn second_step(app: &TestApp, pending: &str, code: &str) -> Page {
    post(
        app,
        "/login/code",
        None,
        &[
            ("pending", pending),
            ("code", code),
            ("next", "/dashboard/usage"),
        ],
    )
    .await
}

/// Signs in with the password, then the code the app holding `secret` shows now.
async fn signs_in_with_a_code(app: &TestApp, email: &str, secret: &str) -> Browser {
    let pending = first_step(app, email).await;
    signed_in(
        app,
        second_step(app, &pending, &app_code(app, secret)).await,
    )
    .await
}

/// The browser a passed second step signed in.
async fn signed_in(app: &TestApp, page: Page) -> Browser {
    assert_eq!(page.status, 303, "{}", page.body);
    assert_eq!(page.location.as_deref(), Some("/dashboard/usage"));
    signed_in_by(app, page).await
}

/// Turns two-factor sign-in on: the secret and the recovery codes.
async fn turn_on(app: &TestApp, browser: &Browser) -> (String, Vec<String>) {
    let setup = get(app, "/dashboard/account/two-factor", Some(browser)).await;
    assert_eq!(setup.status, 200);
    assert!(setup.body.contains("<svg"), "a QR code: {}", setup.body);
    let secret = field(&setup.body, "secret");
    assert_eq!(
        text_of(&setup.body, "secret"),
        secret,
        "the key to type by hand"
    );
    assert!(
        setup.body.contains("otpauth://totp/forumdex:"),
        "{}",
        setup.body
    );
    let code = app_code(app, &secret);
    let on = post(
        app,
        "/dashboard/account/two-factor/enable",
        Some(browser),
        &[
            ("csrf", &browser.csrf),
            ("secret", &secret),
            ("code", &code),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(on.status, 200, "{}", on.body);
    let codes = recovery_codes(&on.body);
    assert_eq!(codes.len(), 10, "{}", on.body);
    (secret, codes)
}

#[tokio::test]
async fn turning_two_factor_on_needs_a_right_code_and_the_password() {
    let app = app().await;
    let browser = developer(&app, "careful@example.com").await;
    let account = get(&app, "/dashboard/account", Some(&browser)).await;
    assert!(
        text_of(&account.body, "two-factor-summary").starts_with("Off"),
        "{}",
        account.body
    );
    let setup = get(&app, "/dashboard/account/two-factor", Some(&browser)).await;
    let secret = field(&setup.body, "secret");
    let right = app_code(&app, &secret);
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let enable = |code: String, password: &'static str| {
        let (app, browser, secret) = (&app, &browser, secret.clone());
        async move {
            post(
                app,
                "/dashboard/account/two-factor/enable",
                Some(browser),
                &[
                    ("csrf", &browser.csrf),
                    ("secret", &secret),
                    ("code", &code),
                    ("password", password),
                ],
            )
            .await
        }
    };
    let bad_code = enable(wrong.to_owned(), PASSWORD).await;
    assert_eq!(bad_code.status, 400);
    assert!(
        bad_code.body.contains("That code is not right"),
        "{}",
        bad_code.body
    );
    assert!(bad_code.body.contains("aria-invalid=\"true\""));
    assert_eq!(
        field(&bad_code.body, "secret"),
        secret,
        "the same key to try again"
    );
    let bad_password = enable(right.clone(), "not my password").await;
    assert_eq!(bad_password.status, 400);
    assert!(
        bad_password.body.contains("The password is not right"),
        "{}",
        bad_password.body
    );
    let forged = post(
        &app,
        "/dashboard/account/two-factor/enable",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("secret", "not base32"),
            ("code", &right),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(forged.status, 400);
    let still_off = get(&app, "/dashboard/account", Some(&browser)).await;
    assert!(text_of(&still_off.body, "two-factor-summary").starts_with("Off"));

    let on = enable(right.clone(), PASSWORD).await;
    assert_eq!(on.status, 200, "{}", on.body);
    assert_eq!(recovery_codes(&on.body).len(), 10);
    let again = enable(right, PASSWORD).await;
    assert_eq!(
        again.status, 409,
        "a resent form changes nothing: {}",
        again.body
    );
    let state = get(&app, "/dashboard/account/two-factor", Some(&browser)).await;
    assert_eq!(text_of(&state.body, "codes-left"), "10");
    let account = get(&app, "/dashboard/account", Some(&browser)).await;
    assert!(text_of(&account.body, "two-factor-summary").starts_with("On"));
    let export = get(&app, "/dashboard/account/export.json", Some(&browser)).await;
    let data: serde_json::Value = serde_json::from_str(&export.body).unwrap();
    assert_eq!(data["two_factor"]["recovery_codes_left"], 10, "{data}");
    assert!(!export.body.contains(&secret), "never the secret");
}

#[tokio::test]
async fn signing_in_asks_for_a_code_and_each_code_counts_once() {
    let app = app().await;
    let email = "twice@example.com";
    let browser = developer(&app, email).await;
    let (secret, codes) = turn_on(&app, &browser).await;

    // The setup code's step was used: the same code does not sign in.
    let pending = first_step(&app, email).await;
    let reused = second_step(&app, &pending, &app_code(&app, &secret)).await;
    assert_eq!(reused.status, 401, "{}", reused.body);
    assert!(reused.body.contains("used already"), "{}", reused.body);
    assert!(reused.set_cookie.is_none());
    app.clock.advance(Duration::seconds(30));
    let code = app_code(&app, &secret);
    let phone = signed_in(&app, second_step(&app, &pending, &code).await).await;
    assert_eq!(get(&app, "/dashboard", Some(&phone)).await.status, 200);
    let replay = second_step(&app, &pending, &code).await;
    assert_eq!(
        replay.status, 400,
        "the pending sign-in is used up: {}",
        replay.body
    );

    // A recovery code signs in once.
    let pending = first_step(&app, email).await;
    signed_in(
        &app,
        second_step(&app, &pending, &codes[0].to_uppercase()).await,
    )
    .await;
    let pending = first_step(&app, email).await;
    assert_eq!(second_step(&app, &pending, &codes[0]).await.status, 401);
    let state = get(&app, "/dashboard/account/two-factor", Some(&browser)).await;
    assert_eq!(text_of(&state.body, "codes-left"), "9");

    // A pending sign-in lasts five minutes.
    app.clock.advance(Duration::minutes(6));
    let late = second_step(&app, &pending, &app_code(&app, &secret)).await;
    assert_eq!(late.status, 400);
    assert!(late.body.contains("expired"), "{}", late.body);

    // Wrong codes count against the sign-in throttle, and a known password does not reset it.
    app.clock.advance(Duration::minutes(20));
    let pending = first_step(&app, email).await;
    for _ in 0..4 {
        assert_eq!(second_step(&app, &pending, "123-not-it").await.status, 401);
    }
    let throttled = second_step(&app, &pending, &app_code(&app, &secret)).await;
    assert_eq!(throttled.status, 429, "{}", throttled.body);
    let password_again = post(
        &app,
        "/login",
        None,
        &[("email", email), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(password_again.status, 429, "{}", password_again.body);
    app.clock.advance(Duration::minutes(16));
    signs_in_with_a_code(&app, email, &secret).await;
}

#[tokio::test]
async fn the_secret_is_stored_sealed_and_one_stored_plain_is_sealed_at_sign_in() {
    let app = app().await;
    let seal = SecretSeal::from_server_secret(&app.app.cursor_secret);
    let stored_of = |account| {
        app.store(|store| store.two_factor(account))
            .unwrap()
            .expect("on")
            .secret
    };

    // Turned on from the account page: the store holds the secret sealed, never as it is.
    let email = "sealed@example.com";
    let browser = developer(&app, email).await;
    let (secret, _) = turn_on(&app, &browser).await;
    let account = account_of(&app, email);
    let raw = Secret::Encoded(secret.clone()).to_bytes().unwrap();
    let stored = stored_of(account);
    assert!(
        !stored.windows(raw.len()).any(|w| w == raw.as_slice()),
        "the secret does not show in the store"
    );
    assert_eq!(seal.open(account, &stored).unwrap(), Opened::Sealed(raw));
    app.clock.advance(Duration::seconds(30));
    signs_in_with_a_code(&app, email, &secret).await;

    // A secret an earlier version stored as it is still signs in, and is sealed then.
    let email = "plain@example.com";
    developer(&app, email).await;
    let account = account_of(&app, email);
    let raw = b"an older plain secret".to_vec();
    let codes = [TokenHash::of("aaaa-bbbb")];
    let now = app.app.clock.now();
    assert!(
        app.store(|store| store.enable_two_factor(account, &raw, 0, &codes, now))
            .unwrap()
    );
    let encoded = encode_secret(&raw);
    let pending = first_step(&app, email).await;
    let wrong = second_step(&app, &pending, "000000").await;
    assert_eq!(wrong.status, 401, "{}", wrong.body);
    assert_eq!(stored_of(account), raw, "a wrong code seals nothing");
    signed_in(
        &app,
        second_step(&app, &pending, &app_code(&app, &encoded)).await,
    )
    .await;
    let stored = stored_of(account);
    assert_eq!(
        seal.open(account, &stored).unwrap(),
        Opened::Sealed(raw.clone())
    );
    app.clock.advance(Duration::seconds(30));
    signs_in_with_a_code(&app, email, &encoded).await;

    // Sealed under another deployment's key: the sign-in fails with the "something failed
    // on our side" page, and the reason (for the operator's log) is not shown.
    let foreign = SecretSeal::from_server_secret(&[9; 32]).seal(account, &raw);
    assert!(
        app.store(|store| store.replace_two_factor_secret(account, &stored, &foreign))
            .unwrap()
    );
    app.clock.advance(Duration::seconds(30));
    let pending = first_step(&app, email).await;
    let broken = second_step(&app, &pending, &app_code(&app, &encoded)).await;
    assert_eq!(broken.status, 503, "{}", broken.body);
    assert!(
        broken.body.contains("failed on our side"),
        "{}",
        broken.body
    );
    assert!(broken.set_cookie.is_none());
    assert!(!broken.body.contains("cursor_secret"), "{}", broken.body);
}

#[tokio::test]
async fn secrets_stored_plain_are_sealed_when_the_server_starts() {
    let plain = b"an older plain secret".to_vec();
    let mut accounts = Vec::new();
    let mut foreign_row = Vec::new();
    let app = TestApp::builder()
        .config(&config())
        .prepare(|storage| {
            let store = storage.developer_accounts().unwrap();
            let now = chrono::Utc::now();
            for email in ["old@example.com", "older@example.com"] {
                let email = Email::parse(email).unwrap();
                let account = store.create_account(&email, 0, now).unwrap();
                assert!(
                    store
                        .enable_two_factor(account, &plain, 0, &[], now)
                        .unwrap()
                );
                accounts.push(account);
            }
            // Sealed under another deployment's key: the start goes on and leaves it as it is.
            let email = Email::parse("foreign@example.com").unwrap();
            let account = store.create_account(&email, 0, now).unwrap();
            let foreign = SecretSeal::from_server_secret(&[9; 32]).seal(account, &plain);
            assert!(
                store
                    .enable_two_factor(account, &foreign, 0, &[], now)
                    .unwrap()
            );
            accounts.push(account);
            foreign_row = foreign;
        })
        .start()
        .await;
    let seal = SecretSeal::from_server_secret(&app.app.cursor_secret);
    let mut stored = app.store(|store| store.two_factor_secrets()).unwrap();
    assert_eq!(stored.len(), 3);
    assert_eq!(stored.pop(), Some((accounts[2], foreign_row)));
    for ((account, secret), expected) in stored.into_iter().zip(&accounts) {
        assert_eq!(account, *expected);
        assert_eq!(
            seal.open(account, &secret).unwrap(),
            Opened::Sealed(plain.clone()),
            "sealed at start"
        );
    }
}

#[tokio::test]
async fn changes_to_the_address_password_and_two_factor_ask_for_a_code() {
    let app = app().await;
    let email = "guarded@example.com";
    let browser = developer(&app, email).await;
    let (secret, codes) = turn_on(&app, &browser).await;
    let account = get(&app, "/dashboard/account", Some(&browser)).await;
    for form in ["email", "password", "delete"] {
        assert!(
            account.body.contains(&format!("id=\"{form}-code\"")),
            "{form}: {}",
            account.body
        );
    }

    let change = |code: String| {
        let (app, browser) = (&app, &browser);
        async move {
            post(
                app,
                "/dashboard/account/password",
                Some(browser),
                &[
                    ("csrf", &browser.csrf),
                    ("current", PASSWORD),
                    ("password", "another long password"),
                    ("code", &code),
                ],
            )
            .await
        }
    };
    let without = change(String::new()).await;
    assert_eq!(without.status, 400);
    assert!(
        without.body.contains("two-factor code is not right"),
        "{}",
        without.body
    );
    let email_change = post(
        &app,
        "/dashboard/account/email",
        Some(&browser),
        &[
            ("csrf", &browser.csrf),
            ("email", "new-address@example.com"),
            ("password", PASSWORD),
            ("code", "000000"),
        ],
    )
    .await;
    assert_eq!(email_change.status, 400, "{}", email_change.body);
    app.clock.advance(Duration::seconds(30));
    let changed = change(app_code(&app, &secret)).await;
    assert_eq!(changed.status, 303, "{}", changed.body);

    // New recovery codes need a code; the old ones stop working.
    let renew = post(
        &app,
        "/dashboard/account/two-factor/recovery",
        Some(&browser),
        &[("csrf", &browser.csrf), ("code", &codes[0])],
    )
    .await;
    assert_eq!(renew.status, 200, "{}", renew.body);
    let fresh = recovery_codes(&renew.body);
    assert_eq!(fresh.len(), 10);
    let renew_again = post(
        &app,
        "/dashboard/account/two-factor/recovery",
        Some(&browser),
        &[("csrf", &browser.csrf), ("code", &codes[1])],
    )
    .await;
    assert_eq!(renew_again.status, 400, "old codes are gone");

    // Turning it off needs the password and a code.
    let off = |password: &'static str, code: String| {
        let (app, browser) = (&app, &browser);
        async move {
            post(
                app,
                "/dashboard/account/two-factor/disable",
                Some(browser),
                &[
                    ("csrf", &browser.csrf),
                    ("password", password),
                    ("code", &code),
                ],
            )
            .await
        }
    };
    assert_eq!(
        off("another long password", String::new()).await.status,
        400
    );
    assert_eq!(
        off(PASSWORD, fresh[0].clone()).await.status,
        400,
        "the old password"
    );
    let done = off("another long password", fresh[0].clone()).await;
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(
        done.location.as_deref(),
        Some("/dashboard/account/two-factor?off=1")
    );
    let plain = sign_in(&app, email, "another long password").await;
    assert_eq!(get(&app, "/dashboard", Some(&plain)).await.status, 200);
}

#[tokio::test]
async fn usage_is_read_over_a_range_of_days_or_by_the_hour() {
    let app = app().await;
    let browser = developer(&app, "hourly@example.com").await;
    let (key, secret) = create_key(&app, &browser, "").await;
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    assert_eq!(app.get(POST, Some(&secret)).await.status(), 200);
    app.app.usage.flush(&app.app.developers).await;
    app.app.request_log.flush(&app.app.developers).await;
    let now = app.app.clock.now();
    let today = now.date_naive();

    let hourly = get(&app, "/dashboard/usage?by=hour", Some(&browser)).await;
    assert_eq!(hourly.status, 200, "{}", hourly.body);
    let table = hourly.body.split("id=\"by-hour\"").nth(1).unwrap();
    let this_hour = now.format("%Y-%m-%d %H:00 UTC").to_string();
    assert!(
        table.contains(&this_hour) && table.contains("<td class=\"num\">2</td>"),
        "{table}"
    );
    assert!(hourly.body.contains("<option value=\"hour\" selected>"));
    let csv = get(
        &app,
        &format!("/dashboard/usage.csv?key={key}&by=hour"),
        Some(&browser),
    )
    .await;
    assert!(csv.body.starts_with("hour,status,calls\n"), "{}", csv.body);
    assert!(
        csv.body
            .contains(&format!("{},200,2\n", now.format("%Y-%m-%dT%H:00:00.000Z"))),
        "{}",
        csv.body
    );

    let week_ago = today - Duration::days(7);
    let range = format!("/dashboard/usage?from={week_ago}&to={today}");
    let daily = get(&app, &range, Some(&browser)).await;
    assert_eq!(daily.status, 200);
    assert!(
        daily.body.contains(&format!("value=\"{week_ago}\"")),
        "{}",
        daily.body
    );
    assert_eq!(
        daily.body.matches("class=\"s200\"").count(),
        1,
        "one day with calls in the chart"
    );
    let before = today - Duration::days(1);
    let empty = get(
        &app,
        &format!("/dashboard/usage.csv?from={week_ago}&to={before}"),
        Some(&browser),
    )
    .await;
    assert_eq!(
        empty.body, "day,key_id,endpoint,status,calls,last_call_at\n",
        "nothing before today"
    );
    for bad in [
        format!("/dashboard/usage?from={today}&to={week_ago}"),
        format!("/dashboard/usage?by=hour&from={week_ago}"),
        "/dashboard/usage?from=yesterday".to_owned(),
        "/dashboard/usage?by=minute".to_owned(),
    ] {
        let page = get(&app, &bad, Some(&browser)).await;
        assert_eq!(page.status, 400, "{bad}: {}", page.body);
    }
}
