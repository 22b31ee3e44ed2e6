//! `GET /api/v1/search`: every 400 rule, and a 200 carrying the contract's required fields.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::TestApp;

/// An in-process app over a small corpus about antminers, indexed, and a key.
struct Fixture {
    app: TestApp,
    key: String,
}

async fn fixture() -> Fixture {
    let app = TestApp::builder().empty_corpus().start().await;
    let (_, _, key) = app.funded(100);
    let lines = [
        json!({"kind": "board", "board_id": 1, "name": "Mining", "observed_at": "2024-03-01T12:00:00Z"}),
        json!({
            "kind": "post", "post_id": 11, "topic_id": 3, "board_id": 1, "is_op": true,
            "title": "Overclocking the antminer", "author": {"profile_id": 5, "username": "rigger"},
            "posted_at": "2015-06-01T08:00:00Z", "language": "en",
            "content_html": "My antminer runs hot when overclocked. Which firmware do you use?",
            "observed_at": "2024-03-01T12:00:00Z",
        }),
        json!({
            "kind": "post", "post_id": 12, "topic_id": 3, "title": "Re: Overclocking the antminer",
            "author": {"profile_id": 6, "username": "helper"}, "language": "en",
            "content_html": "Undated reply: flash the stock antminer firmware and lower the frequency.",
            "observed_at": "2024-03-01T12:00:00Z",
        }),
    ];
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    // The test imports as `forumdex import` would: through its own writer (the app holds
    // only the corpus's read side). These tests are about search content, not the
    // background sync: the indexes are brought up to the corpus here.
    app.import(&lines);
    crate::harness::off_runtime(|| app.app.search.sync(app.app.corpus.as_ref())).unwrap();
    Fixture { app, key }
}

async fn get(fixture: &Fixture, query: &str) -> (StatusCode, Value) {
    let response = fixture
        .app
        .get(&format!("/api/v1/search{query}"), Some(&fixture.key))
        .await;
    let status = response.status();
    let bytes = response.bytes().await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn every_invalid_parameter_is_a_400_without_charge() {
    let fixture = fixture().await;
    let long = "a".repeat(513);
    let cases = [
        "".to_owned(),
        "?lang=en".to_owned(),
        "?q=".to_owned(),
        format!("?q={long}"),
        "?q=x&q=y".to_owned(),
        "?q=x&size=5".to_owned(),
        "?q=x&lang=EN".to_owned(),
        "?q=x&lang=eng".to_owned(),
        "?q=x&lang=pt-br".to_owned(),
        "?q=x&lang=".to_owned(),
        "?q=x&freshness=0".to_owned(),
        "?q=x&freshness=true".to_owned(),
        "?q=x&include_low_quality=yes".to_owned(),
        "?q=x&include_low_quality=".to_owned(),
    ];
    for case in &cases {
        let (status, body) = get(&fixture, case).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{case}: {body}");
        assert_eq!(body["creditsCharged"], 0, "{case}");
        assert!(body["error"].is_string(), "{case}");
    }
    // 512 characters (multi-byte ones too) are fine.
    let (status, _) = get(&fixture, &format!("?q={}", "é".repeat(512))).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_search_returns_the_contract_fields() {
    let fixture = fixture().await;
    let (status, body) = get(
        &fixture,
        "?q=antminer%20firmware&lang=en&include_low_quality=1",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for field in ["query", "lang", "total", "hits"] {
        assert!(!body[field].is_null(), "{field} missing: {body}");
    }
    assert_eq!(body["query"], "antminer firmware");
    assert_eq!(body["lang"], "en");
    assert_eq!(body["board_scope"], "all", "search has no board filter");
    assert_eq!(body["total"], 2);
    let hits = body["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    for hit in hits {
        for field in [
            "post_id", "topic_id", "title", "content", "author", "date", "lang", "score",
        ] {
            assert!(!hit[field].is_null(), "{field} missing: {hit}");
        }
        assert!(hit["score"].is_number());
        assert!(hit["date"].as_str().unwrap().ends_with('Z'));
        assert_eq!(hit["ranking_model_version"], "fdx-rank-5");
    }
    let op = hits.iter().find(|h| h["post_id"] == 11).unwrap();
    assert_eq!(op["date"], "2015-06-01T08:00:00.000Z");
    assert_eq!(op["board_name"], "Mining");
    assert_eq!(op["author_uid"], 5);
    assert!(
        op["highlight"]["content"][0]
            .as_str()
            .unwrap()
            .contains("<mark>antminer</mark>")
    );
    let undated = hits.iter().find(|h| h["post_id"] == 12).unwrap();
    assert_eq!(undated["date_source"], "indexed_at");
}

#[tokio::test]
async fn lang_without_an_index_and_region_suffixes_answer_200() {
    let fixture = fixture().await;
    let (status, body) = get(&fixture, "?q=antminer&lang=ja").await;
    assert_eq!((status, body["total"].as_u64()), (StatusCode::OK, Some(0)));
    let (status, body) = get(&fixture, "?q=antminer&lang=en-GB&freshness=1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (body["lang"].as_str(), body["index"].as_str()),
        (Some("en-GB"), Some("en"))
    );
    assert_eq!(body["freshness"], true);
}

#[tokio::test]
async fn rank_source_names_the_factors_that_applied() {
    let fixture = fixture().await;
    for (query, rank_source) in [
        ("?q=antminer", "exactness+bm25+quality"),
        (
            "?q=antminer&freshness=1",
            "exactness+bm25+quality+freshness",
        ),
        (
            "?q=which%20antminer%20firmware",
            "words+proximity+exactness+bm25+quality+answer",
        ),
        (
            "?q=which%20antminer%20firmware&freshness=1",
            "words+proximity+exactness+bm25+quality+freshness+answer",
        ),
    ] {
        let (status, body) = get(&fixture, query).await;
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
        let hits = body["hits"].as_array().expect("hits");
        assert!(!hits.is_empty(), "{query}: {body}");
        for hit in hits {
            assert_eq!(hit["rank_source"], rank_source, "{query}");
        }
    }
}

/// A post imported while the server runs becomes searchable through the server's background
/// sync, without a restart: the test waits for the sync task to report the import's
/// sequence (the bound only turns a sync that never comes into a failure, not a slow one).
#[tokio::test(flavor = "multi_thread")]
async fn a_post_imported_while_serving_becomes_searchable() {
    let server = TestApp::start().await;
    let (_, _, key) = server.funded(1_000);
    let path = "/api/v1/search?q=zanzibarite";
    let response = server.get(path, Some(&key)).await;
    assert_eq!(response.status(), 200);
    let before: Value = response.json().await.unwrap();
    assert_eq!(before["total"], 0);

    let line = json!({"kind": "post", "post_id": 777, "topic_id": 5, "title": "Re: Welcome",
        "author": {"profile_id": 9, "username": "late"}, "posted_at": "2024-01-01T00:00:00Z",
        "content_html": "A zanzibarite wallet arrived after the server started.", "language": "en",
        "observed_at": "2024-03-02T00:00:00Z"})
    .to_string();
    let seq = server
        .import_seq(&[line], forumdex_corpus::Millis::now(&*server.clock))
        .expect("the post is new");

    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        server.app.search_sync.wait_for(seq),
    )
    .await
    .expect("the background sync reaches the import");
    let found: Value = server.get(path, Some(&key)).await.json().await.unwrap();
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(found["hits"][0]["post_id"], 777);
}
