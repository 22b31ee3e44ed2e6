//! The SQLite store: the conformance suite of forumdex-testkit, plus its query plans, its
//! migrations and its topic statistics against aggregation.

use forumdex_clock::SystemClock;
use forumdex_corpus::*;
use forumdex_sqlite::SqliteCorpusStore;
use forumdex_testkit::corpus::fixtures::listing_corpus;

forumdex_testkit::corpus_store_conformance!(|dir| {
    SqliteCorpusStore::open(dir).expect("open corpus store")
});

#[test]
fn a_page_is_an_index_range_scan_at_any_depth() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    listing_corpus(&store);
    for (scope, index) in [
        (Scope::Topic(10), "post_by_topic"),
        (Scope::Profile(2), "post_by_author"),
    ] {
        for order in [Order::Asc, Order::Desc] {
            let request = ListRequest {
                scope,
                order,
                filters: ListFilters {
                    date_from: Some(Millis(0)),
                    board_id: Some(7),
                    ..Default::default()
                },
                limit: 100,
                after: Some(Position {
                    sort_at: 5,
                    post_id: 5,
                }),
                scan_budget: 1_000,
            };
            let plan = store.explain_list(&request).unwrap().join("\n");
            let main_step = plan.lines().next().unwrap();
            assert!(
                main_step.contains(&format!("USING INDEX {index}")),
                "{plan}"
            );
            assert!(
                main_step.contains("sort_at") && main_step.contains(">") || main_step.contains("<"),
                "{plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "no sort step: {plan}");
            assert!(!plan.contains("SCAN p"), "no full scan: {plan}");
        }
    }
}

/// A corpus written before deletions existed (no `post_versions.deleted`) opens, keeps its
/// posts and takes deletions.
#[test]
fn a_database_from_before_deletions_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SqliteCorpusStore::FILE_NAME);
    let victim = {
        let store = SqliteCorpusStore::open(dir.path()).unwrap();
        listing_corpus(&store)[0].clone()
    };
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("ALTER TABLE post_versions DROP COLUMN deleted")
        .unwrap();
    drop(conn);
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let seq = store.snapshot(Millis(0)).unwrap().seq;
    let before = store.counts(seq).unwrap().posts;
    assert!(before > 0);
    let line = serde_json::json!({
        "kind": "post", "post_id": victim.post_id, "topic_id": victim.topic_id, "title": "",
        "content_html": "", "author": {"profile_id": null, "username": ""}, "deleted": true,
        "observed_at": "2030-01-01T00:00:00Z",
    });
    let observation = Observation::parse_line(line.to_string().as_bytes()).unwrap();
    let seq = store
        .import_batch(&[observation], Millis(1))
        .unwrap()
        .seq
        .unwrap();
    assert!(store.post(victim.post_id, seq).unwrap().is_none());
    assert_eq!(store.counts(seq).unwrap().posts, before - 1);
}

/// Corpora of earlier releases, whose observations are keyed by line hash alone or by entity
/// without a post's topic, get the topic-first key when opened: every observation is kept
/// with the topic the writer gives it now (a line that lost to a newer version included),
/// and the lines seen before are still known.
#[test]
fn observations_of_earlier_layouts_are_rekeyed_by_topic() {
    type Row = (Vec<u8>, String, i64, String, i64, i64);
    let observations = |conn: &rusqlite::Connection| -> Vec<Row> {
        conn.prepare(
            "SELECT sha256, kind, topic_id, entity, observed_at, seq FROM observations
             ORDER BY sha256",
        )
        .unwrap()
        .query_map([], |r| Row::try_from(r))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    };
    let board = forumdex_testkit::corpus::fixtures::line(serde_json::json!({
        "kind": "board", "board_id": 3, "name": "Mining", "observed_at": "2024-01-01T00:00:00Z",
    }));
    let older_edit = forumdex_testkit::corpus::fixtures::post(
        7,
        1,
        Some(1),
        Some("2020-01-01T00:00:00Z"),
        serde_json::json!({"observed_at": "2023-01-01T00:00:00Z", "content_html": "older"}),
    );
    let lines: Vec<String> = (1..=30)
        .map(|id| post_line(id, 1))
        .chain((31..=50).map(|id| post_line(id, 2)))
        .chain([board, older_edit])
        .collect();
    for old_key in ["sha256", "kind, entity, sha256"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SqliteCorpusStore::FILE_NAME);
        {
            let store = SqliteCorpusStore::open(dir.path()).unwrap();
            import_lines(&store, &lines[..40]);
            import_lines(&store, &lines[40..]);
        }
        let conn = rusqlite::Connection::open(&path).unwrap();
        let before = observations(&conn);
        assert_eq!(before.len(), 52);
        let topics: std::collections::BTreeSet<i64> = before.iter().map(|row| row.2).collect();
        assert_eq!(topics, [0, 1, 2].into());
        conn.execute_batch(&format!(
            "CREATE TABLE old_observations (
                 sha256 BLOB NOT NULL, kind TEXT NOT NULL, entity TEXT NOT NULL,
                 observed_at INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY ({old_key})
             ) WITHOUT ROWID;
             INSERT INTO old_observations
                 SELECT sha256, kind, entity, observed_at, seq FROM observations;
             DROP TABLE observations;
             ALTER TABLE old_observations RENAME TO observations;"
        ))
        .unwrap();
        drop(conn);
        let store = SqliteCorpusStore::open(dir.path()).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let key: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('observations') WHERE pk > 0 ORDER BY pk")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            key,
            ["kind", "topic_id", "entity", "sha256"],
            "from ({old_key})"
        );
        assert_eq!(observations(&conn), before, "from ({old_key})");
        // The same lines again are known; one more line is new.
        let again: Vec<Observation> = lines
            .iter()
            .chain([&post_line(51, 2)])
            .map(|line| Observation::parse_line(line.as_bytes()).unwrap())
            .collect();
        let outcome = store.import_batch(&again, Millis(1)).unwrap();
        assert_eq!(
            (outcome.known_observations, outcome.new_observations),
            (52, 1),
            "from ({old_key})"
        );
    }
}

/// A corpus of earlier releases, with the unique index `post_current`, loses it once when
/// opened and keeps answering and taking new versions.
#[test]
fn the_index_of_current_posts_of_earlier_releases_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SqliteCorpusStore::FILE_NAME);
    let lines: Vec<String> = (1..=20).map(|id| post_line(id, 1)).collect();
    {
        let store = SqliteCorpusStore::open(dir.path()).unwrap();
        import_lines(&store, &lines);
    }
    let indexes = |conn: &rusqlite::Connection| -> Vec<String> {
        conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'post_versions'
             ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    };
    let conn = rusqlite::Connection::open(&path).unwrap();
    let current = indexes(&conn);
    assert!(!current.contains(&"post_current".to_owned()), "{current:?}");
    conn.execute_batch(
        "CREATE UNIQUE INDEX post_current ON post_versions(post_id) WHERE valid_to IS NULL",
    )
    .unwrap();
    drop(conn);
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(indexes(&conn), current);
    let edited = forumdex_testkit::corpus::fixtures::post(
        7,
        1,
        Some(1),
        Some("2020-01-01T00:00:00Z"),
        serde_json::json!({"observed_at": "2025-01-01T00:00:00Z", "content_html": "edited"}),
    );
    let seq = import_lines(&store, &[edited]);
    assert_eq!(store.post(7, seq).unwrap().unwrap().content_html, "edited");
    assert_eq!(store.counts(seq).unwrap().posts, 20);
}

/// Without a unique index of current post versions, the writer itself refuses a post with
/// two: the batch fails and nothing of it is committed.
#[test]
fn a_post_with_two_current_versions_fails_its_batch() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let seq = import_lines(&store, &[post_line(1, 1), post_line(2, 1)]);
    let conn = rusqlite::Connection::open(dir.path().join(SqliteCorpusStore::FILE_NAME)).unwrap();
    conn.execute_batch(
        "INSERT INTO post_versions
             SELECT NULL, valid_from, valid_to, observed_at, sha256, indexed_at, post_id, topic_id,
                    board_id, post_number, is_op, title, author_id, author_name, posted_at,
                    sort_at, content_html, language, merit_total, merit_distinct, merit_tx,
                    merit_senders, deleted
             FROM post_versions WHERE post_id = 2",
    )
    .unwrap();
    drop(conn);
    let newer = forumdex_testkit::corpus::fixtures::post(
        2,
        1,
        Some(1),
        Some("2020-01-01T00:00:00Z"),
        serde_json::json!({"observed_at": "2025-01-01T00:00:00Z"}),
    );
    let observation = Observation::parse_line(newer.as_bytes()).unwrap();
    let err = store.import_batch(&[observation], Millis(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "corpus store unavailable: post 2 has more than one current version in post_versions"
    );
    assert_eq!(store.snapshot(Millis(0)).unwrap().seq, seq);
}

/// A post line of topic `topic`.
fn post_line(id: i64, topic: i64) -> String {
    forumdex_testkit::corpus::fixtures::post(
        id,
        topic,
        Some(1),
        Some("2020-01-01T00:00:00Z"),
        serde_json::json!({"observed_at": "2024-01-01T00:00:00Z"}),
    )
}

/// xorshift64: deterministic randomness for the workloads below.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// The topics the random batches write, two that cases write alone, and one never named.
const TOPICS: [i64; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 99];

/// One batch of random lines over 120 posts in topics 1-6: new posts, edits and moves
/// (observations older than the canonical one included), deletions, every kind of merit,
/// `is_op` absent, true or false, posts with and without boards or dates, topic records
/// with and without boards.
fn random_batch(rng: &mut Rng) -> Vec<String> {
    use forumdex_testkit::corpus::fixtures::{deletion, line, post};
    let mut lines = Vec::new();
    for _ in 0..40 {
        let id = 1 + rng.below(120) as i64;
        let topic = 1 + rng.below(6) as i64;
        let observed_at = Millis(1_700_000_000_000 + rng.below(1_000_000) as i64).to_rfc3339();
        if rng.below(8) == 0 {
            lines.push(deletion(id, topic, &observed_at));
            continue;
        }
        let merit = match rng.below(4) {
            0 => serde_json::json!(null),
            1 => serde_json::json!({"total": 3, "distinct_senders": 2, "transactions": 2}),
            _ => {
                let senders: Vec<_> = (0..rng.below(3))
                    .map(|_| serde_json::json!({"profile_id": 1 + rng.below(5), "amount": 1 + rng.below(3)}))
                    .collect();
                serde_json::json!({ "senders": senders })
            }
        };
        let posted_at = (rng.below(6) != 0)
            .then(|| Millis(1_600_000_000_000 + rng.below(1_000) as i64 * 3_600_000).to_rfc3339());
        lines.push(post(
            id,
            topic,
            rng.pick(&[None, Some(1), Some(2), Some(3)]),
            posted_at.as_deref(),
            serde_json::json!({
                "merit": merit,
                "board_id": rng.pick(&[None, None, Some(7), Some(8)]),
                "is_op": rng.pick(&[None, None, None, None, Some(true), Some(false)]),
                "language": rng.pick(&["en", "de"]),
                "observed_at": observed_at,
            }),
        ));
    }
    if rng.below(3) == 0 {
        let topic = 1 + rng.below(6) as i64;
        lines.push(line(serde_json::json!({
            "kind": "topic", "topic_id": topic, "title": format!("topic {topic}"),
            "board_id": rng.pick(&[None, Some(7)]),
            "observed_at": Millis(1_700_000_000_000 + rng.below(1_000_000) as i64).to_rfc3339(),
        })));
    }
    lines
}

fn import_lines(store: &SqliteCorpusStore, lines: &[String]) -> i64 {
    forumdex_testkit::corpus::fixtures::import(store, lines, 1_700_000_000_000).unwrap()
}

/// A copy of the store's corpus without its topic statistics: every topic read aggregates.
fn aggregating_copy(store: &SqliteCorpusStore) -> (tempfile::TempDir, SqliteCorpusStore) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(SqliteCorpusStore::FILE_NAME);
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    conn.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    conn.execute_batch(
        "DELETE FROM topic_stat_versions;
         UPDATE topic_stats_since SET seq = 9223372036854775807;",
    )
    .unwrap();
    drop(conn);
    let aggregating = SqliteCorpusStore::open(dir.path()).unwrap();
    (dir, aggregating)
}

/// Every topic document at every sequence, in `TOPICS` order.
fn every_topic(store: &SqliteCorpusStore, last: i64) -> Vec<Option<TopicDoc>> {
    (1..=last)
        .flat_map(|seq| TOPICS.map(|topic| store.topic(topic, seq).unwrap()))
        .collect()
}

/// Topic reads from the kept statistics give the very documents aggregation gives, for every
/// topic at every sequence of random imports, with random takedowns in force and lifted.
#[test]
fn kept_topic_statistics_answer_like_aggregation_at_every_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut in_force = Vec::new();
    let mut last = 0;
    for batch in 0..30 {
        last = import_lines(&store, &random_batch(&mut rng));
        if batch % 3 == 0 {
            let target = match rng.below(3) {
                0 => TakedownTarget::Post(1 + rng.below(120) as i64),
                1 => TakedownTarget::Profile(1 + rng.below(3) as i64),
                _ => TakedownTarget::Topic(1 + rng.below(6) as i64),
            };
            if let Ok(takedown) = store.add_takedown(target, "test", Millis(batch)) {
                in_force.push(takedown.takedown_id);
            }
        }
        if batch % 7 == 6 && !in_force.is_empty() {
            let lifted = in_force.remove(rng.below(in_force.len() as u64) as usize);
            store.lift_takedown(lifted, "", Millis(batch)).unwrap();
        }
    }
    assert!(!in_force.is_empty());
    let (_copy_dir, aggregating) = aggregating_copy(&store);
    let kept = every_topic(&store, last);
    assert!(kept.iter().filter(|doc| doc.is_some()).count() > 100);
    assert_eq!(kept, every_topic(&aggregating, last), "takedowns in force");
    for takedown in in_force {
        store.lift_takedown(takedown, "", Millis(100)).unwrap();
        aggregating
            .lift_takedown(takedown, "", Millis(100))
            .unwrap();
    }
    assert_eq!(
        every_topic(&store, last),
        every_topic(&aggregating, last),
        "no takedown in force"
    );
}

/// A corpus written before the topic statistics (without their tables) gets them when
/// opened: every topic reads the same at every sequence (older ones aggregate, or use rows
/// valid from each topic's last change), takedowns in force included, and imports keep them.
#[test]
fn a_corpus_from_before_topic_statistics_is_backfilled() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let (before, last, changed) = {
        let store = SqliteCorpusStore::open(dir.path()).unwrap();
        for _ in 0..12 {
            import_lines(&store, &random_batch(&mut rng));
        }
        // Topic 7 changes last at `changed`, before the newest sequence.
        let alone = |id, topic| {
            forumdex_testkit::corpus::fixtures::post(id, topic, None, None, serde_json::json!({}))
        };
        import_lines(&store, &[alone(500, 7), alone(501, 7)]);
        let changed = import_lines(&store, &[alone(502, 7)]);
        let last = import_lines(&store, &[alone(600, 8)]);
        store
            .add_takedown(TakedownTarget::Profile(2), "test", Millis(1))
            .unwrap();
        (every_topic(&store, last), last, changed)
    };
    let conn = rusqlite::Connection::open(dir.path().join(SqliteCorpusStore::FILE_NAME)).unwrap();
    conn.execute_batch(
        "DROP TABLE topic_stat_versions; DROP TABLE topic_merit_senders;
         DROP TABLE topic_stats_since; DROP TABLE takedown_topics;",
    )
    .unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    assert_eq!(every_topic(&store, last), before);
    let (since, valid_from): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT seq FROM topic_stats_since),
                    (SELECT valid_from FROM topic_stat_versions WHERE topic_id = 7)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(since, last);
    assert_eq!(
        valid_from, changed,
        "a row is valid from its topic's last change"
    );
    assert_eq!(store.topic(7, changed - 1).unwrap().unwrap().post_count, 2);
    for _ in 0..6 {
        import_lines(&store, &random_batch(&mut rng));
    }
    let newest = store.snapshot(Millis(0)).unwrap().seq;
    let (_copy_dir, aggregating) = aggregating_copy(&store);
    assert_eq!(
        every_topic(&store, newest),
        every_topic(&aggregating, newest)
    );
}

/// Superseded topic statistics are collected with the versions, not counted with them.
#[test]
fn superseded_topic_statistics_are_collected_with_the_versions() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let rows = || -> (i64, i64) {
        let conn = rusqlite::Connection::open(store.path()).unwrap();
        conn.query_row(
            "SELECT COUNT(*), COUNT(valid_to) FROM topic_stat_versions",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap()
    };
    let base = Millis::now(&SystemClock).0 + 3_600_000;
    let post = |observed_at: &str| {
        forumdex_testkit::corpus::fixtures::post(
            1,
            10,
            None,
            None,
            serde_json::json!({"observed_at": observed_at}),
        )
    };
    forumdex_testkit::corpus::fixtures::import(&store, &[post("2024-01-01T00:00:00Z")], base);
    let s2 = forumdex_testkit::corpus::fixtures::import(
        &store,
        &[post("2024-02-01T00:00:00Z")],
        base + 5_000,
    )
    .unwrap();
    assert_eq!(rows(), (2, 1), "merit.observed_at moved: a new row");
    let topic = store.topic(10, s2).unwrap();
    assert_eq!(store.collect_garbage(Millis(base + 5_001)).unwrap(), 1);
    assert_eq!(rows(), (1, 0));
    assert_eq!(store.topic(10, s2).unwrap(), topic);
}
