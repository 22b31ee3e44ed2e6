//! A forum on 127.0.0.1:0 that answers scripted replies and records every request's arrival
//! time, path and user agent.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

pub const USER_AGENT: &str = "ForumdexTest/1.0 (+https://example.org/crawler; ops@example.org)";

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub at: Instant,
    pub path: String,
    pub user_agent: Option<String>,
}

/// A scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Reply {
    pub fn new(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
        }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

#[derive(Default)]
struct Shared {
    hits: Mutex<Vec<Hit>>,
    script: Mutex<HashMap<String, VecDeque<Reply>>>,
}

/// The running fixture server.
pub struct Forum {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Forum {
    pub async fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, shared }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Queues replies for a path (with its query); unscripted requests get 200 "page PATH".
    pub fn script(&self, path: &str, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.script)
            .entry(path.to_owned())
            .or_default()
            .extend(replies);
    }

    pub fn hits(&self) -> Vec<Hit> {
        lock(&self.shared.hits).clone()
    }

    pub fn paths(&self) -> Vec<String> {
        self.hits().into_iter().map(|hit| hit.path).collect()
    }

    /// The gaps between consecutive arrivals.
    pub fn gaps(&self) -> Vec<Duration> {
        let hits = self.hits();
        hits.windows(2)
            .map(|pair| pair[1].at - pair[0].at)
            .collect()
    }
}

async fn answer(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned());
    lock(&shared.hits).push(Hit {
        at: Instant::now(),
        path: path.clone(),
        user_agent: headers
            .get("user-agent")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
    });
    let scripted = lock(&shared.script)
        .get_mut(&path)
        .and_then(VecDeque::pop_front);
    let reply = scripted.unwrap_or_else(|| Reply::new(200, &format!("page {path}")));
    let status = StatusCode::from_u16(reply.status).expect("a scripted status");
    let mut response = (status, reply.body).into_response();
    for (name, value) in reply.headers {
        response
            .headers_mut()
            .insert(name, value.parse().expect("a scripted header"));
    }
    response
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
