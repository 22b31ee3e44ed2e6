//! The one test app: [`TestApp`], built by [`TestAppBuilder`] over its own temporary data
//! folder, on a [`ManualClock`] the test moves, with the stores the operator's CLI would open
//! beside it (corpus writer, accounts).
//!
//! In-process by default: each request goes through [`router`] with
//! `tower::ServiceExt::oneshot`, carrying `ConnectInfo(peer)` as a real connection would, with
//! the [`Background`] tasks (garbage collection, search sync) running. Nothing is bound; the
//! settings listen on [`UNBOUND`] so that the URLs the service builds stay meaningful (and
//! requests to them come back in-process). [`TestAppBuilder::socket`] runs a real
//! [`Server`] on 127.0.0.1 port 0 instead, for the tests that are about the socket (TLS is
//! set up by `tls.rs` itself).
//!
//! Tests send `reqwest` requests either way ([`TestApp::send`]) and get `reqwest::Response`s
//! back, so one test body fits both modes. Used by the API's tests (which add their contract
//! checks on top) and the client SDK's; behind this crate's `app` feature.
//!
//! The storage is the embedded one unless `FORUMDEX_TEST_STORAGE=postgres` ([`Backend`]):
//! then every app gets a fresh schema of the test PostgreSQL server (forumdex-testkit), so
//! the whole suite runs on both backends. Tests about SQLite itself (locked files, its
//! schema) say so with [`embedded_only`].

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use chrono::{DateTime, Duration, Utc};
use forumdex_accounts::{AccountId, Allowlist, DeveloperStore, Email, KeyId, LedgerEntry, NewKey};
use forumdex_api::background::Background;
use forumdex_api::router::router;
use forumdex_api::{App, ManualClock, Server};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_corpus::{CorpusWrite, Millis, Observation};
use forumdex_settings::Settings;
use forumdex_storage::Storage;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// The seeded corpus: board 1, topic 5, profile 3, posts 28 (the opening post) and 29.
pub const POST: &str = "/api/v1/posts/28";
/// A seeded topic.
pub const TOPIC: &str = "/api/v1/topics/5";
/// A seeded profile.
pub const PROFILE: &str = "/api/v1/profiles/3";

/// What in-process apps listen on: never bound by the harness (the discard port), it only
/// names the URLs the service builds (`base_url`, `cdn_url`, `topup_url`).
pub const UNBOUND: &str = "127.0.0.1:9";

/// The peer address of in-process requests unless [`TestAppBuilder::peer`] says otherwise.
pub const DEFAULT_PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 40000);

/// The seed corpus lines (see [`POST`]).
pub fn seed_lines() -> Vec<String> {
    let at = "2024-03-01T12:00:00Z";
    [
        json!({"kind": "board", "board_id": 1, "name": "Bitcoin Discussion", "observed_at": at}),
        json!({"kind": "topic", "topic_id": 5, "board_id": 1, "title": "Welcome", "views": 18235, "observed_at": at}),
        json!({"kind": "profile", "profile_id": 3, "username": "satoshi", "observed_at": at}),
        json!({"kind": "post", "post_id": 28, "topic_id": 5, "post_number": 0, "title": "Welcome",
            "author": {"profile_id": 3, "username": "satoshi"}, "posted_at": "2009-11-22T18:51:31Z",
            "content_html": "Welcome to the forum.", "language": "en",
            "merit": {"total": 12, "distinct_senders": 4, "transactions": 5}, "observed_at": at}),
        json!({"kind": "post", "post_id": 29, "topic_id": 5, "post_number": 1, "title": "Re: Welcome",
            "author": {"profile_id": 4, "username": "hal"}, "posted_at": "2009-11-22T19:00:00Z",
            "content_html": "Thanks.", "language": "en", "observed_at": at}),
    ]
    .iter()
    .map(Value::to_string)
    .collect()
}

/// A step over the storage before the app opens it.
type Prepare<'a> = Box<dyn FnOnce(&Storage) + Send + 'a>;

/// The storage the suite runs on: `FORUMDEX_TEST_STORAGE` (`embedded`, the default, or
/// `postgres`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The data folder's SQLite databases.
    Embedded,
    /// A fresh schema of the test PostgreSQL server per app.
    Postgres,
}

impl Backend {
    /// The backend this run of the suite uses.
    pub fn of_this_run() -> Self {
        match std::env::var("FORUMDEX_TEST_STORAGE").as_deref() {
            Err(_) | Ok("" | "embedded") => Self::Embedded,
            Ok("postgres") => Self::Postgres,
            Ok(other) => panic!("FORUMDEX_TEST_STORAGE={other:?}: expected embedded or postgres"),
        }
    }

    /// The settings that put an app on this backend (none for the embedded one).
    pub fn settings(self) -> String {
        match self {
            Self::Embedded => String::new(),
            Self::Postgres => format!(
                "storage = \"postgres\"\ndatabase_url = \"{}\"\nrate_limiter = \"local\"\n",
                off_runtime(crate::postgres::fresh_schema_url)
            ),
        }
    }
}

/// Whether a test about the embedded storage itself runs in this run; when not, it says so.
pub fn embedded_only(test: &str) -> bool {
    let embedded = Backend::of_this_run() == Backend::Embedded;
    if !embedded {
        eprintln!("{test}: about the embedded storage, skipped on this run's backend");
    }
    embedded
}

/// How a [`TestApp`] is made.
#[must_use]
pub struct TestAppBuilder<'a> {
    toml: String,
    seed: bool,
    prepare: Option<Prepare<'a>>,
    socket: Option<String>,
    peer: SocketAddr,
    start: DateTime<Utc>,
}

impl<'a> TestAppBuilder<'a> {
    /// The settings file (TOML; empty: defaults).
    pub fn config(mut self, toml: &str) -> Self {
        toml.clone_into(&mut self.toml);
        self
    }

    /// No seed corpus: the test imports all it needs.
    pub fn empty_corpus(mut self) -> Self {
        self.seed = false;
        self
    }

    /// Fills the storage (after the seed corpus, before the app opens it), as an operator's
    /// `forumdex import` would before `forumdex serve`.
    pub fn prepare(mut self, prepare: impl FnOnce(&Storage) + Send + 'a) -> Self {
        self.prepare = Some(Box::new(prepare));
        self
    }

    /// The peer address in-process requests come from.
    pub fn peer(mut self, peer: SocketAddr) -> Self {
        self.peer = peer;
        self
    }

    /// A real server on 127.0.0.1 port 0 instead of in-process requests.
    pub fn socket(self) -> Self {
        self.socket_on("127.0.0.1:0")
    }

    /// A real server on `listen`.
    pub fn socket_on(mut self, listen: &str) -> Self {
        self.socket = Some(listen.to_owned());
        self
    }

    /// Builds and starts it.
    pub async fn start(self) -> TestApp {
        self.try_start().await.expect("the test app starts")
    }

    /// Like [`TestAppBuilder::start`], but reports a failure to build (or bind).
    pub async fn try_start(self) -> anyhow::Result<TestApp> {
        let dir = tempfile::tempdir().expect("temp dir");
        let listen = self.socket.as_deref().unwrap_or(UNBOUND);
        let mut toml = if self.toml.contains("storage =") {
            self.toml
        } else {
            Backend::of_this_run().settings() + &self.toml
        };
        // Lexical search unless the test names a model: which segments the background job
        // has embedded when a request comes would otherwise decide a hybrid answer.
        if !toml.contains("semantic_model") {
            toml.insert_str(0, "semantic_model = \"off\"\n");
        }
        let settings = settings(dir.path(), listen, &toml);
        let storage = settings.storage.factory(dir.path());
        let (seed, prepare) = (self.seed, self.prepare);
        let (corpus, accounts) = off_runtime(|| -> anyhow::Result<_> {
            if Backend::of_this_run() == Backend::Postgres {
                storage.migrate_database()?;
            }
            let corpus = storage.corpus()?.write;
            let accounts = storage.developer_accounts()?;
            if seed {
                import_batch(corpus.as_ref(), &seed_lines(), Millis::now(&SystemClock));
            }
            if let Some(prepare) = prepare {
                prepare(&storage);
            }
            Ok((corpus, accounts))
        })?;
        let clock = Arc::new(ManualClock::new(self.start));
        let (app, addr, mode) = match self.socket {
            Some(_) => {
                let server = Server::build_with_clock(settings, dir.path(), clock.clone()).await?;
                let addr = server.local_addr();
                let app = Arc::clone(server.app());
                let (shutdown, stopped) = oneshot::channel::<()>();
                let task = tokio::spawn(server.run_until_stopped(async move {
                    let _ = stopped.await;
                }));
                let mode = Mode::Socket {
                    shutdown: Some(shutdown),
                    task: Some(task),
                };
                (app, addr, mode)
            }
            None => {
                let addr = settings.server.listen;
                let (app, maintenance) =
                    off_runtime(|| App::build(settings, &storage, clock.clone()))?;
                let app = Arc::new(app);
                let mode = Mode::InProcess {
                    router: router(Arc::clone(&app)),
                    peer: self.peer,
                    _background: Background::spawn(&app, maintenance),
                };
                (app, addr, mode)
            }
        };
        // As a load balancer would, wait for readiness: search answers 503 until the
        // node's indexes have caught up with the corpus it started on.
        tokio::time::timeout(
            std::time::Duration::from_secs(120),
            app.search_sync.wait_caught_up(),
        )
        .await
        .expect("the search indexes catch up with the seed corpus");
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("http client");
        Ok(TestApp {
            addr,
            app,
            clock,
            corpus,
            accounts,
            client,
            mode,
            dir,
        })
    }
}

/// Sends a `reqwest` request to a [`TestApp`], in-process or over its socket.
pub trait SendTo {
    /// [`TestApp::send`] of this request.
    fn send_to(
        self,
        app: &TestApp,
    ) -> impl Future<Output = reqwest::Result<reqwest::Response>> + '_;
}

impl SendTo for reqwest::RequestBuilder {
    fn send_to(
        self,
        app: &TestApp,
    ) -> impl Future<Output = reqwest::Result<reqwest::Response>> + '_ {
        app.send(self)
    }
}

/// Settings for a test app on `listen`, with `toml` (possibly empty) as its config file.
pub fn settings(dir: &Path, listen: &str, toml: &str) -> Settings {
    let flags = [("listen", listen.to_owned())];
    if toml.is_empty() {
        return Settings::load(None, vec![], &flags).expect("default settings");
    }
    let file = dir.join("forumdex.toml");
    std::fs::write(&file, toml).expect("write config file");
    Settings::load(Some(&file), vec![], &flags).expect("settings from file")
}

/// Runs a blocking store call where blocking is allowed: on a thread of its own, never on an
/// async worker (PostgreSQL's blocking client refuses to run inside a runtime), and, on a
/// multi-threaded runtime, with the worker's other tasks handed off while it waits.
pub fn off_runtime<T: Send>(call: impl FnOnce() -> T + Send) -> T {
    let run = || {
        std::thread::scope(|scope| match scope.spawn(call).join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        })
    };
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|handle| handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if multi_thread {
        tokio::task::block_in_place(run)
    } else {
        run()
    }
}

/// Imports `lines` as one batch into `store` at `now`, as `forumdex import` would; returns
/// the batch's sequence (`None`: nothing new).
pub fn import_batch(store: &dyn CorpusWrite, lines: &[String], now: Millis) -> Option<i64> {
    let observations: Vec<Observation> = lines
        .iter()
        .map(|line| Observation::parse_line(line.as_bytes()).expect("valid corpus line"))
        .collect();
    store.import_batch(&observations, now).expect("import").seq
}

enum Mode {
    InProcess {
        router: Router,
        peer: SocketAddr,
        _background: Background,
    },
    Socket {
        shutdown: Option<oneshot::Sender<()>>,
        task: Option<JoinHandle<anyhow::Result<()>>>,
    },
}

/// A running app over its own data folder.
pub struct TestApp {
    /// Where it listens ([`UNBOUND`] in-process).
    pub addr: SocketAddr,
    /// The shared state the requests see.
    pub app: Arc<App>,
    /// The app's clock: move it instead of sleeping.
    pub clock: Arc<ManualClock>,
    /// A corpus writer on the same storage (the importer's view): use it through
    /// [`TestApp::importer`].
    corpus: Arc<dyn CorpusWrite>,
    /// The accounts the app uses, opened separately (the operator's view): use them through
    /// [`TestApp::store`].
    accounts: Arc<dyn DeveloperStore>,
    /// A client that never goes through a proxy; send its requests with [`TestApp::send`].
    pub client: reqwest::Client,
    mode: Mode,
    // Dropped last: the folder outlives the app's use of it.
    /// The data folder.
    pub dir: TempDir,
}

/// A paying caller: its account and one key.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The account charged.
    pub account: AccountId,
    /// The key's public id.
    pub key_id: KeyId,
    /// The secret sent as `Authorization: Bearer`.
    pub secret: String,
}

impl TestApp {
    /// A builder: seed corpus, default settings, in-process, the clock at the current time.
    pub fn builder<'a>() -> TestAppBuilder<'a> {
        TestAppBuilder {
            toml: String::new(),
            seed: true,
            prepare: None,
            socket: None,
            peer: DEFAULT_PEER,
            start: SystemClock.now(),
        }
    }

    /// An in-process app with default settings over the seed corpus.
    pub async fn start() -> Self {
        Self::builder().start().await
    }

    /// An in-process app with the settings file `toml` over the seed corpus.
    pub async fn with_config(toml: &str) -> Self {
        Self::builder().config(toml).start().await
    }

    /// The absolute URL of `path` on this app.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Sends `request`: over the socket, or in-process through the router from the peer
    /// address (the URL's path and query are what the router sees, as on the wire).
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> reqwest::Result<reqwest::Response> {
        let Mode::InProcess { router, peer, .. } = &self.mode else {
            return request.send().await;
        };
        let request: axum::http::Request<reqwest::Body> = request.build()?.try_into()?;
        let (mut parts, body) = request.into_parts();
        parts.uri = parts
            .uri
            .path_and_query()
            .map_or("/", |target| target.as_str())
            .parse()
            .expect("a path and query is a URI");
        parts.extensions.insert(ConnectInfo(*peer));
        let request = axum::http::Request::from_parts(parts, axum::body::Body::new(body));
        let response = router
            .clone()
            .oneshot(request)
            .await
            .expect("the router is infallible");
        let (parts, body) = response.into_parts();
        let bytes: Bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .expect("the response body is read");
        Ok(axum::http::Response::from_parts(parts, bytes).into())
    }

    /// `GET path` with the key as `Authorization: Bearer` (none when `None`).
    pub async fn get(&self, path: &str, key: Option<&str>) -> reqwest::Response {
        let mut request = self.client.get(self.url(path));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        self.send(request).await.expect("request sent")
    }

    /// Creates an account holding `credits`.
    pub fn account(&self, credits: u64) -> AccountId {
        let email = Email::parse("dev@example.com").expect("valid email");
        self.store(|accounts| accounts.create_account(&email, credits, self.clock_now()))
            .expect("create account")
    }

    /// Creates a key of `account` restricted to `allow` (empty: any address).
    pub fn key(&self, account: AccountId, allow: &[&str]) -> (KeyId, String) {
        let new = NewKey {
            allow: Allowlist::parse_all(allow).expect("valid allowlist"),
            ..NewKey::default()
        };
        let created = self
            .store(|accounts| accounts.create_key(account, &new, self.clock_now()))
            .expect("create key");
        (
            created.info.key_id,
            created.secret.expose_secret().to_owned(),
        )
    }

    /// An account with `credits` and one unrestricted key.
    pub fn funded(&self, credits: u64) -> (AccountId, KeyId, String) {
        let account = self.account(credits);
        let (key_id, secret) = self.key(account, &[]);
        (account, key_id, secret)
    }

    /// A new account holding `credits`, with one unrestricted key, as a [`Caller`].
    pub fn caller(&self, credits: u64) -> Caller {
        let account = self.account(credits);
        self.key_for(account)
    }

    /// Another key of `account`.
    pub fn key_for(&self, account: AccountId) -> Caller {
        let (key_id, secret) = self.key(account, &[]);
        Caller {
            account,
            key_id,
            secret,
        }
    }

    /// Revokes the caller's key.
    pub fn revoke(&self, caller: &Caller) {
        self.store(|accounts| accounts.revoke_key(&caller.key_id, self.clock_now()))
            .expect("revoke");
    }

    /// Expires a key without waiting: its expiry a minute ahead of the clock, then the
    /// clock two minutes on.
    pub fn expire(&self, key_id: &KeyId) {
        let at = self.clock_now() + Duration::minutes(1);
        self.store(|accounts| accounts.set_key_expiry(key_id, Some(at)))
            .expect("set expiry");
        self.clock.advance(Duration::minutes(2));
    }

    /// The balance and ledger of an account.
    pub fn money(&self, account: AccountId) -> (u64, Vec<LedgerEntry>) {
        self.store(|accounts| {
            (
                accounts.balance(account).expect("balance"),
                accounts.ledger(account).expect("ledger"),
            )
        })
    }

    /// The caller's balance.
    pub fn balance(&self, caller: &Caller) -> u64 {
        self.store(|accounts| accounts.balance(caller.account))
            .expect("balance")
    }

    /// Imports corpus lines as one batch at the clock's time; returns that time (the
    /// `indexed_at` of the versions the batch made canonical).
    pub fn import(&self, lines: &[String]) -> Millis {
        let now = forumdex_corpus::Millis::now(&*self.clock);
        self.import_seq(lines, now);
        now
    }

    /// Imports corpus lines as one batch at `now`; returns the batch's sequence (`None`:
    /// nothing new), for [`forumdex_api::search_sync::SearchSync::wait_for`].
    pub fn import_seq(&self, lines: &[String], now: Millis) -> Option<i64> {
        self.importer(|corpus| import_batch(corpus, lines, now))
    }

    /// Runs `call` on the operator's accounts store, off the async runtime (see
    /// [`off_runtime`]).
    pub fn store<T: Send>(&self, call: impl FnOnce(&dyn DeveloperStore) -> T + Send) -> T {
        let accounts = self.accounts.as_ref();
        off_runtime(|| call(accounts))
    }

    /// Runs `call` on the importer's corpus writer, off the async runtime (see
    /// [`off_runtime`]).
    pub fn importer<T: Send>(&self, call: impl FnOnce(&dyn CorpusWrite) -> T + Send) -> T {
        let corpus = self.corpus.as_ref();
        off_runtime(|| call(corpus))
    }

    /// Stops a socket server and waits for its future to complete.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.signal_shutdown();
        self.join().await
    }

    /// Sends a socket server the shutdown signal.
    pub fn signal_shutdown(&mut self) {
        if let Mode::Socket { shutdown, .. } = &mut self.mode
            && let Some(shutdown) = shutdown.take()
        {
            let _ = shutdown.send(());
        }
    }

    /// Waits for a socket server's future to complete (after [`TestApp::signal_shutdown`]).
    pub async fn join(&mut self) -> anyhow::Result<()> {
        match &mut self.mode {
            Mode::Socket { task, .. } => match task.take() {
                Some(task) => task.await.expect("server task did not panic"),
                None => Ok(()),
            },
            Mode::InProcess { .. } => panic!("an in-process app has no server to join"),
        }
    }

    fn clock_now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Mode::Socket { shutdown, task } = &mut self.mode {
            if let Some(shutdown) = shutdown.take() {
                let _ = shutdown.send(());
            }
            if let Some(task) = task.take() {
                task.abort();
            }
        }
    }
}

/// `GET path` through `router` in-process from [`DEFAULT_PEER`], with `key` as
/// `Authorization: Bearer`: the status and the JSON body. For apps built without a
/// [`TestApp`] around them.
pub async fn send_in_process(router: Router, path: &str, key: Option<&str>) -> (u16, Value) {
    let mut request = axum::http::Request::get(path);
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let mut request = request.body(axum::body::Body::empty()).expect("a request");
    request.extensions_mut().insert(ConnectInfo(DEFAULT_PEER));
    let response = router
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("the response body is read");
    let body = serde_json::from_slice(&bytes).expect("a JSON body");
    (status, body)
}
