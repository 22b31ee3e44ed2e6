//! Derived topic and profile values against hand-computed ones (corpus-format.md
//! "How API fields derive").

use forumdex_corpus::*;
use serde_json::json;

use super::fixtures::*;
use crate::Fresh;

/// Imports the fixture into `store`; returns its sequence.
fn corpus(store: &dyn CorpusWrite) -> i64 {
    let lines = vec![
        line(
            json!({"kind": "board", "board_id": 7, "name": "Mining", "observed_at": "2024-03-01T12:00:00Z"}),
        ),
        line(
            json!({"kind": "topic", "topic_id": 10, "board_id": 7, "title": "GPU rigs", "views": 500, "observed_at": "2024-03-05T00:00:00Z"}),
        ),
        line(
            json!({"kind": "topic", "topic_id": 12, "title": "Empty", "page_count": 7, "observed_at": "2024-03-01T12:00:00Z"}),
        ),
        line(
            json!({"kind": "profile", "profile_id": 3, "username": "satoshi", "observed_at": "2024-03-01T12:00:00Z"}),
        ),
        post(
            100,
            10,
            Some(3),
            Some("2020-01-01T00:00:00Z"),
            json!({"title": "GPU rigs", "merit": {"senders": [{"profile_id": 5, "amount": 2}, {"profile_id": 6, "amount": 1}]}}),
        ),
        post(
            101,
            10,
            Some(4),
            Some("2020-01-02T00:00:00Z"),
            json!({"merit": {"senders": [{"profile_id": 5, "amount": 1}]}, "observed_at": "2024-03-02T00:00:00Z"}),
        ),
        post(102, 10, Some(3), Some("2020-01-03T00:00:00Z"), json!({})),
        post(103, 10, None, None, json!({})),
        post(
            200,
            11,
            Some(4),
            Some("2021-05-01T10:00:00Z"),
            json!({"title": "Solar mining", "board_id": 8, "language": "de"}),
        ),
        post(
            201,
            11,
            Some(4),
            Some("2021-05-02T10:00:00Z"),
            json!({"merit": {"total": 4, "distinct_senders": 3, "transactions": 3}}),
        ),
        post(
            202,
            11,
            None,
            Some("2021-05-03T10:00:00Z"),
            json!({"merit": {"total": 2, "distinct_senders": 2, "transactions": 2}}),
        ),
        post(
            300,
            13,
            Some(3),
            Some("2019-12-31T00:00:00Z"),
            json!({"is_op": false}),
        ),
        post(
            301,
            13,
            Some(5),
            Some("2019-12-31T01:00:00Z"),
            json!({"is_op": true}),
        ),
    ];
    import(store, &lines, ms("2024-06-01T00:00:00Z")).unwrap()
}

/// A topic with its record: title, board, views from the record; counts, dates, merit
/// (listed senders), first and latest post from its posts.
pub fn topic_with_a_record_and_listed_senders<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let topic = store.topic(10, seq).unwrap().unwrap();
    assert_eq!(topic.title, "GPU rigs");
    assert_eq!(
        topic.board,
        BoardRef {
            board_id: Some(7),
            name: "Mining".into()
        }
    );
    assert_eq!(topic.post_count, 4);
    assert_eq!(topic.page_count, 1);
    assert_eq!(
        topic.views,
        Views {
            observed: 500,
            observed_at: Some(Millis(ms("2024-03-05T00:00:00Z")))
        }
    );
    assert_eq!(topic.created_at, Some(Millis(ms("2020-01-01T00:00:00Z"))));
    assert_eq!(topic.last_post_at, Some(Millis(ms("2020-01-03T00:00:00Z"))));
    assert_eq!(
        topic.merit.counts,
        record::MeritCounts {
            total: 4,
            distinct_senders: 2,
            transactions: 3
        }
    );
    assert_eq!(
        topic.merit.observed_at,
        Some(Millis(ms("2024-03-02T00:00:00Z")))
    );
    let op = topic.first_post.unwrap();
    assert_eq!((op.post_id, op.is_op), (100, true));
    assert_eq!(
        op.board,
        BoardRef {
            board_id: Some(7),
            name: "Mining".into()
        },
        "a post without board takes its topic's"
    );
    assert_eq!(
        topic.latest_post.unwrap().post_id,
        102,
        "undated posts are never the latest"
    );
    assert_eq!(topic.language.as_deref(), Some("en"));
    let reply = store.post(101, seq).unwrap().unwrap();
    assert!(!reply.is_op);
    assert_eq!(reply.indexed_at, Millis(ms("2024-06-01T00:00:00Z")));
}

/// A topic without a record takes title, board and language from its posts; one with
/// a record and no posts has none of their values.
pub fn topic_without_a_record_falls_back_to_its_posts<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let topic = store.topic(11, seq).unwrap().unwrap();
    assert_eq!(topic.title, "Solar mining");
    assert_eq!(
        topic.board,
        BoardRef {
            board_id: Some(8),
            name: String::new()
        }
    );
    assert_eq!(
        topic.views,
        Views {
            observed: 0,
            observed_at: None
        }
    );
    assert_eq!(
        topic.merit.counts,
        record::MeritCounts {
            total: 6,
            distinct_senders: 5,
            transactions: 5
        }
    );
    assert_eq!(topic.language.as_deref(), Some("de"));
    let empty = store.topic(12, seq).unwrap().unwrap();
    assert_eq!((empty.post_count, empty.page_count), (0, 7));
    assert_eq!(empty.first_post, None);
    assert_eq!(empty.latest_post, None);
    assert_eq!(empty.merit.observed_at, None);
    assert_eq!(
        empty.board,
        BoardRef {
            board_id: None,
            name: String::new()
        }
    );
    assert!(store.topic(14, seq).unwrap().is_none());
}

/// A post marked `is_op` is the first post, whatever its ID.
pub fn explicit_is_op_wins_over_the_smallest_post_id<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let topic = store.topic(13, seq).unwrap().unwrap();
    assert_eq!(topic.first_post.unwrap().post_id, 301);
    assert!(!store.post(300, seq).unwrap().unwrap().is_op);
}

/// Profiles with and without a record: activity, recent posts, existence.
pub fn profiles_with_and_without_records<S: CorpusWrite + CorpusMaintenance>(fresh: &Fresh<'_, S>) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let satoshi = store.profile(3, seq).unwrap().unwrap();
    assert_eq!(satoshi.username.as_deref(), Some("satoshi"));
    assert_eq!(
        satoshi.activity,
        ProfileActivity {
            post_count: 3,
            topic_count: 2,
            first_post_at: Some(Millis(ms("2019-12-31T00:00:00Z"))),
            last_post_at: Some(Millis(ms("2020-01-03T00:00:00Z"))),
        }
    );
    let recent: Vec<i64> = satoshi.recent_posts.iter().map(|p| p.post_id).collect();
    assert_eq!(recent, [102, 100, 300]);
    let four = store.profile(4, seq).unwrap().unwrap();
    assert_eq!(four.username.as_deref(), Some("user4"));
    assert_eq!(four.activity.topic_count, 2);
    assert!(store.profile(99, seq).unwrap().is_none());
    assert!(store.scope_exists(Scope::Profile(5), seq).unwrap());
    assert!(
        !store.scope_exists(Scope::Profile(6), seq).unwrap(),
        "merit senders are not profiles"
    );
    assert!(store.scope_exists(Scope::Topic(12), seq).unwrap());
}

/// `posts` reads many posts at once: the same documents as `post`, unknown IDs left out.
pub fn posts_reads_many_at_once<S: CorpusWrite + CorpusMaintenance>(fresh: &Fresh<'_, S>) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let ids = [100, 101, 999, 200, 100];
    let found = store.posts(&ids, seq).unwrap();
    let mut keys: Vec<i64> = found.keys().copied().collect();
    keys.sort_unstable();
    assert_eq!(keys, [100, 101, 200]);
    for (id, doc) in &found {
        assert_eq!(Some(doc), store.post(*id, seq).unwrap().as_ref());
    }
    assert!(store.posts(&[], seq).unwrap().is_empty());
    assert!(
        store.posts(&[100], 0).unwrap().is_empty(),
        "at sequence 0, before the import"
    );
}

/// Canonical entity counts.
pub fn counts_of_canonical_entities<S: CorpusWrite + CorpusMaintenance>(fresh: &Fresh<'_, S>) {
    let store = fresh.backend();
    let seq = corpus(&store);
    let counts = store.counts(seq).unwrap();
    assert_eq!(
        counts,
        CorpusCounts {
            posts: 9,
            topics: 4,
            profiles: 3,
            boards: 1,
            images: 0
        }
    );
}
