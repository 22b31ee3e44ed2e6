//! Several nodes of one deployment (`storage = "postgres"`): two `forumdex serve` processes,
//! each with a data folder of its own (search indexes), on one PostgreSQL database and one
//! Redis server, with one cursor secret file. What a client sees must not depend on the node
//! that answers: credits, rate limits, cursors, key revocations and imports are shared, and
//! a node killed mid-traffic leaves the other serving with nothing charged twice.
//!
//! PostgreSQL is forumdex-testkit's (a private server, or `FORUMDEX_TEST_DATABASE_URL`);
//! Redis is forumdex-testkit's too (`FORUMDEX_TEST_REDIS_URL`, or a private `redis-server`),
//! and a server of the test's own where a test stops it. Image objects in S3 go to
//! forumdex-testkit's S3-compatible server (SeaweedFS, or `FORUMDEX_TEST_S3_URL`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use forumdex_testkit::redis::{PrivateRedis, redis_url};
use forumdex_testkit::s3::PrivateS3;
use serde_json::Value;

use crate::serve::{ServeProcess, forumdex_command, get_response};

/// Posts `first..=last` of topic 5, one a minute, by profile 3; post `rare.0` holds the
/// word `rare.1`.
fn corpus_lines(first: i64, last: i64, rare: (i64, &str)) -> String {
    (first..=last)
        .map(|id| {
            let minute = id - 100;
            let text = if id == rare.0 { rare.1 } else { "an ordinary post" };
            format!(
                r#"{{"kind":"post","post_id":{id},"topic_id":5,"post_number":{minute},"title":"Nodes","author":{{"profile_id":3,"username":"satoshi"}},"posted_at":"2024-03-01T12:{minute:02}:00Z","content_html":"{text}","observed_at":"2024-03-02T00:00:00Z"}}"#
            ) + "\n"
        })
        .collect()
}

/// One deployment's shared settings: a fresh PostgreSQL schema, a Redis server and a
/// cursor secret file, as `FORUMDEX_*` variables for every command and node.
struct Cluster {
    dir: tempfile::TempDir,
    database_url: String,
    env: Vec<(&'static str, String)>,
}

impl Cluster {
    fn new(redis_url: &str) -> Self {
        Self::on(forumdex_testkit::postgres::fresh_schema_url(), redis_url)
    }

    fn on(database_url: String, redis_url: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let secret = dir.path().join("cursor-secret");
        let env = vec![
            ("FORUMDEX_STORAGE", "postgres".to_owned()),
            ("FORUMDEX_DATABASE_URL", database_url.clone()),
            ("FORUMDEX_REDIS_URL", redis_url.to_owned()),
            ("FORUMDEX_CURSOR_SECRET_FILE", secret.display().to_string()),
        ];
        let cluster = Self {
            dir,
            database_url,
            env,
        };
        let migrated = cluster.cli("a", &["db", "migrate"]);
        assert_eq!(
            migrated["schema_version"],
            forumdex_postgres::schema::SCHEMA_VERSION,
            "{migrated}"
        );
        cluster
    }

    /// The data folder of node `name`.
    fn data(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, node: &str) -> Command {
        let mut command = forumdex_command(&self.data(node));
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Runs `forumdex --json ARGS` as node `node` would; its JSON object.
    fn cli(&self, node: &str, args: &[&str]) -> Value {
        let out = self
            .command(node)
            .arg("--json")
            .args(args)
            .output()
            .expect("run forumdex");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?} failed: {stderr}");
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    }

    /// Runs `forumdex ARGS` as node `node` would, which must fail; its message.
    fn cli_fails(&self, node: &str, args: &[&str]) -> String {
        let out = self
            .command(node)
            .args(args)
            .output()
            .expect("run forumdex");
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    /// Imports corpus lines through node `node`.
    fn import(&self, node: &str, lines: &str) {
        self.import_with(node, lines, &[]);
    }

    /// [`Self::import`] with more arguments (`--index`).
    fn import_with(&self, node: &str, lines: &str, extra: &[&str]) -> Value {
        let file = self
            .dir
            .path()
            .join(format!("{node}-{}.jsonl", lines.len()));
        std::fs::write(&file, lines).expect("write corpus");
        let mut args = vec!["import", file.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        self.cli(node, &args)
    }

    /// Generates a corpus of 300 posts with images and imports it through node `node`;
    /// how many image objects it stored, none of them in the node's data folder (they go
    /// where `FORUMDEX_IMAGES_URL` says).
    fn import_generated_images(&self, node: &str) -> u64 {
        let corpus = self.dir.path().join("generated.jsonl");
        let corpus_arg = corpus.to_str().expect("utf-8 path");
        let args = [
            "generate", "--posts", "300", "--seed", "5", "--out", corpus_arg,
        ];
        self.cli(node, &args);
        let imported = self.cli(node, &["import", corpus_arg]);
        let cached = imported["images_cached"].as_u64().expect("a count");
        assert!(cached > 0, "{imported}");
        assert!(
            !self.data(node).join("images").exists(),
            "objects go to images_url"
        );
        cached
    }

    /// An account holding `credits`; its id.
    fn account(&self, credits: u64) -> i64 {
        let created = self.cli(
            "a",
            &[
                "accounts",
                "create",
                "--email",
                "nodes@example.com",
                "--credits",
                &credits.to_string(),
            ],
        );
        created["account_id"].as_i64().expect("account id")
    }

    /// A new key of `account`: (key id, secret).
    fn key(&self, account: i64) -> (String, String) {
        let key = self.cli("a", &["keys", "create", "--account", &account.to_string()]);
        (
            key["key_id"].as_str().expect("key id").to_owned(),
            key["key"].as_str().expect("secret").to_owned(),
        )
    }

    /// Starts node `name` with `extra` settings.
    fn serve(&self, name: &str, extra: &[(&str, &str)]) -> ServeProcess {
        let mut env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        env.extend_from_slice(extra);
        ServeProcess::start_with(&self.data(name), &env)
    }

    /// The addresses of the image objects the shared corpus records.
    fn image_objects(&self) -> Vec<String> {
        let mut db = postgres::Client::connect(&self.database_url, postgres::NoTls)
            .expect("connect to the test database");
        db.query(
            "SELECT DISTINCT avif_sha256 FROM image_objects ORDER BY 1",
            &[],
        )
        .expect("read the image objects")
        .iter()
        .map(|row| row.get(0))
        .collect()
    }

    /// The debits of `account` in the shared ledger: their request ids.
    fn debits(&self, account: i64) -> Vec<String> {
        let mut db = postgres::Client::connect(&self.database_url, postgres::NoTls)
            .expect("connect to the test database");
        db.query(
            "SELECT request_id FROM ledger WHERE account_id = $1 AND amount < 0 ORDER BY id",
            &[&account],
        )
        .expect("read the ledger")
        .iter()
        .map(|row| row.get(0))
        .collect()
    }
}

/// `GET path` on `addr` with `key`: (status, body as JSON or null, request id).
fn call(addr: SocketAddr, path: &str, key: &str) -> (u16, Value, Option<String>) {
    let response = get_response(addr, path, key).expect("an answer");
    let body = serde_json::from_str(&response.body).unwrap_or(Value::Null);
    (response.status, body, response.request_id)
}

/// Polls `check` every 500 ms until it holds or `within` passes.
fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    check()
}

#[test]
fn two_nodes_share_credits_limits_cursors_revocations_and_imports() {
    let cluster = Cluster::new(&redis_url());
    cluster.import("a", &corpus_lines(101, 130, (120, "quokkaphile")));
    let account = cluster.account(15);
    let (key_id, key) = cluster.key(account);
    let nodes = [
        cluster.serve("a", &[("FORUMDEX_RATE_LIMIT_PER_MINUTE", "120")]),
        cluster.serve("b", &[("FORUMDEX_RATE_LIMIT_PER_MINUTE", "120")]),
    ];
    let addrs = [nodes[0].addr, nodes[1].addr];

    // 40 lookups at once across both nodes on 15 credits: exactly 15 served and charged.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..40)
            .map(|i| {
                let (addr, key) = (addrs[i % 2], key.as_str());
                scope.spawn(move || call(addr, &format!("/api/v1/posts/{}", 101 + i % 30), key).0)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 15);
    assert_eq!(statuses.iter().filter(|s| **s == 402).count(), 25);
    assert_eq!(cluster.debits(account).len(), 15);

    // Credits added by the operator are spendable at once on both nodes.
    let added = cluster.cli(
        "b",
        &[
            "credits",
            "add",
            "--account",
            &account.to_string(),
            "--amount",
            "1000",
        ],
    );
    assert_eq!(added["credits"], 1000);

    // A cursor issued by node A continues on node B, on the same snapshot.
    let (status, first, _) = call(addrs[0], "/api/v1/topics/5/posts?limit=10", &key);
    assert_eq!(status, 200, "{first}");
    let cursor = first["next_cursor"].as_str().expect("a next cursor");
    let (status, second, _) = call(
        addrs[1],
        &format!("/api/v1/topics/5/posts?limit=10&cursor={cursor}"),
        &key,
    );
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["snapshot_at"], first["snapshot_at"]);
    assert_eq!(second["data"][0]["post_id"], 111, "{second}");

    // An import through node B is searchable and served on both nodes.
    cluster.import("b", &corpus_lines(131, 131, (131, "wombatology")));
    let (_, searcher) = cluster.key(account);
    for addr in addrs {
        for (word, post_id) in [("quokkaphile", 120), ("wombatology", 131)] {
            let found = eventually(Duration::from_secs(30), || {
                let path = format!("/api/v1/search?q={word}");
                let (status, body, _) = call(addr, &path, &searcher);
                status == 200 && body["hits"][0]["post_id"] == post_id
            });
            assert!(found, "node {addr} finds post {post_id}");
        }
        assert_eq!(call(addr, "/api/v1/posts/131", &key).0, 200);
    }

    // 130 requests of one new key over both nodes within a minute: exactly 120 pass.
    let (_, limited) = cluster.key(account);
    let passed = (0..130)
        .filter(|i| call(addrs[i % 2], "/api/v1/posts/101", &limited).0 == 200)
        .count();
    assert_eq!(passed, 120);

    // A key revoked through one node's process is refused by the other at once.
    let revoked = cluster.cli("a", &["keys", "revoke", &key_id]);
    assert_eq!(revoked["status"], "revoked");
    assert_eq!(call(addrs[1], "/api/v1/posts/101", &key).0, 401);
    assert_eq!(call(addrs[0], "/api/v1/posts/101", &key).0, 401);

    // Stopped as a service manager stops them, the nodes exit cleanly.
    for node in nodes {
        assert!(node.stop().success(), "a clean exit");
    }
}

#[test]
fn a_node_killed_mid_traffic_leaves_the_other_serving_and_nothing_charged_twice() {
    let cluster = Cluster::new(&redis_url());
    cluster.import("a", &corpus_lines(101, 130, (120, "quokkaphile")));
    let account = cluster.account(100_000);
    let (_, key) = cluster.key(account);
    let doomed = cluster.serve("a", &[]);
    let survivor = cluster.serve("b", &[]);
    let (doomed_addr, survivor_addr) = (doomed.addr, survivor.addr);

    let served: Vec<String> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..4)
            .map(|i| {
                let key = key.as_str();
                scope.spawn(move || {
                    let mut served = Vec::new();
                    for n in 0..150 {
                        let addr = if (i + n) % 2 == 0 {
                            doomed_addr
                        } else {
                            survivor_addr
                        };
                        let path = format!("/api/v1/posts/{}", 101 + n % 30);
                        if let Ok(response) = get_response(addr, &path, key)
                            && response.status == 200
                        {
                            served.push(response.request_id.expect("a request id"));
                        }
                    }
                    served
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        doomed.kill();
        clients
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    // The survivor kept serving after the kill.
    assert_eq!(call(survivor_addr, "/api/v1/posts/101", &key).0, 200);
    let debits = cluster.debits(account);
    let mut unique = debits.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), debits.len(), "one debit per request id");
    for request_id in &served {
        assert_eq!(
            debits.iter().filter(|d| *d == request_id).count(),
            1,
            "request {request_id} was served and charged once"
        );
    }
    // Charged but unanswered: at most the requests in flight when the node died (one per
    // client), plus the survivor's check above.
    let charged_unanswered = debits.len() - served.len() - 1;
    assert!(
        charged_unanswered <= 4,
        "{} debits, {} served",
        debits.len(),
        served.len()
    );
}

#[test]
fn image_objects_in_a_shared_folder_are_served_by_every_node() {
    let mut cluster = Cluster::new(&redis_url());
    let shared = cluster.dir.path().join("shared-images");
    cluster
        .env
        .push(("FORUMDEX_IMAGES_URL", shared.display().to_string()));
    let cached = cluster.import_generated_images("a");
    let objects: Vec<String> = std::fs::read_dir(&shared)
        .expect("the shared folder")
        .flat_map(|folder| std::fs::read_dir(folder.expect("folder").path()).expect("objects"))
        .map(|file| {
            file.expect("object")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(objects.len() as u64, cached);
    let other = cluster.serve("b", &[]);
    for object in &objects {
        let path = format!("/cdn/{object}");
        assert_eq!(
            get_response(other.addr, &path, "").unwrap().status,
            200,
            "{path}"
        );
    }
}

#[test]
fn image_objects_in_s3_are_served_by_every_node_and_an_outage_is_a_503() {
    let s3 = PrivateS3::start().expect("a private S3-compatible server");
    let store = s3.store();
    let mut cluster = Cluster::new(&redis_url());
    cluster
        .env
        .push(("FORUMDEX_IMAGES_URL", store.fresh_location().to_string()));
    cluster.env.extend(store.env());
    let cached = cluster.import_generated_images("a");
    let objects = cluster.image_objects();
    assert_eq!(objects.len() as u64, cached);

    let other = cluster.serve("b", &[]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let client = reqwest::Client::new();
    let url = |sha256: &str| format!("http://{}/cdn/{sha256}.avif", other.addr);
    runtime.block_on(async {
        for sha256 in &objects {
            let response = client.get(url(sha256)).send().await.expect("an answer");
            assert_eq!(response.status(), 200, "{sha256}");
            let headers = response.headers().clone();
            assert_eq!(headers["etag"], format!("\"{sha256}\"").as_str());
            assert_eq!(headers["content-type"], "image/avif");
            assert_eq!(
                headers["cache-control"],
                "public, max-age=31536000, immutable"
            );
            let bytes = response.bytes().await.expect("the object");
            assert_eq!(
                &forumdex_images::sha256_hex(&bytes),
                sha256,
                "the same bytes"
            );
        }
        let first = &objects[0];
        let part = (client.get(url(first)).header("Range", "bytes=0-15"))
            .send()
            .await
            .expect("an answer");
        assert_eq!(part.status(), 206);
        assert!(
            part.headers()["content-range"]
                .to_str()
                .unwrap()
                .starts_with("bytes 0-15/")
        );
        assert_eq!(part.bytes().await.unwrap().len(), 16);
        let unchanged = (client.get(url(first)))
            .header("If-None-Match", format!("\"{first}\""))
            .send()
            .await
            .expect("an answer");
        assert_eq!(unchanged.status(), 304);

        s3.stop();
        let down = client.get(url(first)).send().await.expect("an answer");
        assert_eq!(down.status(), 503);
        let body: Value = down.json().await.expect("a JSON error body");
        assert!(body["error"].is_string(), "{body}");
        assert!(body["requestId"].is_string(), "{body}");
        s3.start_again().expect("start the S3 server again");
        let back = client.get(url(first)).send().await.expect("an answer");
        assert_eq!(back.status(), 200, "served again without a restart");
    });
}

#[test]
fn a_new_node_starts_from_a_copy_of_another_nodes_indexes_and_catches_up() {
    let cluster = Cluster::new(&redis_url());
    // On PostgreSQL an import writes the shared corpus only, unless asked to index its
    // node's folder too.
    cluster.import("a", &corpus_lines(101, 130, (120, "quokkaphile")));
    assert!(
        !cluster.data("a").join("search").exists(),
        "no index built by a plain import"
    );
    cluster.import_with(
        "a",
        &corpus_lines(101, 130, (120, "quokkaphile")),
        &["--index"],
    );
    // Imported through a third node: in PostgreSQL, not in node A's indexes.
    cluster.import("c", &corpus_lines(131, 131, (131, "wombatology")));
    let source = cluster.data("a");
    let source = source.to_str().expect("utf-8 path");
    let seeded = cluster.cli("b", &["reindex", "--from", source]);
    assert_eq!(
        seeded["from_seq"], 1,
        "copied at node A's sequence: {seeded}"
    );
    assert_eq!(seeded["synced_seq"], 2, "{seeded}");
    assert_eq!(
        seeded["posts_indexed"], 1,
        "only the later post was indexed: {seeded}"
    );
    let message = cluster.cli_fails("b", &["reindex", "--from", source]);
    assert!(
        message.contains("already holds search indexes"),
        "{message}"
    );

    let account = cluster.account(10);
    let (_, key) = cluster.key(account);
    let node = cluster.serve("b", &[]);
    for (word, post_id) in [("quokkaphile", 120), ("wombatology", 131)] {
        let (status, body, _) = call(node.addr, &format!("/api/v1/search?q={word}"), &key);
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["hits"][0]["post_id"], post_id, "{body}");
    }
}

/// Each post is embedded once per deployment: node B, with its own indexes of the shared
/// corpus, reads from PostgreSQL every vector node A made.
#[test]
fn two_nodes_share_one_embedding_of_each_post() {
    let cluster = Cluster::new(&redis_url());
    cluster.import_with(
        "a",
        &corpus_lines(101, 130, (120, "quokkaphile")),
        &["--index"],
    );
    cluster.cli("b", &["reindex"]);
    let first = cluster.cli("a", &["embed"]);
    assert_eq!(first["docs_embedded"], 30, "{first}");
    assert_eq!(first["docs_from_store"], 0, "{first}");
    let second = cluster.cli("b", &["embed"]);
    assert_eq!(second["docs_embedded"], 30, "{second}");
    assert_eq!(
        second["docs_from_store"], 30,
        "every vector read from PostgreSQL: {second}"
    );
    assert_eq!(second["embedded"], second["docs"], "{second}");
    assert!(
        !cluster.data("b").join("vectors.sqlite").exists(),
        "nothing kept in the node's folder but its segment tables"
    );
}

#[test]
fn redis_or_postgres_down_is_a_503_charging_nothing_and_service_resumes_without_a_restart() {
    let postgres = forumdex_testkit::postgres::PrivatePostgres::start().expect("PostgreSQL");
    let redis = PrivateRedis::start().expect("Redis");
    let cluster = Cluster::on(postgres.url(), &redis.url());
    cluster.import("a", &corpus_lines(101, 105, (101, "quokkaphile")));
    let account = cluster.account(100);
    let (_, key) = cluster.key(account);
    let node = cluster.serve("a", &[]);
    // A node set to count the limit alone while Redis is away.
    let admitting = cluster.serve("b", &[("FORUMDEX_RATE_LIMITER_FALLBACK", "local")]);
    assert_eq!(call(node.addr, "/api/v1/posts/101", &key).0, 200);

    redis.stop();
    let (status, body, _) = call(node.addr, "/api/v1/posts/101", &key);
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"].is_string(),
        "the contract's error body: {body}"
    );
    assert_eq!(body["creditsCharged"], 0, "{body}");
    let (status, body, _) = call(admitting.addr, "/api/v1/posts/101", &key);
    assert_eq!(
        status, 200,
        "served and charged with the local fallback: {body}"
    );
    // Readiness says the same: the node that refuses is out of rotation, naming why; the
    // one that counts alone stays in (once its search indexes have caught up).
    let (status, body, _) = call(node.addr, "/readyz", &key);
    assert_eq!(status, 503, "not ready while Redis is away: {body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("rate limits"),
        "{body}"
    );
    assert!(eventually(Duration::from_secs(30), || {
        call(admitting.addr, "/readyz", &key).0 == 200
    }));
    redis.start_again().expect("start Redis");
    assert!(eventually(Duration::from_secs(30), || {
        call(node.addr, "/api/v1/posts/101", &key).0 == 200
    }));

    postgres.stop().expect("stop PostgreSQL");
    let (status, body, _) = call(node.addr, "/api/v1/posts/102", &key);
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"].is_string(),
        "the contract's error body: {body}"
    );
    assert_eq!(body["creditsCharged"], 0, "{body}");
    postgres.start_again().expect("start PostgreSQL");
    assert!(eventually(Duration::from_secs(30), || {
        call(node.addr, "/api/v1/posts/102", &key).0 == 200
    }));
    // Charged: the four 200s only.
    assert_eq!(cluster.debits(account).len(), 4);
}

/// The first post of a corpus file: (post id, topic id, author's profile id).
fn first_post(corpus: &std::path::Path) -> (i64, i64, i64) {
    let text = std::fs::read_to_string(corpus).expect("read corpus");
    let post: Value = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"))
        .find(|record| record["kind"] == "post" && record["author"]["profile_id"].is_i64())
        .expect("a post with an author");
    let id = |v: &Value| v.as_i64().expect("an id");
    (
        id(&post["post_id"]),
        id(&post["topic_id"]),
        id(&post["author"]["profile_id"]),
    )
}

/// A response body of the server at `addr` without what differs between two servers by
/// design: request ids, the snapshot's instants, cursors signed with each deployment's
/// secret, and the server's own address in CDN URLs.
fn comparable(body: Value, addr: SocketAddr) -> Value {
    let text = body.to_string().replace(&addr.to_string(), "server");
    let mut body: Value = serde_json::from_str(&text).expect("JSON");
    if let Some(object) = body.as_object_mut() {
        for volatile in [
            "snapshot_at",
            "cursor_expires_at",
            "next_cursor",
            "requestId",
        ] {
            object.remove(volatile);
        }
    }
    body
}

#[test]
fn an_embedded_deployment_copied_into_postgres_serves_the_same_answers() {
    let embedded_dir = tempfile::tempdir().expect("temp dir");
    let embedded = embedded_dir.path().join("data");
    let corpus = embedded_dir.path().join("corpus.jsonl");
    let run = |args: &[&str]| {
        let out = forumdex_command(&embedded)
            .arg("--json")
            .args(args)
            .output()
            .expect("run forumdex");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("JSON")
    };
    run(&[
        "generate",
        "--posts",
        "400",
        "--seed",
        "11",
        "--out",
        corpus.to_str().unwrap(),
    ]);
    let imported = run(&["import", corpus.to_str().unwrap()]);
    assert!(
        imported["images_cached"].as_u64().unwrap() > 0,
        "{imported}"
    );
    let embedded_vectors = run(&["embed"]);
    let account = run(&[
        "accounts",
        "create",
        "--email",
        "copy@example.com",
        "--credits",
        "50",
    ]);
    let account = account["account_id"].as_i64().unwrap();
    let key = run(&["keys", "create", "--account", &account.to_string()]);
    let key = key["key"].as_str().unwrap().to_owned();

    // Into PostgreSQL and an S3 bucket.
    let mut cluster = Cluster::new(&redis_url());
    let store = forumdex_testkit::s3::shared_store();
    cluster
        .env
        .push(("FORUMDEX_IMAGES_URL", store.fresh_location().to_string()));
    cluster.env.extend(store.env());
    let from = embedded.to_str().unwrap();
    let copied = cluster.cli("p", &["db", "copy", "--from", from]);
    for (table, at_least) in [
        ("post_versions", 400),
        ("accounts", 1),
        ("api_keys", 1),
        ("post_vectors", 400),
    ] {
        assert!(
            copied[table].as_u64().unwrap() >= at_least,
            "{table}: {copied}"
        );
    }
    assert!(copied["image_files"].as_u64().unwrap() > 0, "{copied}");
    let again = cluster.cli("p", &["db", "copy", "--from", from]);
    let copied_again: u64 = again
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(copied_again, 0, "a second copy copies nothing: {again}");
    let shown = cluster.cli("p", &["accounts", "show", &account.to_string()]);
    assert_eq!(shown["credits"], 50);
    // The vectors came along: the new deployment's node embeds no post again.
    cluster.cli("p", &["reindex"]);
    let vectors = cluster.cli("p", &["embed"]);
    assert_eq!(
        vectors["docs_from_store"], vectors["docs_embedded"],
        "{vectors}"
    );
    assert_eq!(
        vectors["embedded"], embedded_vectors["embedded"],
        "{vectors}"
    );

    let before = ServeProcess::start(&embedded);
    let after = cluster.serve("p", &[]);
    let (post, topic, profile) = first_post(&corpus);
    for path in [
        format!("/api/v1/posts/{post}"),
        format!("/api/v1/topics/{topic}"),
        format!("/api/v1/profiles/{profile}"),
        format!("/api/v1/topics/{topic}/posts?limit=5"),
        format!("/api/v1/profiles/{profile}/posts?limit=5&order=desc"),
    ] {
        let (status, old, _) = call(before.addr, &path, &key);
        assert_eq!(status, 200, "{path}: {old}");
        let (status, new, _) = call(after.addr, &path, &key);
        assert_eq!(status, 200, "{path}: {new}");
        let (new, old) = (comparable(new, after.addr), comparable(old, before.addr));
        assert_eq!(new, old, "{path}");
    }
    // Every image object of the embedded folder is served by the new deployment's CDN, from
    // the bucket.
    assert!(!cluster.data("p").join("images").exists());
    let objects: Vec<String> = std::fs::read_dir(embedded.join("images"))
        .expect("image folders")
        .flat_map(|folder| std::fs::read_dir(folder.expect("folder").path()).expect("objects"))
        .map(|file| {
            file.expect("object")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        objects.len() as u64,
        copied["image_files"].as_u64().unwrap()
    );
    for object in &objects {
        let path = format!("/cdn/{object}");
        assert_eq!(
            get_response(after.addr, &path, "").unwrap().status,
            200,
            "{path}"
        );
    }
}
