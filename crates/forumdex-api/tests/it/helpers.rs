//! Shared fixtures: a running server over a seeded data folder, accounts and keys created
//! through the same SQLite files the server opens (as the operator CLI does), and checks of
//! the contract's error body and of "nothing was charged", and validation of bodies against
//! the committed OpenAPI document (`openapi.json`, JSON Schema 2020-12).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::OnceLock;

use chrono::{Duration, Utc};
use forumdex_accounts::{
    AccountId, AccountStore, Allowlist, Email, KeyId, LedgerEntry, NewKey, SqliteAccountStore,
};
use forumdex_api::{Server, Settings};
use forumdex_corpus::{CorpusWrite, Millis, Observation, SqliteCorpusStore};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The seeded corpus: board 1, topic 5, profile 3, posts 28 (the opening post) and 29.
pub const POST: &str = "/api/v1/posts/28";
/// A seeded topic.
pub const TOPIC: &str = "/api/v1/topics/5";
/// A seeded profile.
pub const PROFILE: &str = "/api/v1/profiles/3";

fn corpus_lines() -> Vec<String> {
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

/// Imports the seed corpus into `dir`, as `forumdex import` would.
fn seed_corpus(dir: &Path) {
    let store = SqliteCorpusStore::open(dir).expect("open corpus");
    let observations: Vec<Observation> = corpus_lines()
        .iter()
        .map(|line| Observation::parse_line(line.as_bytes()).expect("valid corpus line"))
        .collect();
    let outcome = store
        .import_batch(&observations, Millis::now())
        .expect("import seed corpus");
    assert!(outcome.seq.is_some(), "the seed batch is new");
}

/// Settings for a test server on `listen`, with `toml` (possibly empty) as its config file.
pub fn settings(dir: &Path, listen: &str, toml: &str) -> Settings {
    let flags = [("listen", listen.to_owned())];
    if toml.is_empty() {
        return Settings::load(None, vec![], &flags).expect("default settings");
    }
    let file = dir.join("forumdex.toml");
    std::fs::write(&file, toml).expect("write config file");
    Settings::load(Some(&file), vec![], &flags).expect("settings from file")
}

/// A server running on the test's runtime, over its own seeded data folder.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The data folder (shared with the stores below, like the CLI shares it).
    pub dir: TempDir,
    /// The accounts database the server uses, opened separately (the operator's view).
    pub accounts: SqliteAccountStore,
    /// A client that never goes through a proxy.
    pub client: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    /// A server with default settings on 127.0.0.1 port 0.
    pub async fn start() -> Self {
        Self::start_with("127.0.0.1:0", "").await
    }

    /// A server on 127.0.0.1 port 0 with the settings file `toml`.
    pub async fn with_config(toml: &str) -> Self {
        Self::start_with("127.0.0.1:0", toml).await
    }

    /// A server on `listen` with the settings file `toml` (empty: defaults).
    pub async fn start_with(listen: &str, toml: &str) -> Self {
        Self::try_start(listen, toml).await.expect("start server")
    }

    /// Like [`TestServer::start_with`], but reports a failure to build (bind) the server.
    pub async fn try_start(listen: &str, toml: &str) -> anyhow::Result<Self> {
        Self::try_start_prepared(listen, toml, |_| {}).await
    }

    /// A default server whose data folder `prepare` filled (after the seed corpus), as an
    /// operator's `forumdex import` would before `forumdex serve`.
    pub async fn start_prepared(prepare: impl FnOnce(&Path)) -> Self {
        Self::try_start_prepared("127.0.0.1:0", "", prepare)
            .await
            .expect("start server")
    }

    async fn try_start_prepared(
        listen: &str,
        toml: &str,
        prepare: impl FnOnce(&Path),
    ) -> anyhow::Result<Self> {
        let dir = tempfile::tempdir().expect("temp dir");
        seed_corpus(dir.path());
        prepare(dir.path());
        let settings = settings(dir.path(), listen, toml);
        let server = Server::build(settings, dir.path()).await?;
        let addr = server.local_addr();
        let accounts =
            SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("open accounts db");
        let (shutdown, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run_until_stopped(async move {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("http client");
        Ok(Self {
            addr,
            dir,
            accounts,
            client,
            shutdown: Some(shutdown),
            task: Some(task),
        })
    }

    /// The absolute URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `GET path` with the key as `Authorization: Bearer` (none when `None`).
    pub async fn get(&self, path: &str, key: Option<&str>) -> reqwest::Response {
        let mut request = self.client.get(self.url(path));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        request.send().await.expect("request sent")
    }

    /// Creates an account holding `credits`.
    pub fn account(&self, credits: u64) -> AccountId {
        let email = Email::parse("dev@example.com").expect("valid email");
        self.accounts
            .create_account(&email, credits, Utc::now())
            .expect("create account")
    }

    /// Creates a key of `account` restricted to `allow` (empty: any address).
    pub fn key(&self, account: AccountId, allow: &[&str]) -> (KeyId, String) {
        let new = NewKey {
            allow: Allowlist::parse_all(allow).expect("valid allowlist"),
            ..NewKey::default()
        };
        let created = self
            .accounts
            .create_key(account, &new, Utc::now())
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

    /// Expires a key by moving its expiry an hour into the past (no waiting).
    pub fn expire(&self, key_id: &KeyId) {
        self.accounts
            .set_key_expiry(key_id, Some(Utc::now() - Duration::hours(1)))
            .expect("set expiry");
    }

    /// The balance and ledger of an account.
    pub fn money(&self, account: AccountId) -> (u64, Vec<LedgerEntry>) {
        (
            self.accounts.balance(account).expect("balance"),
            self.accounts.ledger(account).expect("ledger"),
        )
    }

    /// Stops the server and waits for its future to complete.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.signal_shutdown();
        self.join().await
    }

    /// Sends the shutdown signal.
    pub fn signal_shutdown(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }

    /// Waits for the server future to complete (after [`TestServer::signal_shutdown`]).
    pub async fn join(&mut self) -> anyhow::Result<()> {
        match self.task.take() {
            Some(task) => task.await.expect("server task did not panic"),
            None => Ok(()),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Checks that `response` is the contract's error body with `status`: a JSON object whose
/// `error` is a non-empty string, whose `requestId` is the `X-Request-Id` header and a UUID,
/// and whose `creditsCharged` is 0. Returns the headers and the body.
pub async fn expect_error(
    response: reqwest::Response,
    status: StatusCode,
) -> (reqwest::header::HeaderMap, Value) {
    assert_eq!(response.status(), status, "status");
    let headers = response.headers().clone();
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "{status}: content type {content_type:?}"
    );
    let body: Value = response.json().await.expect("a JSON error body");
    let error = body["error"].as_str().expect("error is a string");
    assert!(!error.is_empty(), "{status}: empty error message");
    let request_id = header(&headers, "x-request-id");
    assert_eq!(body["requestId"], json!(request_id), "{status}: requestId");
    assert_uuid(&request_id);
    assert_eq!(body["creditsCharged"], json!(0), "{status}: creditsCharged");
    assert_matches_schema(&body, "Error");
    assert!(
        !headers.contains_key("x-credits-charged"),
        "{status}: an error carries no X-Credits-Charged"
    );
    (headers, body)
}

/// Checks that nothing was charged since `before` was taken with [`TestServer::money`].
pub fn assert_not_charged(
    server: &TestServer,
    account: AccountId,
    before: &(u64, Vec<LedgerEntry>),
) {
    let after = server.money(account);
    assert_eq!(after.0, before.0, "balance changed");
    assert_eq!(after.1, before.1, "ledger changed");
}

/// A header as text (panics when absent).
pub fn header(headers: &reqwest::header::HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .unwrap_or_else(|| panic!("header {name} missing"))
        .to_str()
        .expect("ASCII header")
        .to_owned()
}

/// A header as an integer (panics when absent or not a number).
pub fn int_header(headers: &reqwest::header::HeaderMap, name: &str) -> i64 {
    header(headers, name)
        .parse()
        .unwrap_or_else(|_| panic!("header {name} is not an integer"))
}

/// Panics unless `text` is a hyphenated UUID.
pub fn assert_uuid(text: &str) {
    let parsed = uuid::Uuid::parse_str(text).unwrap_or_else(|_| panic!("{text:?} is no uuid"));
    assert_eq!(parsed.hyphenated().to_string(), text, "canonical uuid form");
}

/// The committed OpenAPI document, parsed.
pub fn openapi() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        serde_json::from_str(forumdex_api::routes::openapi::DOCUMENT).expect("openapi.json is JSON")
    })
}

/// One JSON Schema (2020-12, formats asserted) per `components.schemas` entry of the
/// document: `{"$ref": "#/components/schemas/<name>", "components": ...}`, so every
/// reference resolves inside the same root.
fn validators() -> &'static BTreeMap<String, jsonschema::Validator> {
    static VALIDATORS: OnceLock<BTreeMap<String, jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let components = &openapi()["components"];
        let names = components["schemas"]
            .as_object()
            .expect("components.schemas is an object");
        names
            .keys()
            .map(|name| {
                let schema = json!({"$ref": format!("#/components/schemas/{name}")});
                (name.clone(), validator(&schema))
            })
            .collect()
    })
}

/// A validator of `schema` (a schema object of the document) with the document's components
/// beside it in the root, so that `#/components/...` references resolve.
fn validator(schema: &Value) -> jsonschema::Validator {
    let mut root = schema.clone();
    let object = root.as_object_mut().expect("a schema object");
    object.insert(
        "$schema".to_owned(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    object.insert("components".to_owned(), openapi()["components"].clone());
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|err| panic!("schema {schema} does not compile: {err}"))
}

fn errors(validator: &jsonschema::Validator, body: &Value) -> Vec<String> {
    validator
        .iter_errors(body)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, body: &Value, what: &str) {
    let errors = errors(validator, body);
    assert!(
        errors.is_empty(),
        "body does not match {what}: {errors:#?}\n{body}"
    );
}

/// Why `body` is not valid against `components.schemas.<schema_name>` (empty: it is).
pub fn schema_errors(body: &Value, schema_name: &str) -> Vec<String> {
    let validator = validators()
        .get(schema_name)
        .unwrap_or_else(|| panic!("openapi.json has no schema {schema_name}"));
    errors(validator, body)
}

/// Panics unless `body` is valid against `components.schemas.<schema_name>` of the document.
pub fn assert_matches_schema(body: &Value, schema_name: &str) {
    let validator = validators()
        .get(schema_name)
        .unwrap_or_else(|| panic!("openapi.json has no schema {schema_name}"));
    assert_valid(validator, body, schema_name);
}

/// The document's `get` operation whose path template matches `path` (`{name}` matches one
/// non-empty segment), with its template.
pub fn documented_operation(path: &str) -> Option<(&'static str, &'static Value)> {
    let segments: Vec<&str> = path.split('/').collect();
    openapi()["paths"]
        .as_object()
        .expect("paths is an object")
        .iter()
        .find(|(template, _)| {
            let parts: Vec<&str> = template.split('/').collect();
            parts.len() == segments.len()
                && parts.iter().zip(&segments).all(|(part, segment)| {
                    part == segment || (part.starts_with('{') && !segment.is_empty())
                })
        })
        .map(|(template, item)| (template.as_str(), &item["get"]))
}

/// Panics unless a `status` answer with `body` to `GET path_and_query` is what the document
/// says: a status the matched operation lists, and a body valid against its schema. A path
/// the document does not know must be a 404 with the error body.
pub fn assert_documented_response(path_and_query: &str, status: u16, body: &Value) {
    let path = path_and_query
        .split(['?', '#'])
        .next()
        .unwrap_or(path_and_query);
    let Some((template, operation)) = documented_operation(path) else {
        assert_eq!(status, 404, "{path}: undocumented path answered {status}");
        assert_matches_schema(body, "Error");
        return;
    };
    let mut response = operation["responses"]
        .get(status.to_string())
        .unwrap_or_else(|| panic!("{template}: status {status} is not documented"));
    if let Some(reference) = response["$ref"].as_str() {
        let name = reference
            .strip_prefix("#/components/responses/")
            .expect("a local response reference");
        response = &openapi()["components"]["responses"][name];
    }
    let schema = response["content"]["application/json"]
        .get("schema")
        .unwrap_or_else(|| panic!("{template} {status}: no application/json schema"));
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        Some(name) => assert_matches_schema(body, name),
        None => assert_valid(&validator(schema), body, &format!("{template} {status}")),
    }
}
