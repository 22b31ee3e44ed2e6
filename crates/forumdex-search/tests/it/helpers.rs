//! Fixtures: corpus lines, a store and its indexes in a temp folder, search shortcuts.

use forumdex_clock::SystemClock;
use forumdex_corpus::{CorpusWrite, Millis, Observation};
use forumdex_search::{LangCode, SearchIndexes, SearchRequest, SearchResults, search};
use forumdex_sqlite::SqliteCorpusStore;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A corpus and its search indexes in one temp folder.
pub struct World {
    pub store: SqliteCorpusStore,
    pub indexes: SearchIndexes,
    pub dir: TempDir,
}

impl World {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp folder");
        let store = SqliteCorpusStore::open(dir.path()).expect("the store opens");
        let indexes = SearchIndexes::open(dir.path()).expect("the indexes open");
        Self {
            store,
            indexes,
            dir,
        }
    }

    /// Imports `lines` as one batch.
    pub fn import(&self, lines: &[String]) {
        let observations: Vec<Observation> = lines
            .iter()
            .map(|l| Observation::parse_line(l.as_bytes()).expect("a valid fixture line"))
            .collect();
        self.store
            .import_batch(&observations, Millis::now(&SystemClock))
            .expect("the batch imports");
    }

    /// Imports `lines` and syncs the indexes.
    pub fn import_and_sync(&self, lines: &[String]) {
        self.import(lines);
        self.sync();
    }

    pub fn sync(&self) {
        self.indexes.sync(&self.store).expect("the sync succeeds");
    }

    pub fn search(&self, q: &str) -> SearchResults {
        self.run(SearchRequest::new(q))
    }

    pub fn search_lang(&self, q: &str, lang: &str) -> SearchResults {
        let mut request = SearchRequest::new(q);
        request.lang = Some(LangCode::parse(lang).expect("a valid lang"));
        self.run(request)
    }

    pub fn run(&self, request: SearchRequest) -> SearchResults {
        search(&self.indexes, &request).expect("the search succeeds")
    }
}

/// The post IDs of the hits, best first.
pub fn ids(results: &SearchResults) -> Vec<i64> {
    results.hits.iter().map(|h| h.post_id).collect()
}

/// A post line; `extra` fields override the defaults (English, 2014, author 7).
pub fn post(post_id: i64, topic_id: i64, content: &str, extra: Value) -> String {
    let mut record = json!({
        "kind": "post", "post_id": post_id, "topic_id": topic_id,
        "title": format!("Re: topic {topic_id}"),
        "author": {"profile_id": 7, "username": "miner"},
        "posted_at": "2014-05-01T10:00:00Z",
        "content_html": content,
        "language": "en",
        "observed_at": "2024-03-01T12:00:00Z",
    });
    if let (Value::Object(into), Value::Object(extra)) = (&mut record, extra) {
        for (key, value) in extra {
            into.insert(key, value);
        }
    }
    record.to_string()
}

/// Filler replies that make `word` common in the corpus (for spelling dictionaries).
pub fn filler(first_id: i64, topic_id: i64, count: i64, text: &str) -> Vec<String> {
    (0..count)
        .map(|i| {
            post(
                first_id + i,
                topic_id,
                &format!("{text} (reply {i} with some more words to read)"),
                json!({"author": {"profile_id": 100 + i, "username": format!("user{i}")}}),
            )
        })
        .collect()
}
