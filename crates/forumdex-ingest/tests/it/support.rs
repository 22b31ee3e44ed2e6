//! Corpus lines, corpus files and stores for the importer tests, in one place.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use forumdex_corpus::{
    BatchOutcome, ChangePosition, CorpusCounts, CorpusRead, CorpusWrite, ListPage, ListRequest,
    Millis, Observation, PostDoc, ProfileDoc, Scope, StoreError, TopicDoc,
};
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, ImportSummary, Rejection, import_files};
use forumdex_sqlite::SqliteCorpusStore;
use serde_json::{Value, json};
use tempfile::TempDir;

/// The observation time of every fixture line unless a test says otherwise.
pub const OBSERVED_AT: &str = "2024-03-01T12:00:00Z";

/// A fresh store in its own temp folder (kept alive by the returned guard).
pub fn store() -> (SqliteCorpusStore, TempDir) {
    let dir = tempfile::tempdir().expect("a temp folder");
    let store = SqliteCorpusStore::open(dir.path()).expect("the store opens");
    (store, dir)
}

/// A board line.
pub fn board(board_id: i64, name: &str) -> String {
    json!({"kind": "board", "board_id": board_id, "name": name, "observed_at": OBSERVED_AT})
        .to_string()
}

/// A topic line.
pub fn topic(topic_id: i64, board_id: i64, title: &str) -> String {
    json!({
        "kind": "topic", "topic_id": topic_id, "board_id": board_id, "title": title,
        "views": 10, "observed_at": OBSERVED_AT,
    })
    .to_string()
}

/// A profile line.
pub fn profile(profile_id: i64, username: &str) -> String {
    json!({"kind": "profile", "profile_id": profile_id, "username": username, "observed_at": OBSERVED_AT})
        .to_string()
}

/// A post line in English; `extra` fields are merged over the defaults (`null` values
/// included, so a test can blank a field).
pub fn post(post_id: i64, topic_id: i64, extra: Value) -> String {
    let mut record = json!({
        "kind": "post", "post_id": post_id, "topic_id": topic_id,
        "title": format!("Re: topic {topic_id}"),
        "author": {"profile_id": 7, "username": "miner"},
        "posted_at": "2014-05-01T10:00:00Z",
        "content_html": format!("post number {post_id} talks about mining difficulty<br />and fees"),
        "language": "en",
        "observed_at": OBSERVED_AT,
    });
    merge(&mut record, extra);
    record.to_string()
}

/// Any record, `extra` merged over `base`.
pub fn merged(base: Value, extra: Value) -> String {
    let mut record = base;
    merge(&mut record, extra);
    record.to_string()
}

fn merge(into: &mut Value, extra: Value) {
    if let (Value::Object(into), Value::Object(extra)) = (into, extra) {
        for (key, value) in extra {
            into.insert(key, value);
        }
    }
}

/// The lines joined with `\n`, with a final newline.
pub fn jsonl(lines: &[String]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// Writes `bytes` to `dir/name` (creating folders) and returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
    std::fs::write(&path, bytes).expect("write corpus file");
    path
}

/// One gzip member holding `bytes`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// One zstd frame holding `bytes`.
pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 3).expect("zstd in memory")
}

/// Import options for tests: no progress bar.
pub fn options(batch_size: usize) -> ImportOptions {
    ImportOptions {
        batch_size,
        progress: false,
        ..ImportOptions::default()
    }
}

/// Imports `paths` in order; returns the summary and every rejection the callback saw.
pub fn import(
    store: &dyn CorpusWrite,
    paths: &[&Path],
    batch_size: usize,
) -> (ImportSummary, Vec<Rejection>) {
    let sources: Vec<Source> = paths.iter().map(|p| Source::from_arg(p)).collect();
    let mut seen = Vec::new();
    let summary = import_files(store, &sources, &options(batch_size), |r| {
        seen.push(r.clone())
    })
    .expect("the import succeeds");
    (summary, seen)
}

/// The newest sequence.
pub fn latest(store: &dyn CorpusWrite) -> i64 {
    store.snapshot(Millis(0)).expect("snapshot").seq
}

/// Canonical counts at the newest sequence.
pub fn counts(store: &dyn CorpusWrite) -> CorpusCounts {
    store.counts(latest(store)).expect("counts")
}

/// The canonical post at the newest sequence.
pub fn post_doc(store: &dyn CorpusWrite, post_id: i64) -> PostDoc {
    store
        .post(post_id, latest(store))
        .expect("post lookup")
        .unwrap_or_else(|| panic!("post {post_id} is in the corpus"))
}

/// Milliseconds of an RFC 3339 time.
pub fn at(text: &str) -> Millis {
    Millis::parse_rfc3339(text).expect("a valid time")
}

/// A SQLite store that also keeps every batch the importer hands it, and can be told to
/// fail one batch (to see what an import leaves behind when the store stops).
pub struct RecordingStore {
    inner: SqliteCorpusStore,
    batches: Mutex<Vec<Vec<Observation>>>,
    fail_batch: Option<usize>,
}

impl RecordingStore {
    /// Records into `inner`; batch number `fail_batch` (0-based), if any, fails unwritten.
    pub fn new(inner: SqliteCorpusStore, fail_batch: Option<usize>) -> Self {
        Self {
            inner,
            batches: Mutex::new(Vec::new()),
            fail_batch,
        }
    }

    /// The batches handed to the store so far (the failed one included).
    pub fn batches(&self) -> Vec<Vec<Observation>> {
        self.batches.lock().expect("batches lock").clone()
    }

    /// The wrapped store.
    pub fn inner(&self) -> &SqliteCorpusStore {
        &self.inner
    }
}

impl CorpusRead for RecordingStore {
    fn latest_seq(&self) -> Result<i64, StoreError> {
        self.inner.latest_seq()
    }

    fn sequence_created_at(&self, seq: i64) -> Result<Option<Millis>, StoreError> {
        self.inner.sequence_created_at(seq)
    }

    fn post(&self, post_id: i64, seq: i64) -> Result<Option<PostDoc>, StoreError> {
        self.inner.post(post_id, seq)
    }

    fn posts(
        &self,
        post_ids: &[i64],
        seq: i64,
    ) -> Result<std::collections::HashMap<i64, PostDoc>, StoreError> {
        self.inner.posts(post_ids, seq)
    }

    fn live_posts(
        &self,
        post_ids: &[i64],
        seq: i64,
    ) -> Result<std::collections::HashMap<i64, PostDoc>, StoreError> {
        self.inner.live_posts(post_ids, seq)
    }

    fn topic(&self, topic_id: i64, seq: i64) -> Result<Option<TopicDoc>, StoreError> {
        self.inner.topic(topic_id, seq)
    }

    fn profile(&self, profile_id: i64, seq: i64) -> Result<Option<ProfileDoc>, StoreError> {
        self.inner.profile(profile_id, seq)
    }

    fn scope_exists(&self, scope: Scope, seq: i64) -> Result<bool, StoreError> {
        self.inner.scope_exists(scope, seq)
    }

    fn list_posts(&self, request: &ListRequest, seq: i64) -> Result<ListPage, StoreError> {
        self.inner.list_posts(request, seq)
    }

    fn posts_changed(
        &self,
        since: i64,
        upto: i64,
        after: ChangePosition,
        limit: usize,
    ) -> Result<Vec<(ChangePosition, forumdex_corpus::PostChange)>, StoreError> {
        self.inner.posts_changed(since, upto, after, limit)
    }

    fn takedowns_in_force(&self) -> Result<forumdex_corpus::TakedownSet, StoreError> {
        self.inner.takedowns_in_force()
    }

    fn takedowns(&self) -> Result<Vec<forumdex_corpus::Takedown>, StoreError> {
        self.inner.takedowns()
    }

    fn cached_images(
        &self,
        source_urls: &[&str],
        seq: i64,
    ) -> Result<std::collections::HashMap<String, forumdex_corpus::CachedImage>, StoreError> {
        self.inner.cached_images(source_urls, seq)
    }

    fn counts(&self, seq: i64) -> Result<CorpusCounts, StoreError> {
        self.inner.counts(seq)
    }
}

impl CorpusWrite for RecordingStore {
    fn import_batch(
        &self,
        observations: &[Observation],
        now: Millis,
    ) -> Result<BatchOutcome, StoreError> {
        let number = {
            let mut batches = self.batches.lock().expect("batches lock");
            batches.push(observations.to_vec());
            batches.len() - 1
        };
        if self.fail_batch == Some(number) {
            return Err(StoreError::Unavailable("disk full (test)".to_owned()));
        }
        self.inner.import_batch(observations, now)
    }

    fn pending_images(
        &self,
        after_vid: i64,
        limit: usize,
    ) -> Result<Vec<forumdex_corpus::PendingImage>, StoreError> {
        self.inner.pending_images(after_vid, limit)
    }

    fn record_image_objects(
        &self,
        objects: &[(Vec<u8>, forumdex_corpus::ImageObject)],
    ) -> Result<(), StoreError> {
        self.inner.record_image_objects(objects)
    }

    fn add_takedown(
        &self,
        target: forumdex_corpus::TakedownTarget,
        reason: &str,
        now: Millis,
    ) -> Result<forumdex_corpus::Takedown, forumdex_corpus::TakedownError> {
        self.inner.add_takedown(target, reason, now)
    }

    fn lift_takedown(
        &self,
        takedown_id: i64,
        reason: &str,
        now: Millis,
    ) -> Result<forumdex_corpus::Takedown, forumdex_corpus::TakedownError> {
        self.inner.lift_takedown(takedown_id, reason, now)
    }
}
