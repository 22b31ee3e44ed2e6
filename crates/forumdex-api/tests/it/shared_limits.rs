//! Two nodes of one deployment (two `App`s over the same data folder) with the Redis rate
//! limiter: a key's limit holds across both, and an unreachable Redis is a free 503. Uses
//! a real Redis server (forumdex-testkit's `redis`: `FORUMDEX_TEST_REDIS_URL`, else a private
//! `redis-server`).

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use forumdex_accounts::{AccountStore, Email, NewKey};
use forumdex_api::router::router;
use forumdex_api::{App, ManualClock};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_settings::Settings;
use forumdex_sqlite::SqliteAccountStore;
use forumdex_testkit::redis::redis_url;
use tower::ServiceExt;

use crate::harness::{DEFAULT_PEER, UNBOUND, seed_lines};

/// A node over `dir` with `toml` as its settings file; the background tasks are not needed.
fn node(dir: &std::path::Path, toml: &str, clock: &Arc<ManualClock>) -> Router {
    let file = dir.join("node.toml");
    std::fs::write(&file, toml).expect("write settings");
    let settings =
        Settings::load(Some(&file), vec![], &[("listen", UNBOUND.to_owned())]).expect("settings");
    let storage = settings.storage.factory(dir);
    let (app, _maintenance) = App::build(settings, &storage, clock.clone()).expect("app");
    router(Arc::new(app))
}

/// The status and `X-RateLimit-Remaining` of `GET /api/v1/posts/28` with `key` on `node`.
async fn get_post(node: &Router, key: &str) -> (u16, Option<String>) {
    let mut request = Request::get("/api/v1/posts/28")
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .expect("request");
    request.extensions_mut().insert(ConnectInfo(DEFAULT_PEER));
    let response = node.clone().oneshot(request).await.expect("infallible");
    let remaining = response
        .headers()
        .get("x-ratelimit-remaining")
        .map(|v| v.to_str().expect("ascii").to_owned());
    (response.status().as_u16(), remaining)
}

fn seeded_folder() -> (
    tempfile::TempDir,
    SqliteAccountStore,
    String,
    forumdex_accounts::AccountId,
) {
    let dir = tempfile::tempdir().expect("temp dir");
    crate::harness::import_batch(
        &forumdex_sqlite::SqliteCorpusStore::open(dir.path()).expect("corpus"),
        &seed_lines(),
        forumdex_corpus::Millis::now(&SystemClock),
    );
    let accounts = SqliteAccountStore::open_in(dir.path()).expect("accounts");
    let email = Email::parse("dev@example.com").expect("email");
    let account = accounts
        .create_account(&email, 100, SystemClock.now())
        .expect("account");
    let key = accounts
        .create_key(account, &NewKey::default(), SystemClock.now())
        .expect("key");
    let secret = key.secret.expose_secret().to_owned();
    (dir, accounts, secret, account)
}

#[tokio::test]
async fn a_keys_limit_holds_across_nodes_sharing_redis() {
    let (dir, accounts, key, account) = seeded_folder();
    let clock = Arc::new(ManualClock::starting_now());
    let toml = format!(
        "rate_limit_per_minute = 5\nrate_limiter = \"redis\"\nredis_url = \"{}\"\n",
        redis_url()
    );
    let nodes = [
        node(dir.path(), &toml, &clock),
        node(dir.path(), &toml, &clock),
    ];
    let mut statuses = Vec::new();
    for i in 0..8 {
        statuses.push(get_post(&nodes[i % 2], &key).await);
    }
    let admitted = statuses.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(admitted, 5, "{statuses:?}");
    assert!(
        statuses[5..]
            .iter()
            .all(|(status, remaining)| *status == 429 && remaining.as_deref() == Some("0")),
        "{statuses:?}"
    );
    assert_eq!(
        accounts.balance(account).expect("balance"),
        95,
        "only the 200s were charged"
    );

    // A minute later (on the shared clock) the window has room again, on either node.
    clock.advance(chrono::Duration::seconds(61));
    assert_eq!(get_post(&nodes[1], &key).await.0, 200);
}

#[tokio::test]
async fn an_unreachable_redis_answers_503_and_charges_nothing() {
    let (dir, accounts, key, account) = seeded_folder();
    let clock = Arc::new(ManualClock::starting_now());
    let toml = "rate_limiter = \"redis\"\nredis_url = \"redis://127.0.0.1:1\"\n";
    let node = node(dir.path(), toml, &clock);
    assert_eq!(get_post(&node, &key).await.0, 503);
    assert_eq!(accounts.balance(account).expect("balance"), 100);
}
