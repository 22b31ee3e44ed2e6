//! `forumdex import` makes posts searchable; `forumdex reindex --json` rebuilds and reports;
//! `forumdex demo` serves searches from its first request.

use forumdex_search::SearchIndexes;
use serde_json::json;

use crate::helpers::json_ok;
use crate::serve::{ServeProcess, get_response};

/// Writes `forumdex generate`'s corpus of `posts` posts (from `seed`) into `dir`.
fn generated_corpus(dir: &std::path::Path, posts: u32, seed: u32) -> std::path::PathBuf {
    let corpus = dir.join("corpus.jsonl");
    let (posts, seed) = (posts.to_string(), seed.to_string());
    json_ok(
        dir,
        &[
            "generate",
            "--posts",
            &posts,
            "--seed",
            &seed,
            "--out",
            corpus.to_str().unwrap(),
        ],
    );
    corpus
}

#[test]
fn import_indexes_and_reindex_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"kind": "post", "post_id": 1, "topic_id": 1, "title": "Cold storage guide", "author": {"profile_id": 3, "username": "satoshi"}, "posted_at": "2012-01-01T00:00:00Z", "language": "en", "content_html": "How to keep coins in cold storage with a paper wallet.", "observed_at": "2024-03-01T12:00:00Z"}),
        json!({"kind": "post", "post_id": 2, "topic_id": 1, "title": "Re: Cold storage guide", "author": {"profile_id": 4, "username": "hal"}, "posted_at": "2012-01-02T00:00:00Z", "language": "ru", "content_html": "Холодное хранение биткоинов на бумажном кошельке.", "observed_at": "2024-03-01T12:00:00Z"}),
    ];
    let corpus: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = dir.path().join("corpus.jsonl");
    std::fs::write(&file, corpus).unwrap();
    let data = dir.path().join("data");
    json_ok(&data, &["import", file.to_str().unwrap()]);
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("search/state.json")).unwrap())
            .unwrap();
    assert_eq!(state["synced_seq"], 1, "the import synced the indexes");
    let report = json_ok(&data, &["reindex"]);
    assert_eq!(report["posts_indexed"], 2);
    assert_eq!(report["synced_seq"], 1);
    assert_eq!(report["indexes"], json!({"en": 1, "ru": 1}));
}

/// Many small batches: the import indexes them while it runs (whenever enough batches
/// have piled up) and once more at the end. The result must be exactly what a rebuild
/// from the corpus gives: every post in one index, none twice, the state at the last
/// sequence.
#[test]
fn indexing_beside_the_import_ends_where_a_rebuild_ends() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = generated_corpus(dir.path(), 6000, 5);
    let data = dir.path().join("data");
    let summary = json_ok(
        &data,
        &["import", "--batch-size", "100", corpus.to_str().unwrap()],
    );
    let sequences = summary["sequences"].as_array().unwrap().len();
    assert!(
        sequences > 40,
        "{sequences} batches: too few to index beside the import"
    );
    let indexes = SearchIndexes::open(&data).unwrap();
    assert_eq!(indexes.synced_seq().unwrap(), sequences as i64);
    let while_importing = indexes.doc_counts();
    drop(indexes);
    let rebuilt = json_ok(&data, &["reindex"]);
    // Post records include later observations of the same posts: each post is one document.
    let posts = rebuilt["posts_indexed"].as_u64().unwrap();
    assert!(posts > 0 && posts <= summary["posts"].as_u64().unwrap());
    assert_eq!(
        serde_json::to_value(&while_importing).unwrap(),
        rebuilt["indexes"],
        "documents per index, indexed during the import and rebuilt"
    );
    assert_eq!(while_importing.values().sum::<u64>(), posts);
}

#[test]
fn the_demo_finds_posts_from_its_first_search() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path();
    let demo = ServeProcess::start_command(data, "demo", &[]);
    let key = json_ok(data, &["keys", "create", "--account", "1"]);
    let key = key["key"].as_str().expect("a key");
    let response =
        get_response(demo.addr, "/api/v1/search?q=hardware+wallet", key).expect("an answer");
    assert_eq!(response.status, 200, "{}", response.body);
    let body: serde_json::Value = serde_json::from_str(&response.body).expect("JSON");
    assert!(body["total"].as_u64().expect("a total") > 0, "{body}");
}

/// `forumdex embed` gives every index segment its post vectors with the bundled model, to
/// the end; a second run finds them made; with `semantic_model = "off"` it refuses.
#[test]
fn embed_makes_the_vectors_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = crate::helpers::imported_folder(dir.path(), 300, 3);
    let first = json_ok(&data, &["embed"]);
    assert!(
        first["model"].as_str().unwrap().starts_with("fdxsem1-"),
        "{first}"
    );
    assert!(first["segments_embedded"].as_u64().unwrap() >= 1, "{first}");
    assert!(first["docs"].as_u64().unwrap() > 0, "{first}");
    assert_eq!(first["embedded"], first["docs"], "{first}");
    let second = json_ok(&data, &["embed"]);
    assert_eq!(second["docs_embedded"], 0, "{second}");
    assert_eq!(
        second["segments_loaded"], first["segments_embedded"],
        "{second}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(&data)
        .arg("embed")
        .env_remove("RUST_LOG")
        .env_remove("FORUMDEX_DATA")
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    let segments = first["segments_embedded"].as_u64().unwrap();
    assert!(
        said.starts_with(&format!(
            "embedded 0 posts in 0 segments (0 of them read from the vector store; \
             {segments} segments already had vectors)"
        )),
        "{said}"
    );

    // Another model: the earlier model's vectors are read (they serve until the new ones
    // are made), the new model's made, and the new model serves at the end.
    let model = dir.path().join("other.fdxsem");
    std::fs::write(
        &model,
        forumdex_search::semantic::model::encode(
            &["wallet", "bitcoin"],
            &[vec![1.0, 0.0], vec![0.0, 1.0]],
        ),
    )
    .unwrap();
    let config = dir.path().join("other.toml");
    std::fs::write(
        &config,
        format!("semantic_model = \"{}\"\n", model.display()),
    )
    .unwrap();
    let changed = json_ok(&data, &["--config", config.to_str().unwrap(), "embed"]);
    assert_ne!(changed["model"], first["model"], "{changed}");
    assert_eq!(changed["segments_loaded"], segments, "{changed}");
    assert_eq!(
        changed["docs_embedded"], first["docs_embedded"],
        "{changed}"
    );
    assert_eq!(changed["embedded"], changed["docs"], "{changed}");
    assert_eq!(
        changed["vectors_pruned"],
        serde_json::Value::Null,
        "{changed}"
    );
    // The earlier model retired: its vectors leave the store; the new model's stay.
    let pruned = json_ok(
        &data,
        &["--config", config.to_str().unwrap(), "embed", "--prune"],
    );
    let earlier_vectors =
        first["docs_embedded"].as_u64().unwrap() - first["docs_from_store"].as_u64().unwrap();
    assert_eq!(pruned["vectors_pruned"], earlier_vectors, "{pruned}");
    assert_eq!(pruned["docs_embedded"], 0, "{pruned}");
    let again = json_ok(
        &data,
        &["--config", config.to_str().unwrap(), "embed", "--prune"],
    );
    assert_eq!(again["vectors_pruned"], 0, "{again}");

    let config = dir.path().join("off.toml");
    std::fs::write(&config, "semantic_model = \"off\"\n").unwrap();
    let err = crate::helpers::fails(&data, &["--config", config.to_str().unwrap(), "embed"]);
    assert!(err.contains("semantic_model is off"), "{err}");
}

/// `memory_limit` sizes what an import writes with (the corpus writer's page cache, each
/// index writer's buffer): at the smallest limit an import still indexes every post, and a
/// limit below it is refused before anything is written.
#[test]
fn an_import_at_the_smallest_memory_limit_indexes_every_post() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = generated_corpus(dir.path(), 2000, 8);
    let import_within = |data: &std::path::Path, limit: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_forumdex"))
            .arg("--data")
            .arg(data)
            .args(["--json", "import", corpus.to_str().unwrap()])
            .env_remove("RUST_LOG")
            .env_remove("FORUMDEX_DATA")
            .env("FORUMDEX_MEMORY_LIMIT", limit)
            .output()
            .expect("run forumdex")
    };

    let refused = dir.path().join("refused");
    let out = import_within(&refused, "128MiB");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("memory_limit must be at least 256MiB"),
        "{stderr}"
    );
    assert!(
        !refused.join("corpus.sqlite").exists(),
        "nothing is written"
    );

    let data = dir.path().join("small");
    let out = import_within(&data, "256MiB");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let indexes = SearchIndexes::open(&data).unwrap();
    let indexed: u64 = indexes.doc_counts().values().sum();
    drop(indexes);
    let rebuilt = json_ok(&data, &["reindex"]);
    assert!(indexed > 0);
    assert_eq!(indexed, rebuilt["posts_indexed"].as_u64().unwrap());
}
