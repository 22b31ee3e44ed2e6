//! Faults from a server that misbehaves on purpose: a tiny HTTP/1.1 responder on a tokio
//! `TcpListener` that answers each connection from a script (one connection per request:
//! every answer says `Connection: close`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use forumdex_client::{
    Client, Error, ForumId, Limit, MAX_CONSECUTIVE_RESTARTS, PageOptions, TopicPostsOptions,
    WalkStats,
};
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::helpers::RecordingClock;

/// What the fake server does with one request.
#[derive(Debug, Clone)]
enum Reply {
    /// Answers with this status and JSON body.
    Status(u16, String),
    /// Resets the connection (RST) after reading the request, without answering.
    Reset,
    /// Reads the request and never answers (until the test ends).
    Stall,
}

/// A misbehaving server: replies in order; the last one repeats.
struct FakeServer {
    base_url: String,
    requests: Arc<AtomicUsize>,
    targets: Arc<Mutex<Vec<String>>>,
}

impl FakeServer {
    async fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        let script = Arc::new(Mutex::new(script));
        let targets = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&targets);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let reply = {
                    let mut script = script.lock().expect("not poisoned");
                    if script.len() > 1 {
                        script.remove(0)
                    } else {
                        script[0].clone()
                    }
                };
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve(stream, reply, Arc::clone(&seen)));
            }
        });
        Self {
            base_url,
            requests,
            targets,
        }
    }

    /// The request targets (path and query) received, in order.
    fn targets(&self) -> Vec<String> {
        self.targets.lock().expect("not poisoned").clone()
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// A client with `retries` whose waits are recorded, not slept.
    fn client(&self, retries: u32) -> (Client, Arc<RecordingClock>) {
        let clock = Arc::new(RecordingClock::default());
        let client = Client::builder(&self.base_url, "fdx_test_key")
            .use_env_proxy(false)
            .max_retries(retries)
            .timeout(Duration::from_millis(300))
            .clock(clock.clone())
            .build()
            .expect("client builds");
        (client, clock)
    }
}

async fn serve(mut stream: TcpStream, reply: Reply, targets: Arc<Mutex<Vec<String>>>) {
    let mut request = Vec::new();
    let mut buffer = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let head = String::from_utf8_lossy(&request);
    let target = head.split(' ').nth(1).unwrap_or_default().to_owned();
    targets.lock().expect("not poisoned").push(target);
    match reply {
        Reply::Status(status, body) => {
            let charged = if status == 200 {
                "x-credits-charged: 1\r\n"
            } else {
                ""
            };
            let head = format!(
                "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\nx-request-id: fake-{status}\r\n{charged}\
                 connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
        Reply::Reset => {
            let _ = stream.set_zero_linger();
            drop(stream);
        }
        Reply::Stall => {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    }
}

fn unavailable() -> Reply {
    Reply::Status(
        503,
        r#"{"error":"the request took too long; retry later","creditsCharged":0}"#.to_owned(),
    )
}

/// A post as the contract describes it.
fn post_body() -> String {
    post(7).to_string()
}

fn post(id: i64) -> serde_json::Value {
    serde_json::json!({
        "object": "post", "post_id": id, "topic_id": 2, "post_number": 0, "is_op": true,
        "title": "Hello", "author": {"profile_id": 1, "username": "a", "url": null},
        "board": {"board_id": null, "name": "Unknown"}, "language": "en",
        "posted_at": "2024-03-01T12:00:00.000Z", "url": "https://forum/p/7",
        "topic_url": "https://forum/t/2", "content_html": "hi", "indexed_at": null,
        "merit": {"total": 0, "distinct_senders": 0, "transactions": 0, "observed_at": null}
    })
}

/// A collection page of topic 2 holding `ids`, continued by `next`.
fn page(ids: &[i64], next: Option<&str>) -> Reply {
    let data: Vec<serde_json::Value> = ids.iter().map(|&id| post(id)).collect();
    let body = serde_json::json!({
        "object": "post_list", "scope": {"type": "topic", "id": 2}, "order": "asc", "limit": 2,
        "filters": {"date_from": null, "date_to": null, "board_id": null, "author_uid": null,
            "topic_id": null},
        "snapshot_at": "2024-03-01T12:00:00.000Z", "cursor_expires_at": "2024-03-01T12:05:00.000Z",
        "has_more": next.is_some(), "next_cursor": next, "data": data,
    });
    Reply::Status(200, body.to_string())
}

fn id() -> ForumId {
    ForumId::new(7).expect("valid")
}

#[tokio::test]
async fn a_503_is_retried_after_a_backoff() {
    let server = FakeServer::start(vec![unavailable(), Reply::Status(200, post_body())]).await;
    let (client, clock) = server.client(3);
    let post = client.post(id()).await.expect("the retry succeeds");
    assert_eq!(post.summary.post_id, 7);
    assert_eq!(server.requests(), 2);
    assert_eq!(clock.count(), 1, "one backoff before the retry");
}

#[tokio::test]
async fn retries_are_bounded_and_their_backoffs_grow_with_jitter() {
    let server = FakeServer::start(vec![unavailable()]).await;
    let (client, clock) = server.client(3);
    let err = client.post(id()).await.expect_err("always 503");
    assert!(matches!(err, Error::Unavailable(_)), "{err:?}");
    assert_eq!(err.request_id(), Some("fake-503"));
    assert_eq!(server.requests(), 4, "the first attempt and three retries");
    let sleeps = clock.sleeps.lock().expect("not poisoned").clone();
    assert_eq!(sleeps.len(), 3);
    // Retry n waits within [d/2, d] for d = 250 ms * 2^n.
    for (n, wait) in sleeps.iter().enumerate() {
        let full = Duration::from_millis(250 * (1 << n));
        assert!(*wait >= full / 2 && *wait <= full, "retry {n}: {wait:?}");
    }
}

#[tokio::test]
async fn a_connection_reset_before_a_response_is_retried() {
    let server = FakeServer::start(vec![Reply::Reset, Reply::Status(200, post_body())]).await;
    let (client, clock) = server.client(3);
    let post = client.post(id()).await.expect("the retry succeeds");
    assert_eq!(post.summary.post_id, 7);
    assert_eq!(server.requests(), 2);
    assert_eq!(clock.count(), 1);
}

#[tokio::test]
async fn a_response_slower_than_the_timeout_is_a_timeout_and_not_retried() {
    let server = FakeServer::start(vec![Reply::Stall]).await;
    let (client, clock) = server.client(3);
    let err = client.post(id()).await.expect_err("no answer in time");
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    assert_eq!(
        server.requests(),
        1,
        "not retried: the server may have charged"
    );
    assert_eq!(clock.count(), 0);
}

#[tokio::test]
async fn refusals_are_never_retried() {
    for status in [400u16, 401, 402, 403, 404, 410] {
        let body = format!(r#"{{"error":"no","requestId":"r-{status}","creditsCharged":0}}"#);
        let server = FakeServer::start(vec![Reply::Status(status, body)]).await;
        let (client, clock) = server.client(3);
        let err = client.post(id()).await.expect_err("refused");
        assert_eq!(err.status(), Some(status));
        assert_eq!(err.request_id(), Some(format!("r-{status}").as_str()));
        assert_eq!(server.requests(), 1, "{status} is not retried");
        assert_eq!(clock.count(), 0);
    }
}

#[tokio::test]
async fn a_429_without_waiting_is_returned_at_once() {
    let body = r#"{"error":"rate limit","creditsCharged":0}"#.to_owned();
    let server = FakeServer::start(vec![Reply::Status(429, body)]).await;
    let clock = Arc::new(RecordingClock::default());
    let client = Client::builder(&server.base_url, "k")
        .use_env_proxy(false)
        .wait_on_rate_limit(false)
        .clock(clock.clone())
        .build()
        .expect("client builds");
    let err = client.post(id()).await.expect_err("429");
    assert!(matches!(err, Error::RateLimited { .. }), "{err:?}");
    assert_eq!(server.requests(), 1);
    assert_eq!(clock.count(), 0);
}

#[tokio::test]
async fn a_walk_passes_empty_pages_and_restarts_on_410_without_repeating_a_post() {
    let gone = r#"{"error":"cursor expired","creditsCharged":0}"#.to_owned();
    let server = FakeServer::start(vec![
        page(&[1], Some("c1")),
        // An empty page with a cursor: the walk goes on.
        page(&[], Some("c2")),
        Reply::Status(410, gone),
        // The new snapshot holds a post (0) the first did not, before the one already seen.
        page(&[0, 1], Some("d1")),
        page(&[2], None),
    ])
    .await;
    let (client, clock) = server.client(3);
    let options = TopicPostsOptions {
        page: PageOptions {
            limit: Some(Limit::new(2).expect("valid")),
            ..PageOptions::default()
        },
        ..TopicPostsOptions::default()
    };
    let mut walk = client.walk_topic_posts(ForumId::new(2).expect("valid"), &options);
    let mut ids = Vec::new();
    while let Some(post) = walk.next().await {
        ids.push(post.expect("a post").summary.post_id);
    }
    assert_eq!(
        ids,
        [1, 0, 2],
        "each post once, the new one when its page came"
    );
    assert_eq!(
        walk.stats(),
        WalkStats {
            pages: 4,
            credits: 4,
            restarts: 1,
            posts: 3,
        }
    );
    assert_eq!(
        server.targets(),
        [
            "/api/v1/topics/2/posts?limit=2",
            "/api/v1/topics/2/posts?cursor=c1",
            "/api/v1/topics/2/posts?cursor=c2",
            "/api/v1/topics/2/posts?limit=2",
            "/api/v1/topics/2/posts?cursor=d1",
        ],
        "options with the first request only, then the cursors as given"
    );
    assert_eq!(clock.count(), 0, "a 410 is restarted at once, not retried");
}

#[tokio::test]
async fn a_walk_gives_up_after_repeated_410s() {
    let gone = r#"{"error":"cursor expired","creditsCharged":0}"#.to_owned();
    let server = FakeServer::start(vec![Reply::Status(410, gone)]).await;
    let (client, _) = server.client(3);
    let mut walk = client.walk_topic_posts(ForumId::new(2).expect("valid"), &Default::default());
    let err = walk
        .next()
        .await
        .expect("an item")
        .expect_err("410 for ever");
    assert!(matches!(err, Error::Gone(_)), "{err:?}");
    assert!(walk.next().await.is_none(), "the error ends the walk");
    assert_eq!(server.requests(), 1 + MAX_CONSECUTIVE_RESTARTS as usize);
    assert_eq!(walk.stats().restarts, u64::from(MAX_CONSECUTIVE_RESTARTS));
}
