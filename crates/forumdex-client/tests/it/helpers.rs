//! One real `forumdex` server per test (port 0, its own data folder, a `ManualClock`), seeded
//! with a known corpus, accounts and keys made through the same SQLite files the server
//! opens; and client clocks that never sleep.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use forumdex_accounts::{AccountId, AccountStore, Allowlist, Email, KeyId, NewKey};
use forumdex_api::{ManualClock, Server};
use forumdex_client::{Client, ClientBuilder, Clock, Sleep};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_corpus::{CorpusWrite, Millis, Observation};
use forumdex_settings::Settings;
use forumdex_sqlite::{SqliteAccountStore, SqliteCorpusStore};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::oneshot;

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

/// A running server and the operator's view of its accounts.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The server's clock: advancing it expires snapshots and frees rate-limit windows.
    pub clock: Arc<ManualClock>,
    /// The accounts database the server uses.
    pub accounts: SqliteAccountStore,
    _dir: TempDir,
    _shutdown: oneshot::Sender<()>,
}

impl TestServer {
    /// A server with the settings file `toml` (empty: defaults).
    pub async fn start(toml: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteCorpusStore::open(dir.path()).expect("open corpus");
        let observations: Vec<Observation> = corpus_lines()
            .iter()
            .map(|line| Observation::parse_line(line.as_bytes()).expect("valid corpus line"))
            .collect();
        store
            .import_batch(&observations, Millis::now(&SystemClock))
            .expect("import the seed corpus");
        let flags = [("listen", "127.0.0.1:0".to_owned())];
        let settings = if toml.is_empty() {
            Settings::load(None, vec![], &flags).expect("default settings")
        } else {
            let file = dir.path().join("forumdex.toml");
            std::fs::write(&file, toml).expect("write the config file");
            Settings::load(Some(&file), vec![], &flags).expect("settings from file")
        };
        let clock = Arc::new(ManualClock::starting_now());
        let server = Server::build_with_clock(settings, dir.path(), clock.clone())
            .await
            .expect("the server builds");
        let app = Arc::clone(server.app());
        app.search
            .sync(app.corpus.as_ref())
            .expect("index the seed corpus");
        let addr = server.local_addr();
        let accounts =
            SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("open accounts");
        let (shutdown, stopped) = oneshot::channel::<()>();
        tokio::spawn(server.run_until_stopped(async move {
            let _ = stopped.await;
        }));
        Self {
            addr,
            clock,
            accounts,
            _dir: dir,
            _shutdown: shutdown,
        }
    }

    /// The base URL of the API.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// An account holding `credits` with one key admitted from `allow` (empty: anywhere).
    pub fn key(&self, credits: u64, allow: &[&str]) -> (AccountId, KeyId, String) {
        let email = Email::parse("dev@example.com").expect("valid email");
        let account = self
            .accounts
            .create_account(&email, credits, SystemClock.now())
            .expect("create account");
        let new = NewKey {
            allow: Allowlist::parse_all(allow).expect("valid allowlist"),
            ..NewKey::default()
        };
        let created = self
            .accounts
            .create_key(account, &new, SystemClock.now())
            .expect("create key");
        (
            account,
            created.info.key_id,
            created.secret.expose_secret().to_owned(),
        )
    }

    /// The balance of `account`.
    pub fn accounts_balance(&self, account: AccountId) -> u64 {
        self.accounts.balance(account).expect("balance")
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
