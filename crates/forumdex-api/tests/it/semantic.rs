//! Hybrid search over HTTP with a small model of fixed vectors: what the response says
//! about the semantic leg, its coverage in `/readyz` and `/metrics`, and a node without a
//! model (off, or a file that cannot be read) serving lexical search.

use forumdex_corpus::Millis;
use forumdex_search::semantic::model;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::harness::TestApp;

/// A model where "payout", "payment" and "выплата" mean one thing and "late" and "delayed"
/// another, written into a folder of its own.
fn model_file() -> (TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.fdxsem");
    let money = vec![1.0, 0.0, 0.0];
    let late = vec![0.0, 1.0, 0.0];
    let bytes = model::encode(
        &["payout", "payment", "выплата", "late", "delayed"],
        &[money.clone(), money.clone(), money, late.clone(), late],
    );
    std::fs::write(&path, bytes).unwrap();
    let path = path.display().to_string();
    (dir, path)
}

fn posts() -> Vec<String> {
    [
        (31, "The bounty payout came late again", "en"),
        (32, "Mining at home with a small rig", "en"),
        (33, "Выплата задерживается уже неделю", "ru"),
    ]
    .iter()
    .map(|(id, text, lang)| {
        json!({"kind": "post", "post_id": id, "topic_id": id, "title": format!("Topic {id}"),
            "is_op": true, "author": {"profile_id": 5, "username": "hunter"},
            "posted_at": "2018-06-01T08:00:00Z", "language": lang, "content_html": text,
            "observed_at": "2024-03-01T12:00:00Z"})
        .to_string()
    })
    .collect()
}

/// An app with `toml`, the posts imported and synced by the server's own sync (which embeds
/// what it wrote before it says so).
async fn app_with(toml: &str) -> TestApp {
    let app = TestApp::builder().empty_corpus().config(toml).start().await;
    let seq = app
        .import_seq(&posts(), Millis::now(&*app.clock))
        .expect("new posts");
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        app.app.search_sync.wait_for(seq),
    )
    .await
    .expect("the background sync reaches the import");
    app
}

async fn search(app: &TestApp, key: &str, query: &str) -> Value {
    let response = app
        .get(&format!("/api/v1/search?q={query}"), Some(key))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-credits-charged"], "1");
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_in_other_words_is_answered_by_the_semantic_leg() {
    let (_model, path) = model_file();
    let app = app_with(&format!("semantic_model = \"{path}\"\n")).await;
    let (_, _, key) = app.funded(10);
    let body = search(&app, &key, "is%20payment%20delayed%20for%20everyone").await;
    assert_eq!(body["hybrid"], true, "{body}");
    let hits = body["hits"].as_array().unwrap();
    let ids: Vec<i64> = hits
        .iter()
        .map(|h| h["post_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [31, 33], "{body}");
    for hit in hits {
        let source = hit["rank_source"].as_str().unwrap();
        assert!(source.ends_with("+semantic"), "{source}");
        source.parse::<forumdex_types::RankSource>().unwrap();
        let version = hit["ranking_model_version"].as_str().unwrap();
        assert!(version.starts_with("fdx-rank-5+fdxsem1-"), "{version}");
    }
    assert_eq!(body["total"], 2);

    // A short query that enough posts hold stays lexical.
    let body = search(&app, &key, "payout").await;
    assert_eq!(body["hybrid"], false, "{body}");
    assert_eq!(body["hits"][0]["ranking_model_version"], "fdx-rank-5");

    let ready: Value = app.get("/readyz", None).await.json().await.unwrap();
    let semantic = &ready["semantic"];
    assert!(
        semantic["model"].as_str().unwrap().starts_with("fdxsem1-"),
        "{ready}"
    );
    assert_eq!(
        (
            &semantic["docs"],
            &semantic["embedded"],
            &semantic["coverage"]
        ),
        (&json!(3), &json!(3), &json!(1.0)),
        "{ready}"
    );
    assert_eq!(
        semantic["changing_to"],
        Value::Null,
        "no model change: {ready}"
    );
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert!(metrics.contains("forumdex_semantic_docs 3\n"), "{metrics}");
    assert!(!metrics.contains("forumdex_semantic_next"), "{metrics}");
    assert!(
        metrics.contains("forumdex_semantic_docs_embedded 3\n"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_model_search_is_lexical_and_says_so() {
    for toml in [
        "semantic_model = \"off\"\n".to_owned(),
        "semantic_model = \"/nonexistent/model.fdxsem\"\n".to_owned(),
    ] {
        let app = app_with(&toml).await;
        let (_, _, key) = app.funded(10);
        let body = search(&app, &key, "is%20payment%20delayed%20for%20everyone").await;
        assert_eq!(body["hybrid"], false, "{toml}: {body}");
        assert_eq!(body["total"], 0, "{toml}: no post holds these words");
        let ready: Value = app.get("/readyz", None).await.json().await.unwrap();
        assert_eq!(ready["status"], "ready");
        assert_eq!(ready["semantic"], Value::Null, "{toml}: {ready}");
        let metrics = app.get("/metrics", None).await.text().await.unwrap();
        assert!(!metrics.contains("forumdex_semantic_docs"), "{toml}");
    }
}
