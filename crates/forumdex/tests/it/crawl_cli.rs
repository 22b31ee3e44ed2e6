//! `forumdex crawl` as an operator runs it, against the fixture forum of [`super::forum`]
//! serving the saved Bitcointalk pages (skipped when they are absent).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use forumdex_corpus::CorpusRead;
use forumdex_crawl::parse::{Page, PageRef, TopicPage, decode, parse_page};
use serde_json::Value;

use super::forum::{Forum, Reply};
use super::helpers::{fails, forumdex, json_ok};
use super::serve::{ServeProcess, get_response};

const USER_AGENT: &str = "ForumdexTest/1.0 (+https://example.org/crawler; ops@example.org)";
const TOPIC_14: &str = "topic=14.0";

/// A data folder with a settings file: the test user agent, the interval's floor.
struct Site {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Site {
    fn new() -> Self {
        Self::with_settings("")
    }

    /// A site of a deployment on PostgreSQL: its corpus and crawl state in the database
    /// at `url`, its search indexes in its own data folder.
    fn on_postgres(url: &str) -> Self {
        Self::with_settings(&format!(
            "storage = \"postgres\"\ndatabase_url = \"{url}\"\nrate_limiter = \"local\"\n"
        ))
    }

    fn with_settings(more: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = dir.path().join("forumdex.toml");
        std::fs::write(
            &config,
            format!("crawl_user_agent = \"{USER_AGENT}\"\ncrawl_interval_ms = 1000\n{more}"),
        )
        .expect("write settings");
        Self { dir, config }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `--config CONFIG crawl --forum-url URL ARGS...`.
    fn args<'a>(&'a self, forum: &'a Forum, args: &[&'a str]) -> Vec<&'a str> {
        let config = self.config.to_str().expect("utf-8 path");
        let mut all = vec![
            "--config",
            config,
            "crawl",
            "--forum-url",
            forum.url.as_str(),
        ];
        all.extend_from_slice(args);
        all
    }

    fn crawl(&self, forum: &Forum, args: &[&str]) -> Value {
        json_ok(&self.data(), &self.args(forum, args))
    }

    fn corpus(&self) -> std::sync::Arc<dyn CorpusRead> {
        forumdex_settings::Settings::default()
            .storage
            .factory(&self.data())
            .corpus()
            .expect("open the corpus")
            .read
    }
}

/// Topic 14 as the parser reads the saved page (or the page the fixture now serves).
fn parsed(body: &[u8]) -> TopicPage {
    let page = PageRef::parse("index.php?topic=14.0").expect("a topic page");
    let html = decode(body, Some("text/html; charset=ISO-8859-1"));
    match parse_page(&page, &html).expect("the page parses") {
        Page::Topic(topic) => topic,
        other => panic!("not a topic page: {other:?}"),
    }
}

/// Asserts the corpus serves every post of `topic` with the page's fields.
fn assert_served(corpus: &dyn CorpusRead, topic: &TopicPage) {
    let seq = corpus.latest_seq().expect("latest sequence");
    for post in &topic.posts {
        let doc = corpus
            .post(post.post_id.get(), seq)
            .expect("read")
            .unwrap_or_else(|| panic!("post {} is served", post.post_id));
        assert_eq!(doc.topic_id, 14);
        assert_eq!(doc.title, post.subject);
        assert_eq!(doc.author_name, post.author.username);
        assert_eq!(doc.author_id, post.author.profile_id.map(|id| id.get()));
        assert_eq!(doc.content_html, post.content_html);
        assert_eq!(doc.post_number, i64::try_from(post.post_number).ok());
        assert_eq!(
            doc.posted_at.map(|t| t.0),
            Some(post.posted_at.timestamp_millis())
        );
    }
    let served = corpus.topic(14, seq).expect("read").expect("topic 14");
    assert_eq!(served.title, topic.title);
}

/// Asserts a running `forumdex serve` on `data` answers every post of `topic`, the topic
/// and its posts' listing with the page's fields, over HTTP.
fn assert_served_over_http(data: &Path, topic: &TopicPage) {
    let account = json_ok(
        data,
        &[
            "accounts",
            "create",
            "--email",
            "crawl@example.org",
            "--credits",
            "100",
        ],
    );
    let account = account["account_id"].to_string();
    let key = json_ok(data, &["keys", "create", "--account", &account]);
    let key = key["key"].as_str().expect("a key").to_owned();
    let server = ServeProcess::start(data);
    let get = |path: &str| -> Value {
        let response = get_response(server.addr, path, &key).expect("request");
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        serde_json::from_str(&response.body).expect("a JSON body")
    };
    for post in &topic.posts {
        let served = get(&format!("/api/v1/posts/{}", post.post_id));
        assert_eq!(served["topic_id"], 14);
        assert_eq!(served["title"], post.subject.as_str());
        assert_eq!(served["content_html"], post.content_html.as_str());
        assert_eq!(served["author"]["username"], post.author.username.as_str());
        assert_eq!(
            served["author"]["profile_id"].as_i64(),
            post.author.profile_id.map(|id| id.get())
        );
        assert_eq!(served["post_number"], post.post_number);
        assert_eq!(
            served["posted_at"],
            post.posted_at
                .format("%Y-%m-%dT%H:%M:%S%.3fZ")
                .to_string()
                .as_str()
        );
    }
    let listed = get("/api/v1/topics/14/posts");
    let listed: Vec<i64> = listed["data"]
        .as_array()
        .expect("posts")
        .iter()
        .map(|p| p["post_id"].as_i64().expect("post_id"))
        .collect();
    let on_page: Vec<i64> = topic.posts.iter().map(|p| p.post_id.get()).collect();
    assert_eq!(
        listed, on_page,
        "the listing holds the page's posts in order"
    );
    let served = get("/api/v1/topics/14");
    assert_eq!(served["title"], topic.title.as_str());
    assert_eq!(served["post_count"], on_page.len());
    assert_eq!(served["views"]["observed"].as_u64(), Some(topic.views));
    server.kill();
}

fn forum() -> Option<Forum> {
    super::forum::pages_dir().map(Forum::start)
}

#[test]
fn a_topic_crawl_imports_what_the_api_serves_politely() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let summary = site.crawl(&forum, &["--topic", "14", "--profiles"]);
    let topic = parsed(&forum.saved_page(TOPIC_14));
    assert_eq!(summary["pages"]["topic"], 1, "{summary}");
    assert_eq!(summary["posts"], topic.posts.len(), "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
    assert_eq!(summary["requests"], 2, "robots.txt and the page: {summary}");
    assert!(summary["new_observations"].as_u64() > Some(0), "{summary}");
    // The authors' profiles are disallowed by robots.txt: never requested.
    assert_eq!(forum.page_hits(), vec![format!("/index.php?{TOPIC_14}")]);
    forum.assert_paced(1000);
    assert_served(site.corpus().as_ref(), &topic);
    assert_served_over_http(&site.data(), &topic);
}

#[test]
fn throttling_is_waited_out() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let mut throttled = Reply::new(429, "slow down");
    throttled.headers.push(("retry-after", "2".to_owned()));
    forum.script(TOPIC_14, [throttled]);
    let summary = site.crawl(&forum, &["--topic", "14"]);
    assert_eq!(summary["errors"], 0, "{summary}");
    assert_eq!(
        summary["requests"], 3,
        "robots.txt, the 429, the page: {summary}"
    );
    let hits = forum.hits();
    assert_eq!(hits.len(), 3);
    let waited = hits[2].0.duration_since(hits[1].0);
    assert!(
        waited >= Duration::from_secs(2),
        "Retry-After honoured: {waited:?}"
    );
    assert_served(site.corpus().as_ref(), &parsed(&forum.saved_page(TOPIC_14)));
}

#[test]
fn a_truncated_page_is_set_aside() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let page = forum.saved_page(TOPIC_14);
    forum.script(TOPIC_14, [Reply::new(200, &page[..page.len() / 2])]);
    let summary = site.crawl(&forum, &["--topic", "14"]);
    assert_eq!(summary["errors"], 1, "{summary}");
    assert_eq!(summary["posts"], 0, "{summary}");
    assert_eq!(forum.page_hits().len(), 1);
    let corpus = site.corpus();
    let seq = corpus.latest_seq().expect("latest sequence");
    assert!(
        corpus.post(53, seq).expect("read").is_none(),
        "nothing imported"
    );
}

#[test]
fn a_challenge_page_stops_the_crawl() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    forum.script(
        TOPIC_14,
        [Reply::new(
            200,
            "<html><head><title>Just a moment...</title></head><body>cf-turnstile</body></html>",
        )],
    );
    let stderr = fails(&site.data(), &site.args(&forum, &["--topic", "14"]));
    assert!(stderr.contains("challenge"), "{stderr}");
    assert!(stderr.contains("topic=14.0"), "{stderr}");
}

#[test]
fn a_refresh_sees_an_edit_then_a_deletion() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    site.crawl(&forum, &["--topic", "14"]);
    let saved = String::from_utf8_lossy(&forum.saved_page(TOPIC_14)).into_owned();
    let edited = saved.replacen("I have one suggestion", "I have one EDITED suggestion", 1);
    forum.replace(TOPIC_14, edited.clone().into_bytes());
    let summary = site.crawl(&forum, &["--refresh", "--topic", "14"]);
    assert!(summary["new_observations"].as_u64() > Some(0), "{summary}");
    let corpus = site.corpus();
    let seq = corpus.latest_seq().expect("latest sequence");
    let post = corpus.post(53, seq).expect("read").expect("post 53");
    assert!(post.content_html.contains("I have one EDITED suggestion"));

    // Post 56's row cut out of the page: it is gone from the forum.
    let anchor = edited.find("<a name=\"msg56\"").expect("post 56's row");
    let start = edited[..anchor].rfind("<tr").expect("its row");
    let end = edited[anchor..]
        .find("<tr><td style=\"padding: 0 0 1px 0;\"></td></tr>")
        .expect("the row's end")
        + anchor;
    let without = format!("{}{}", &edited[..start], &edited[end..]);
    assert_eq!(
        parsed(without.as_bytes()).posts.len() + 1,
        parsed(edited.as_bytes()).posts.len()
    );
    forum.replace(TOPIC_14, without.into_bytes());
    site.crawl(&forum, &["--refresh", "--topic", "14"]);
    let seq = corpus.latest_seq().expect("latest sequence");
    assert!(
        corpus.post(56, seq).expect("read").is_none(),
        "post 56 is deleted"
    );
    assert!(corpus.post(53, seq).expect("read").is_some());
    forum.assert_paced(1000);
}

#[test]
fn out_writes_lines_that_import_accepts() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let out = site.dir.path().join("crawled.jsonl");
    let out_arg = out.to_str().expect("utf-8 path");
    let summary = site.crawl(&forum, &["--topic", "14", "--out", out_arg]);
    let lines = std::fs::read_to_string(&out).expect("the out file");
    assert_eq!(
        summary["new_observations"],
        lines.lines().count(),
        "{summary}"
    );
    let other = site.dir.path().join("other");
    let imported = json_ok(&other, &["import", out_arg]);
    assert_eq!(imported["rejected"], 0, "{imported}");
    assert_eq!(imported["accepted"], lines.lines().count(), "{imported}");
    assert!(
        !site.data().join("corpus.sqlite").exists(),
        "--out imports nothing"
    );
}

#[test]
fn a_crawl_without_a_user_agent_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = forumdex(
        dir.path(),
        &[
            "crawl",
            "--forum-url",
            "http://127.0.0.1:9",
            "--topic",
            "14",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("crawl_user_agent"), "{stderr}");
    assert!(stderr.contains("FORUMDEX_CRAWL_USER_AGENT"), "{stderr}");
}

/// The corpus's observations of posts, per post: `(entity, count)` with count > 1.
fn duplicated_posts(data: &Path) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(data.join("corpus.sqlite")).expect("open the corpus");
    let mut statement = conn
        .prepare(
            "SELECT entity, count(*) FROM observations WHERE kind = 'post'
             GROUP BY entity HAVING count(*) > 1",
        )
        .expect("query");
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read")
}

#[test]
fn a_killed_board_crawl_resumes_without_refetching_or_losing_pages() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let args = site.args(
        &forum,
        &["--board", "74", "--topic", "14", "--max-requests", "5"],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(site.data())
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the crawl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while forum.hits().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    // One crawl per data folder: a second one is refused while the first runs.
    let second = fails(&site.data(), &args);
    assert!(second.contains("another crawl"), "{second}");
    child.kill().expect("SIGKILL the crawl");
    child.wait().expect("reap");
    let before = forum.page_hits();
    assert!(before.len() >= 2, "{before:?}");

    let summary = site.crawl(
        &forum,
        &["--board", "74", "--topic", "14", "--max-requests", "5"],
    );
    assert!(summary["requests"].as_u64() <= Some(5), "{summary}");
    let hits = forum.page_hits();
    let mut unique = hits.clone();
    unique.sort();
    unique.dedup();
    // A page recorded before the kill is not fetched again; at most the one in flight is.
    assert!(hits.len() <= unique.len() + 1, "{hits:?}");
    assert!(
        hits.contains(&"/index.php?board=74.0".to_owned()),
        "{hits:?}"
    );
    assert!(hits.contains(&format!("/index.php?{TOPIC_14}")), "{hits:?}");
    forum.assert_paced(1000);
    let corpus = site.corpus();
    let seq = corpus.latest_seq().expect("latest sequence");
    assert!(
        corpus.topic(96118, seq).expect("read").is_some(),
        "board 74's listing imported"
    );
    assert_served(corpus.as_ref(), &parsed(&forum.saved_page(TOPIC_14)));
    assert_eq!(duplicated_posts(&site.data()), Vec::new());
}

#[test]
fn reparse_reads_the_stored_pages_again_without_fetching() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let first = site.crawl(&forum, &["--topic", "14"]);
    let hits = forum.hits().len();
    let again = site.crawl(&forum, &["--reparse"]);
    assert_eq!(forum.hits().len(), hits, "nothing fetched");
    assert_eq!(again["requests"], 0, "{again}");
    assert_eq!(again["pages"], first["pages"], "{again}");
    assert_eq!(again["posts"], first["posts"], "{again}");
    assert_eq!(
        again["new_observations"], 0,
        "the same observations: {again}"
    );
    assert_eq!(again["errors"], 0, "{again}");
}

#[test]
fn reparse_needs_no_user_agent_as_it_sends_nothing() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let first = site.crawl(&forum, &["--topic", "14"]);
    let hits = forum.hits().len();
    // No --config: no crawl_user_agent.
    let again = json_ok(&site.data(), &["crawl", "--reparse"]);
    assert_eq!(forum.hits().len(), hits, "nothing fetched");
    assert_eq!(again["posts"], first["posts"], "{again}");
    assert_eq!(again["errors"], 0, "{again}");
}

#[test]
fn a_topic_gone_from_the_forum_has_its_posts_deleted() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    site.crawl(&forum, &["--topic", "14"]);
    forum.script(TOPIC_14, [Reply::new(404, "no such topic")]);
    let summary = site.crawl(&forum, &["--refresh", "--topic", "14"]);
    let topic = parsed(&forum.saved_page(TOPIC_14));
    assert_eq!(
        summary["posts"],
        topic.posts.len(),
        "one deletion per post: {summary}"
    );
    let corpus = site.corpus();
    let seq = corpus.latest_seq().expect("latest sequence");
    for post in &topic.posts {
        assert!(
            corpus
                .post(post.post_id.get(), seq)
                .expect("read")
                .is_none()
        );
    }
    forum.assert_paced(1000);
}

/// Runs a crawl that must succeed: its `--json` summary and its stderr.
fn crawl_with_stderr(data: &Path, args: &[&str]) -> (Value, String) {
    let out = forumdex(data, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    let summary = serde_json::from_slice(&out.stdout).expect("a JSON summary");
    (summary, stderr)
}

/// A forum whose robots.txt is `robots` and whose every other page is an empty HTML page,
/// on 127.0.0.1:0; returns its URL.
fn robots_forum(robots: &'static str) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let _ = reader.read_line(&mut request);
            let body = if request.starts_with("GET /robots.txt ") {
                robots
            } else {
                "<html><body></body></html>"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

#[test]
fn a_topic_answered_404_is_reported_gone_not_as_a_page() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    forum.script(TOPIC_14, [Reply::new(404, "no such topic")]);
    let (summary, stderr) = crawl_with_stderr(&site.data(), &site.args(&forum, &["--topic", "14"]));
    assert_eq!(summary["gone"], 1, "{summary}");
    assert_eq!(summary["pages"].get("topic"), None, "{summary}");
    assert!(stderr.contains("gone from the forum"), "{stderr}");
}

#[test]
fn a_forum_that_disallows_us_is_reported() {
    let site = Site::new();
    let url = robots_forum("User-agent: *\nDisallow: /\n");
    let config = site.config.to_str().expect("utf-8 path");
    let args = [
        "--config",
        config,
        "crawl",
        "--forum-url",
        &url,
        "--topic",
        "14",
    ];
    let (summary, stderr) = crawl_with_stderr(&site.data(), &args);
    assert_eq!(summary["disallowed"], 1, "{summary}");
    assert_eq!(summary["requests"], 1, "robots.txt only: {summary}");
    assert!(stderr.contains("robots.txt disallows"), "{stderr}");
}

#[test]
fn a_crawl_delay_longer_than_the_interval_is_reported() {
    let site = Site::new();
    let url = robots_forum("User-agent: *\nCrawl-delay: 2\n");
    let config = site.config.to_str().expect("utf-8 path");
    let args = [
        "--config",
        config,
        "crawl",
        "--forum-url",
        &url,
        "--topic",
        "14",
    ];
    let (summary, stderr) = crawl_with_stderr(&site.data(), &args);
    assert_eq!(summary["crawl_delay_ms"], 2000, "{summary}");
    assert!(summary["waited_ms"].as_u64() > Some(1000), "{summary}");
    assert!(stderr.contains("Crawl-delay of 2.0 s"), "{stderr}");
}

/// The corpus's observations.
fn observations(data: &Path) -> i64 {
    let conn = rusqlite::Connection::open(data.join("corpus.sqlite")).expect("open the corpus");
    conn.query_row("SELECT count(*) FROM observations", [], |row| row.get(0))
        .expect("count")
}

#[test]
fn refreshing_an_unchanged_page_adds_no_observations() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    site.crawl(&forum, &["--topic", "14"]);
    let before = observations(&site.data());
    for _ in 0..2 {
        let summary = site.crawl(&forum, &["--refresh", "--topic", "14"]);
        assert_eq!(summary["pages"]["topic"], 1, "fetched again: {summary}");
        assert_eq!(summary["new_observations"], 0, "{summary}");
    }
    assert_eq!(observations(&site.data()), before);
}

#[test]
fn a_run_with_a_wrong_forum_url_does_not_leave_the_folder_stuck() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    let config = site.config.to_str().expect("utf-8 path");
    let wrong = [
        "--config",
        config,
        "crawl",
        "--forum-url",
        "http://127.0.0.1:9/forum",
        "--topic",
        "14",
    ];
    let stderr = fails(&site.data(), &wrong);
    assert!(stderr.contains("robots.txt"), "{stderr}");
    let (summary, stderr) = crawl_with_stderr(&site.data(), &site.args(&forum, &["--topic", "14"]));
    assert_eq!(summary["dropped"], 1, "the wrong URL's topic: {summary}");
    assert_eq!(summary["pages"]["topic"], 1, "{summary}");
    assert!(stderr.contains("another forum URL"), "{stderr}");
    assert_served(site.corpus().as_ref(), &parsed(&forum.saved_page(TOPIC_14)));
}

#[test]
fn a_differently_scoped_crawl_does_what_was_asked_first() {
    let Some(forum) = forum() else { return };
    let site = Site::new();
    // Interrupted: robots.txt, board 74's listing, one of its topics; the rest is left.
    let board = site.crawl(&forum, &["--board", "74", "--max-requests", "3"]);
    assert_eq!(board["requests"], 3, "{board}");
    let before = forum.page_hits().len();
    let (topic, stderr) = crawl_with_stderr(
        &site.data(),
        &site.args(&forum, &["--topic", "14", "--max-requests", "1"]),
    );
    assert_eq!(
        forum.page_hits()[before..],
        [format!("/index.php?{TOPIC_14}")],
        "topic 14 first, not the board's leftovers"
    );
    assert!(topic["other_scopes"].as_u64() > Some(0), "{topic}");
    assert!(stderr.contains("another scope"), "{stderr}");
    // The board's crawl resumes its leftovers.
    let before = forum.page_hits().len();
    let resumed = site.crawl(&forum, &["--board", "74", "--max-requests", "1"]);
    assert_eq!(resumed["other_scopes"], 0, "{resumed}");
    let next = &forum.page_hits()[before..];
    assert_eq!(next.len(), 1, "{next:?}");
    assert!(next[0].contains("topic="), "{next:?}");
}

/// Two machines of one deployment on PostgreSQL (two data folders, one database) crawl the
/// forum as one polite client: the crawl state, its lock and the politeness clock are the
/// database's. While one crawls, the other is refused; the next crawl, from the other
/// folder, keeps the interval from the last request and reuses the robots.txt already read.
#[test]
fn two_machines_on_postgres_crawl_as_one_polite_client() {
    let Some(forum) = forum() else { return };
    let url = forumdex_testkit::postgres::fresh_schema_url();
    let (first, second) = (Site::on_postgres(&url), Site::on_postgres(&url));
    let config = first.config.to_str().expect("utf-8 path");
    json_ok(&first.data(), &["--config", config, "db", "migrate"]);

    let summary = first.crawl(&forum, &["--topic", "14"]);
    assert_eq!(summary["requests"], 2, "robots.txt and the page: {summary}");

    let state = forumdex_crawl::state::CrawlState::open_shared(
        forumdex_postgres::PgPool::connect(&url).expect("connect"),
    )
    .expect("the shared crawl state");
    let held = state.lock().expect("the deployment's crawl lock is free");
    let refused = fails(
        &second.data(),
        &second.args(&forum, &["--topic", "14", "--refresh"]),
    );
    assert!(
        refused.contains("another crawl is running on this deployment"),
        "{refused}"
    );
    drop(held);

    let summary = second.crawl(&forum, &["--topic", "14", "--refresh"]);
    assert_eq!(
        summary["requests"], 1,
        "the page only: robots.txt was read by the other machine: {summary}"
    );
    assert_eq!(summary["errors"], 0, "{summary}");
    assert_eq!(
        forum.page_hits(),
        vec![format!("/index.php?{TOPIC_14}"); 2],
        "one fetch of the page per crawl"
    );
    forum.assert_paced(1000);
    assert!(
        !second.data().join("crawl/state.sqlite").exists(),
        "no crawl state of its own"
    );
}
