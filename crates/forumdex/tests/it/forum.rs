//! A fixture forum on 127.0.0.1:0 for the crawl tests: serves the saved Bitcointalk pages
//! of `/work/shared/data/smf-pages/` by their forum URLs (or a test's replacement of one),
//! a robots.txt, and records when each request arrived.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// What robots.txt says: profiles are off limits.
pub const ROBOTS: &str = "User-agent: *\nDisallow: /index.php?action=profile\n";

/// The saved pages, relative to this crate's folder; `None` (the test skips) when absent.
pub fn pages_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/smf-pages");
    if dir.join("topic_14.html").is_file() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is absent", dir.display());
        None
    }
}

/// The saved page file of a forum query (`topic=14.0`), if any.
fn saved(query: &str) -> Option<&'static str> {
    match query {
        "topic=14.0" => Some("topic_14.html"),
        "board=74.0" => Some("board_74.html"),
        "action=profile;u=12" => Some("profile_12.html"),
        _ => None,
    }
}

/// A reply: status, extra headers, body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }
}

#[derive(Default)]
struct Shared {
    hits: Mutex<Vec<(Instant, String)>>,
    /// Replies queued for a query, used once each before the saved page.
    script: Mutex<HashMap<String, VecDeque<Reply>>>,
    /// Replacement bodies for a query (used for every request).
    bodies: Mutex<HashMap<String, Vec<u8>>>,
    dir: PathBuf,
}

/// The running fixture forum (its runtime thread lives as long as the test process).
pub struct Forum {
    pub url: String,
    shared: Arc<Shared>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Forum {
    pub fn start(dir: PathBuf) -> Self {
        let shared = Arc::new(Shared {
            dir,
            ..Shared::default()
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let state = Arc::clone(&shared);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                tx.send(listener.local_addr().expect("address"))
                    .expect("send");
                let app = axum::Router::new().fallback(move |uri: Uri| {
                    let state = Arc::clone(&state);
                    async move { answer(&state, &uri) }
                });
                axum::serve(listener, app).await.expect("serve");
            });
        });
        let addr = rx.recv().expect("the fixture forum started");
        Self {
            url: format!("http://{addr}"),
            shared,
        }
    }

    /// Queues one-off replies for a query.
    pub fn script(&self, query: &str, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.script)
            .entry(query.to_owned())
            .or_default()
            .extend(replies);
    }

    /// Serves `body` for a query from now on.
    pub fn replace(&self, query: &str, body: Vec<u8>) {
        lock(&self.shared.bodies).insert(query.to_owned(), body);
    }

    /// The saved page of a query.
    pub fn saved_page(&self, query: &str) -> Vec<u8> {
        let name = saved(query).expect("a saved page");
        std::fs::read(self.shared.dir.join(name)).expect("read the saved page")
    }

    /// Every request so far: arrival and `path?query`.
    pub fn hits(&self) -> Vec<(Instant, String)> {
        lock(&self.shared.hits).clone()
    }

    /// The requests for pages (robots.txt left out).
    pub fn page_hits(&self) -> Vec<String> {
        self.hits()
            .into_iter()
            .map(|(_, path)| path)
            .filter(|path| path != "/robots.txt")
            .collect()
    }

    /// Asserts that no two requests arrived less than `ms` apart.
    pub fn assert_paced(&self, ms: u128) {
        let hits = self.hits();
        for pair in hits.windows(2) {
            let gap = pair[1].0.duration_since(pair[0].0).as_millis();
            assert!(
                gap >= ms,
                "{} then {} only {gap} ms apart",
                pair[0].1,
                pair[1].1
            );
        }
    }
}

fn answer(shared: &Shared, uri: &Uri) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned());
    lock(&shared.hits).push((Instant::now(), path.clone()));
    if uri.path() == "/robots.txt" {
        return (StatusCode::OK, ROBOTS).into_response();
    }
    let query = uri.query().unwrap_or_default().to_owned();
    let scripted = lock(&shared.script)
        .get_mut(&query)
        .and_then(VecDeque::pop_front);
    let reply = scripted.or_else(|| {
        let body = lock(&shared.bodies)
            .get(&query)
            .cloned()
            .or_else(|| saved(&query).and_then(|name| std::fs::read(shared.dir.join(name)).ok()))?;
        Some(Reply::new(200, body))
    });
    let reply = reply.unwrap_or_else(|| Reply::new(404, "no such page"));
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "text/html; charset=ISO-8859-1")],
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        if let Ok(value) = value.parse() {
            response.headers_mut().insert(name, value);
        }
    }
    response
}
