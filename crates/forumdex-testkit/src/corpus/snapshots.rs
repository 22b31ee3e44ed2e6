//! MVCC snapshots: a read at sequence S sees what was canonical at S while imports go on;
//! superseded versions are collected only once no live snapshot can see them.

use forumdex_clock::SystemClock;
use forumdex_corpus::*;
use serde_json::json;

use super::fixtures::*;
use crate::Fresh;

fn walk(store: &dyn CorpusWrite, scope: Scope, seq: i64) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let request = ListRequest {
            scope,
            order: Order::Asc,
            filters: ListFilters::default(),
            limit: 7,
            after,
            scan_budget: 1_000,
        };
        let page = store.list_posts(&request, seq).unwrap();
        out.extend(page.posts.into_iter().map(|p| (p.post_id, p.content_html)));
        match page.next {
            Some(next) => after = Some(next),
            None => return out,
        }
    }
}

/// Listings and counts at a snapshot stay the same while another thread imports new
/// posts and new versions of old ones; the newest snapshot sees them all.
pub fn snapshot_reads_stay_stable_while_a_concurrent_import_adds_and_updates<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let initial: Vec<String> = (1..=50)
        .map(|id| {
            post(
                id,
                10,
                Some(3),
                Some(&format!("2020-01-01T00:{:02}:00Z", id % 60)),
                json!({"content_html": format!("v1 {id}")}),
            )
        })
        .collect();
    let frozen = import(&store, &initial, 1_000).unwrap();
    let expected = walk(&store, Scope::Topic(10), frozen);
    assert_eq!(expected.len(), 50);

    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            for round in 0..20i64 {
                let lines: Vec<String> = (1..=50)
                    .filter(|id| id % 5 == round % 5)
                    .map(|id| {
                        post(
                            id,
                            10,
                            Some(3),
                            Some("2020-01-01T00:00:00Z"),
                            json!({
                                "content_html": format!("v{} {id}", round + 2),
                                "observed_at": format!("2024-04-01T00:{:02}:00Z", round),
                            }),
                        )
                    })
                    .chain(
                        (0..5).map(|n| post(1_000 + round * 5 + n, 10, Some(4), None, json!({}))),
                    )
                    .collect();
                import(&store, &lines, 2_000 + round);
            }
        });
        for _ in 0..30 {
            assert_eq!(walk(&store, Scope::Topic(10), frozen), expected);
            assert_eq!(store.counts(frozen).unwrap().posts, 50);
        }
        writer.join().unwrap();
    });
    assert_eq!(walk(&store, Scope::Topic(10), frozen), expected);
    let now = latest(&store);
    assert!(now > frozen);
    let newest = walk(&store, Scope::Topic(10), now);
    assert_eq!(newest.len(), 150);
    assert!(
        newest
            .iter()
            .all(|(id, content)| *id > 50 || !content.starts_with("v1 "))
    );
}

/// A superseded version is collected once the sequence that replaced it is older than
/// the horizon, not before.
pub fn superseded_versions_are_collected_after_the_horizon_only<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let v1 = post(
        1,
        10,
        Some(3),
        None,
        json!({"content_html": "v1", "observed_at": "2024-01-01T00:00:00Z"}),
    );
    let v2 = post(
        1,
        10,
        Some(3),
        None,
        json!({"content_html": "v2", "observed_at": "2024-02-01T00:00:00Z"}),
    );
    // Times in the future, so that they, not the commit clock, are the sequences' times.
    let base = Millis::now(&SystemClock).0 + 3_600_000;
    let s1 = import(&store, &[v1], base + 1_000).unwrap();
    let s2 = import(&store, &[v2], base + 5_000).unwrap();
    // A snapshot taken at s1 may still be alive at horizon base + 5_000: nothing goes.
    assert_eq!(store.collect_garbage(Millis(base + 5_000)).unwrap(), 0);
    assert_eq!(store.post(1, s1).unwrap().unwrap().content_html, "v1");
    // Once s2 itself is older than the horizon, every snapshot that saw v1 has expired.
    assert_eq!(store.collect_garbage(Millis(base + 5_001)).unwrap(), 1);
    assert_eq!(store.post(1, s1).unwrap(), None);
    assert_eq!(store.post(1, s2).unwrap().unwrap().content_html, "v2");
    assert_eq!(store.collect_garbage(Millis(base + 10_000)).unwrap(), 0);
}

/// A read at a sequence before a post existed does not see it; a sequence's time is its
/// commit time, its versions' `indexed_at` the import's `now`.
pub fn reads_before_a_post_existed_do_not_see_it<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = import(&store, &[post(1, 10, None, None, json!({}))], 1).unwrap();
    let before = Millis::now(&SystemClock);
    let s2 = import(&store, &[post(2, 10, None, None, json!({}))], 2).unwrap();
    assert!(store.post(2, s1).unwrap().is_none());
    assert!(store.post(2, s2).unwrap().is_some());
    let created = store.sequence_created_at(s2).unwrap().unwrap();
    assert!(created >= before, "a sequence's time is its commit time");
    assert_eq!(store.post(2, s2).unwrap().unwrap().indexed_at, Millis(2));
    assert_eq!(store.sequence_created_at(99).unwrap(), None);
    assert!(store.post(1, 0).unwrap().is_none());
}

/// `posts_changed` lists the posts whose canonical version changed in a range of
/// sequences, as visible at its end, resumably.
pub fn posts_changed_lists_what_became_canonical_in_a_range<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = import(
        &store,
        &[
            post(1, 10, None, None, json!({})),
            post(2, 10, None, None, json!({})),
        ],
        1,
    )
    .unwrap();
    let s2 = import(
        &store,
        &[
            post(
                2,
                10,
                None,
                None,
                json!({"content_html": "edited", "observed_at": "2024-09-01T00:00:00Z"}),
            ),
            post(3, 10, None, None, json!({})),
        ],
        2,
    )
    .unwrap();
    let ids = |since, upto, after, limit| -> Vec<(i64, String)> {
        store
            .posts_changed(since, upto, after, limit)
            .unwrap()
            .into_iter()
            .map(|(_, change)| match change {
                PostChange::Current(p) => (p.post_id, p.content_html),
                PostChange::Deleted { post_id } => (post_id, "(deleted)".to_owned()),
            })
            .collect()
    };
    let all = ids(0, s2, ChangePosition::default(), 10);
    assert_eq!(all.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(all[1].1, "edited", "the version visible at `upto`");
    assert_eq!(
        ids(s1, s2, ChangePosition::default(), 10)
            .iter()
            .map(|(id, _)| *id)
            .collect::<Vec<_>>(),
        [2, 3]
    );
    assert_eq!(
        ids(0, s1, ChangePosition::default(), 10).len(),
        2,
        "as of s1: posts 1 and 2 at version 1"
    );
    let first = store
        .posts_changed(0, s2, ChangePosition::default(), 1)
        .unwrap();
    let rest = ids(0, s2, first[0].0, 10);
    assert_eq!(rest.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [2, 3]);
}
