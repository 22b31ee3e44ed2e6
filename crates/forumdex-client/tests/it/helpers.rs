//! One real `forumdex` server per test (forumdex-testkit's test app on port 0: its own data
//! folder, a `ManualClock`), seeded with a known corpus, accounts and keys made through the
//! same stores the server opens; and client clocks that never sleep.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use forumdex_accounts::{AccountId, Allowlist, Email, KeyId, NewKey};
use forumdex_api::ManualClock;
use forumdex_client::{Client, ClientBuilder, Clock, Sleep};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_corpus::Millis;
use forumdex_testkit::app::{TestApp, import_batch};
use serde_json::{Value, json};

/// The seeded topic with many posts.
pub const TOPIC: u64 = 5;
/// Its author of every even post.
pub const PROFILE: u64 = 3;
/// The post IDs of [`TOPIC`] in posting order.
pub fn topic_post_ids() -> Vec<i64> {
    (100..123).collect()
}

fn corpus_lines() -> Vec<String> {
    let at = "2024-03-01T12:00:00Z";
    let mut lines = vec![
        json!({"kind": "board", "board_id": 1, "name": "Bitcoin Discussion", "observed_at": at}),
        json!({"kind": "topic", "topic_id": TOPIC, "board_id": 1, "title": "Welcome", "views": 10, "observed_at": at}),
        json!({"kind": "profile", "profile_id": PROFILE, "username": "satoshi", "observed_at": at}),
        json!({"kind": "profile", "profile_id": 4, "username": "hal", "observed_at": at}),
    ];
    for (number, post_id) in topic_post_ids().into_iter().enumerate() {
        let (author, name) = if number % 2 == 0 {
            (PROFILE, "satoshi")
        } else {
            (4, "hal")
        };
        let title = if number == 0 {
            "Welcome"
        } else {
            "Re: Welcome"
        };
        lines.push(json!({
            "kind": "post", "post_id": post_id, "topic_id": TOPIC, "post_number": number,
            "title": title, "author": {"profile_id": author, "username": name},
            "posted_at": format!("2009-11-22T18:{:02}:00Z", number),
            "content_html": format!("Bitcoin post number {number} about mining."),
            "language": "en", "observed_at": at,
        }));
    }
    lines.iter().map(Value::to_string).collect()
}

/// A running server (the one test app of `forumdex_testkit::app`, on a real socket) over the
/// seeded corpus, and the operator's view of its accounts.
pub struct TestServer {
    /// The server's clock: advancing it expires snapshots and frees rate-limit windows.
    pub clock: Arc<ManualClock>,
    app: TestApp,
}

impl TestServer {
    /// A server with the settings file `toml` (empty: defaults).
    pub async fn start(toml: &str) -> Self {
        let app = TestApp::builder()
            .config(toml)
            .empty_corpus()
            .prepare(|storage| {
                let corpus = storage.corpus().expect("open corpus");
                import_batch(
                    corpus.write.as_ref(),
                    &corpus_lines(),
                    Millis::now(&SystemClock),
                );
            })
            .socket()
            .start()
            .await;
        Self {
            clock: Arc::clone(&app.clock),
            app,
        }
    }

    /// The base URL of the API.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.app.addr)
    }

    /// An account holding `credits` with one key admitted from `allow` (empty: anywhere).
    pub fn key(&self, credits: u64, allow: &[&str]) -> (AccountId, KeyId, String) {
        let email = Email::parse("dev@example.com").expect("valid email");
        let new = NewKey {
            allow: Allowlist::parse_all(allow).expect("valid allowlist"),
            ..NewKey::default()
        };
        self.app.store(|accounts| {
            let account = accounts
                .create_account(&email, credits, SystemClock.now())
                .expect("create account");
            let created = accounts
                .create_key(account, &new, SystemClock.now())
                .expect("create key");
            (
                account,
                created.info.key_id,
                created.secret.expose_secret().to_owned(),
            )
        })
    }

    /// Revokes a key.
    pub fn revoke(&self, key_id: &KeyId) {
        self.app
            .store(|accounts| accounts.revoke_key(key_id, SystemClock.now()))
            .expect("revoke");
    }

    /// The balance of `account`.
    pub fn accounts_balance(&self, account: AccountId) -> u64 {
        self.app
            .store(|accounts| accounts.balance(account))
            .expect("balance")
    }

    /// A client builder for this server whose clock is the server's: waiting advances it.
    pub fn client_builder(&self, key: &str) -> ClientBuilder {
        Client::builder(&self.base_url(), key)
            .use_env_proxy(false)
            .clock(Arc::new(ServerClock(Arc::clone(&self.clock))))
    }

    /// A default client for this server (see [`TestServer::client_builder`]).
    pub fn client(&self, key: &str) -> Client {
        self.client_builder(key).build().expect("client builds")
    }
}

/// A client clock that reads the server's `ManualClock` and "sleeps" by advancing it: a wait
/// for `X-RateLimit-Reset` takes no real time, and the server sees the time pass.
#[derive(Debug)]
pub struct ServerClock(pub Arc<ManualClock>);

impl Clock for ServerClock {
    fn now(&self) -> SystemTime {
        forumdex_api::clock::Clock::now(&*self.0).into()
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        let by = chrono::Duration::from_std(duration).expect("a short wait");
        self.0.advance(by);
        Box::pin(std::future::ready(()))
    }
}

/// A client clock on the real time that records every wait instead of sleeping.
#[derive(Debug, Default)]
pub struct RecordingClock {
    /// The waits asked for, in order.
    pub sleeps: Mutex<Vec<Duration>>,
}

impl RecordingClock {
    /// How many waits were asked for.
    pub fn count(&self) -> usize {
        self.sleeps.lock().expect("not poisoned").len()
    }
}

impl Clock for RecordingClock {
    fn now(&self) -> SystemTime {
        SystemTime::from(SystemClock.now())
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        self.sleeps.lock().expect("not poisoned").push(duration);
        Box::pin(std::future::ready(()))
    }
}
