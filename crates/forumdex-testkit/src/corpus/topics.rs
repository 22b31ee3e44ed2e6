//! Topic documents across imports (corpus-format.md "How API fields derive", at every
//! snapshot): what a topic's posts give it (counts, dates, merit, first and latest post)
//! stays as it was at an older snapshot after later imports change it, follows deletions
//! and takedowns, and matches an independent model for a topic of thousands of posts.

use std::collections::BTreeMap;

use forumdex_corpus::*;
use serde_json::{Value, json};

use super::fixtures::*;
use crate::Fresh;

/// What a topic's posts give its document: post count, last post time, merit counts,
/// merit observation time, first and latest post IDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostValues {
    /// `post_count`.
    pub post_count: i64,
    /// `last_post_at` (Unix ms).
    pub last_post_at: Option<i64>,
    /// `merit` counts as (total, distinct senders, transactions).
    pub merit: MeritTriple,
    /// `merit.observed_at` (Unix ms).
    pub merit_observed_at: Option<i64>,
    /// `first_post`'s ID.
    pub first_post: Option<i64>,
    /// `latest_post`'s ID.
    pub latest_post: Option<i64>,
}

/// The [`PostValues`] of topic `topic_id` at `seq` (`None` when it does not exist).
fn values(store: &dyn CorpusWrite, topic_id: i64, seq: i64) -> Option<PostValues> {
    let topic = store.topic(topic_id, seq).unwrap()?;
    let counts = topic.merit.counts;
    Some(PostValues {
        post_count: topic.post_count,
        last_post_at: topic.last_post_at.map(|at| at.0),
        merit: (counts.total, counts.distinct_senders, counts.transactions),
        merit_observed_at: topic.merit.observed_at.map(|at| at.0),
        first_post: topic.first_post.map(|p| p.post_id),
        latest_post: topic.latest_post.map(|p| p.post_id),
    })
}

/// `{"merit": {"senders": [...]}}` from (profile, amount) pairs.
fn senders(pairs: &[(i64, i64)]) -> Value {
    let list: Vec<Value> = pairs
        .iter()
        .map(|(id, amount)| json!({"profile_id": id, "amount": amount}))
        .collect();
    json!({"senders": list})
}

/// A topic's values at an older snapshot stay what they were after later imports add posts,
/// add merit, flag another opening post, delete a post and move one to another topic.
pub fn topic_values_at_an_older_snapshot_stay_after_later_imports<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = import(
        &store,
        &[
            line(
                json!({"kind": "topic", "topic_id": 10, "board_id": 7, "title": "Rigs", "observed_at": "2024-03-01T12:00:00Z"}),
            ),
            post(
                1,
                10,
                Some(3),
                Some("2020-01-01T00:00:00Z"),
                json!({"merit": senders(&[(5, 2)])}),
            ),
            post(2, 10, Some(4), Some("2020-01-02T00:00:00Z"), json!({})),
        ],
        1,
    )
    .unwrap();
    let d1 = store.topic(10, s1).unwrap().unwrap();
    let v1 = PostValues {
        post_count: 2,
        last_post_at: Some(ms("2020-01-02T00:00:00Z")),
        merit: (2, 1, 1),
        merit_observed_at: Some(ms("2024-03-01T12:00:00Z")),
        first_post: Some(1),
        latest_post: Some(2),
    };
    assert_eq!(values(&store, 10, s1), Some(v1.clone()));

    let s2 = import(
        &store,
        &[
            post(
                1,
                10,
                Some(3),
                Some("2020-01-01T00:00:00Z"),
                json!({"merit": senders(&[(5, 2), (6, 1)]), "observed_at": "2024-04-01T00:00:00Z"}),
            ),
            post(
                3,
                10,
                Some(5),
                Some("2020-01-03T00:00:00Z"),
                json!({"merit": senders(&[(5, 1)])}),
            ),
            post(
                4,
                10,
                Some(6),
                Some("2019-12-31T00:00:00Z"),
                json!({"is_op": true}),
            ),
        ],
        2,
    )
    .unwrap();
    let d2 = store.topic(10, s2).unwrap().unwrap();
    let v2 = PostValues {
        post_count: 4,
        last_post_at: Some(ms("2020-01-03T00:00:00Z")),
        merit: (4, 2, 3),
        merit_observed_at: Some(ms("2024-04-01T00:00:00Z")),
        first_post: Some(4),
        latest_post: Some(3),
    };
    assert_eq!(values(&store, 10, s2), Some(v2.clone()));
    assert_eq!(d2.created_at, Some(Millis(ms("2019-12-31T00:00:00Z"))));

    let s3 = import(
        &store,
        &[
            deletion(3, 10, "2024-05-01T00:00:00Z"),
            post(
                2,
                11,
                Some(4),
                Some("2020-01-02T00:00:00Z"),
                json!({"observed_at": "2024-05-01T00:00:00Z"}),
            ),
        ],
        3,
    )
    .unwrap();
    assert_eq!(
        values(&store, 10, s3),
        Some(PostValues {
            post_count: 2,
            last_post_at: Some(ms("2020-01-01T00:00:00Z")),
            merit: (3, 2, 2),
            merit_observed_at: Some(ms("2024-04-01T00:00:00Z")),
            first_post: Some(4),
            latest_post: Some(1),
        })
    );
    assert_eq!(values(&store, 11, s3).unwrap().post_count, 1, "moved in");
    assert_eq!(store.topic(11, s2).unwrap(), None, "not yet at s2");

    assert_eq!(store.topic(10, s1).unwrap().as_ref(), Some(&d1));
    assert_eq!(store.topic(10, s2).unwrap().as_ref(), Some(&d2));
    assert_eq!(values(&store, 10, s1), Some(v1));
    assert_eq!(values(&store, 10, s2), Some(v2));
}

/// Deleting posts takes them out of their topic's counts, merit (distinct senders turn from
/// summed to listed once no unlisted post is left; the observation time falls back when its
/// post goes) and latest post; a topic of deleted posts alone no longer exists; a deleted
/// smallest post is still the topic's smallest, so the next one is not its opening post.
pub fn deleting_posts_updates_their_topic_at_each_snapshot<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = import(
        &store,
        &[
            post(
                1,
                10,
                Some(3),
                Some("2020-01-01T00:00:00Z"),
                json!({"merit": senders(&[(5, 1)])}),
            ),
            post(
                2,
                10,
                Some(4),
                Some("2020-01-02T00:00:00Z"),
                json!({"merit": senders(&[(6, 2)]), "observed_at": "2024-03-10T00:00:00Z"}),
            ),
            post(
                3,
                10,
                Some(5),
                Some("2020-01-03T00:00:00Z"),
                json!({"merit": {"total": 3, "distinct_senders": 2, "transactions": 2},
                       "observed_at": "2024-03-05T00:00:00Z"}),
            ),
        ],
        1,
    )
    .unwrap();
    let expected_s1 = PostValues {
        post_count: 3,
        last_post_at: Some(ms("2020-01-03T00:00:00Z")),
        merit: (6, 4, 4),
        merit_observed_at: Some(ms("2024-03-10T00:00:00Z")),
        first_post: Some(1),
        latest_post: Some(3),
    };
    assert_eq!(values(&store, 10, s1), Some(expected_s1.clone()));
    let d1 = store.topic(10, s1).unwrap().unwrap();
    assert_eq!(d1.title, "Re: topic 10", "the opening post's title");

    let s2 = import(&store, &[deletion(3, 10, "2024-06-01T00:00:00Z")], 2).unwrap();
    let expected_s2 = PostValues {
        post_count: 2,
        last_post_at: Some(ms("2020-01-02T00:00:00Z")),
        merit: (3, 2, 2),
        merit_observed_at: Some(ms("2024-03-10T00:00:00Z")),
        first_post: Some(1),
        latest_post: Some(2),
    };
    assert_eq!(values(&store, 10, s2), Some(expected_s2.clone()));

    let s3 = import(&store, &[deletion(2, 10, "2024-06-01T00:00:00Z")], 3).unwrap();
    let expected_s3 = PostValues {
        post_count: 1,
        last_post_at: Some(ms("2020-01-01T00:00:00Z")),
        merit: (1, 1, 1),
        merit_observed_at: Some(ms("2024-03-01T12:00:00Z")),
        first_post: Some(1),
        latest_post: Some(1),
    };
    assert_eq!(values(&store, 10, s3), Some(expected_s3.clone()));

    let s4 = import(&store, &[deletion(1, 10, "2024-06-01T00:00:00Z")], 4).unwrap();
    assert_eq!(
        store.topic(10, s4).unwrap(),
        None,
        "no record, no post served"
    );
    assert!(!store.scope_exists(Scope::Topic(10), s4).unwrap());

    let again = post(
        2,
        10,
        Some(4),
        Some("2020-01-02T00:00:00Z"),
        json!({"merit": senders(&[(6, 2)]), "observed_at": "2024-07-01T00:00:00Z"}),
    );
    let s5 = import(&store, &[again], 5).unwrap();
    let back = store.topic(10, s5).unwrap().unwrap();
    assert_eq!(
        values(&store, 10, s5),
        Some(PostValues {
            post_count: 1,
            last_post_at: Some(ms("2020-01-02T00:00:00Z")),
            merit: (2, 1, 1),
            merit_observed_at: Some(ms("2024-07-01T00:00:00Z")),
            first_post: None,
            latest_post: Some(2),
        }),
        "post 1, deleted, is still the smallest post of the topic"
    );
    assert_eq!((back.title.as_str(), back.created_at), ("", None));

    assert_eq!(store.topic(10, s1).unwrap().as_ref(), Some(&d1));
    assert_eq!(values(&store, 10, s2), Some(expected_s2));
    assert_eq!(values(&store, 10, s3), Some(expected_s3));
    assert_eq!(values(&store, 10, s1), Some(expected_s1));
}

/// A takedown of a post inside a topic, or of an author of its posts, leaves their posts out
/// of the topic's values at every snapshot, old ones included, and out of posts imported
/// later (in the same topic or a new one); a takedown elsewhere changes nothing; lifting them
/// gives back the very documents of before.
pub fn a_takedown_inside_a_topic_leaves_its_posts_out_of_the_topic<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = import(
        &store,
        &[
            line(
                json!({"kind": "topic", "topic_id": 10, "title": "Takedowns", "observed_at": "2024-03-01T12:00:00Z"}),
            ),
            post(
                1,
                10,
                Some(5),
                Some("2020-01-01T00:00:00Z"),
                json!({"merit": senders(&[(7, 1)])}),
            ),
            post(
                2,
                10,
                Some(6),
                Some("2020-01-02T00:00:00Z"),
                json!({"merit": senders(&[(8, 2)]), "observed_at": "2024-03-02T00:00:00Z"}),
            ),
            post(3, 10, Some(5), Some("2020-01-03T00:00:00Z"), json!({})),
            post(9, 12, Some(6), Some("2020-01-09T00:00:00Z"), json!({})),
        ],
        1,
    )
    .unwrap();
    let s2 = import(
        &store,
        &[post(
            4,
            10,
            Some(6),
            Some("2020-01-04T00:00:00Z"),
            json!({}),
        )],
        2,
    )
    .unwrap();
    let d1 = store.topic(10, s1).unwrap().unwrap();
    let d2 = store.topic(10, s2).unwrap().unwrap();
    assert_eq!(d2.post_count, 4);

    let post_down = store
        .add_takedown(TakedownTarget::Post(2), "order", Millis(10))
        .unwrap();
    let without_2 = |post_count, latest_post| PostValues {
        post_count,
        last_post_at: Some(ms(match latest_post {
            3 => "2020-01-03T00:00:00Z",
            _ => "2020-01-04T00:00:00Z",
        })),
        merit: (1, 1, 1),
        merit_observed_at: Some(ms("2024-03-01T12:00:00Z")),
        first_post: Some(1),
        latest_post: Some(latest_post),
    };
    assert_eq!(values(&store, 10, s1), Some(without_2(2, 3)));
    assert_eq!(values(&store, 10, s2), Some(without_2(3, 4)));
    let elsewhere = store
        .add_takedown(TakedownTarget::Post(9), "order", Millis(11))
        .unwrap();
    assert_eq!(values(&store, 10, s2), Some(without_2(3, 4)));

    let author_down = store
        .add_takedown(TakedownTarget::Profile(5), "request", Millis(12))
        .unwrap();
    assert_eq!(
        values(&store, 10, s2),
        Some(PostValues {
            post_count: 1,
            last_post_at: Some(ms("2020-01-04T00:00:00Z")),
            merit: (0, 0, 0),
            merit_observed_at: Some(ms("2024-03-01T12:00:00Z")),
            first_post: None,
            latest_post: Some(4),
        }),
        "post 1, taken down, is still the smallest post of the topic"
    );
    let s3 = import(
        &store,
        &[
            post(5, 10, Some(5), Some("2020-01-05T00:00:00Z"), json!({})),
            post(6, 13, Some(5), Some("2020-01-06T00:00:00Z"), json!({})),
        ],
        3,
    )
    .unwrap();
    assert_eq!(
        values(&store, 10, s3).unwrap().latest_post,
        Some(4),
        "a later post of the taken-down author is left out too"
    );
    assert_eq!(
        store.topic(13, s3).unwrap(),
        None,
        "a topic of its posts alone does not exist"
    );

    for takedown in [post_down, elsewhere, author_down] {
        store
            .lift_takedown(takedown.takedown_id, "", Millis(20))
            .unwrap();
    }
    assert_eq!(store.topic(10, s1).unwrap().as_ref(), Some(&d1));
    assert_eq!(store.topic(10, s2).unwrap().as_ref(), Some(&d2));
    let v3 = values(&store, 10, s3).unwrap();
    assert_eq!((v3.post_count, v3.latest_post), (5, Some(5)));
    assert_eq!(values(&store, 13, s3).unwrap().post_count, 1);
}

/// Merit counts as (total, distinct senders, transactions).
type MeritTriple = (i64, i64, i64);

/// A post of the model: its canonical observation.
#[derive(Debug, Clone)]
struct Modelled {
    topic: i64,
    posted_at: Option<i64>,
    merit: MeritTriple,
    senders: Option<Vec<(i64, i64)>>,
    observed_at: i64,
    deleted: bool,
    is_op: Option<bool>,
}

/// The topic values the model gives `topic`, leaving out `hidden` posts (as a takedown
/// does: they stay the topic's posts for the opening post rule).
fn modelled_values(
    posts: &BTreeMap<i64, Modelled>,
    topic: i64,
    hidden: &[i64],
) -> Option<PostValues> {
    let in_topic: Vec<(&i64, &Modelled)> = posts.iter().filter(|(_, p)| p.topic == topic).collect();
    let served: Vec<(&i64, &Modelled)> = in_topic
        .iter()
        .copied()
        .filter(|(id, p)| !p.deleted && !hidden.contains(id))
        .collect();
    if served.is_empty() {
        return None;
    }
    let unlisted = served
        .iter()
        .any(|(_, p)| (p.merit.0 > 0 || p.merit.2 > 0) && p.senders.is_none());
    let distinct = if unlisted {
        served.iter().map(|(_, p)| p.merit.1).sum()
    } else {
        let mut ids: Vec<i64> = served
            .iter()
            .flat_map(|(_, p)| p.senders.iter().flatten().map(|(id, _)| *id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len() as i64
    };
    let smallest_in_topic = *in_topic[0].0;
    let first_post = match served.iter().find(|(_, p)| p.is_op == Some(true)) {
        Some((id, _)) => Some(**id),
        None => {
            let (id, p) = served[0];
            p.is_op.unwrap_or(*id == smallest_in_topic).then_some(*id)
        }
    };
    Some(PostValues {
        post_count: served.len() as i64,
        last_post_at: served.iter().filter_map(|(_, p)| p.posted_at).max(),
        merit: (
            served.iter().map(|(_, p)| p.merit.0).sum(),
            distinct,
            served.iter().map(|(_, p)| p.merit.2).sum(),
        ),
        merit_observed_at: served.iter().map(|(_, p)| p.observed_at).max(),
        first_post,
        latest_post: served
            .iter()
            .max_by_key(|(id, p)| (p.posted_at.unwrap_or(UNDATED), **id))
            .map(|(id, _)| **id),
    })
}

/// Records `post` in the model and its line in `lines`.
fn observe(posts: &mut BTreeMap<i64, Modelled>, lines: &mut Vec<String>, id: i64, post: Modelled) {
    let observed_at = Millis(post.observed_at).to_rfc3339();
    lines.push(if post.deleted {
        deletion(id, post.topic, &observed_at)
    } else {
        let merit = match &post.senders {
            Some(pairs) => senders(pairs),
            None => json!({"total": post.merit.0, "distinct_senders": post.merit.1,
                           "transactions": post.merit.2}),
        };
        let mut extra = json!({"merit": merit, "observed_at": observed_at});
        if let Some(is_op) = post.is_op {
            extra["is_op"] = json!(is_op);
        }
        let posted_at = post.posted_at.map(|at| Millis(at).to_rfc3339());
        super::fixtures::post(
            id,
            post.topic,
            Some(id % 50 + 1),
            posted_at.as_deref(),
            extra,
        )
    });
    posts.insert(id, post);
}

/// Merit counts and senders: none (an empty list) 6 times in 10, else listed senders, or
/// unlisted counts 1 time in 10 when `unlisted_allowed`.
fn random_merit(rng: &mut Rng, unlisted_allowed: bool) -> (MeritTriple, Option<Vec<(i64, i64)>>) {
    match rng.below(10) {
        0..=5 => ((0, 0, 0), Some(Vec::new())),
        9 if unlisted_allowed => {
            let transactions = 1 + rng.below(4) as i64;
            let distinct = 1 + rng.below(transactions as u64) as i64;
            ((transactions * 2, distinct, transactions), None)
        }
        _ => {
            let pairs: Vec<(i64, i64)> = (0..1 + rng.below(3))
                .map(|_| (1 + rng.below(40) as i64, 1 + rng.below(3) as i64))
                .collect();
            let mut ids: Vec<i64> = pairs.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            ids.dedup();
            let total = pairs.iter().map(|(_, amount)| amount).sum();
            ((total, ids.len() as i64, pairs.len() as i64), Some(pairs))
        }
    }
}

/// xorshift64: the cases' own deterministic randomness.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A topic of 3,000 posts imported over six batches, with edits, merit listed and unlisted
/// (the unlisted relisted later), deletions, revivals, moves to a second topic, undated
/// posts and a flagged opening post, has at every batch's snapshot, read after the last
/// batch, the values a model of its posts gives, and so with a takedown of one of its posts.
pub fn a_large_topic_matches_a_model_of_its_posts_at_every_snapshot<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut posts: BTreeMap<i64, Modelled> = BTreeMap::new();
    let mut expected: Vec<(i64, BTreeMap<i64, Modelled>)> = Vec::new();
    let base = ms("2019-01-01T00:00:00Z");
    let observed = ms("2024-01-01T00:00:00Z");
    let hour = 3_600_000;
    for batch in 0..6i64 {
        let at = observed + batch * 24 * hour;
        let unlisted_allowed = batch < 3;
        let mut lines = Vec::new();
        // Edits, deletions, revivals and moves of earlier posts, then 500 new posts.
        let earlier: Vec<i64> = posts.keys().copied().collect();
        for _ in 0..if earlier.is_empty() { 0 } else { 80 } {
            let id = earlier[rng.below(earlier.len() as u64) as usize];
            let mut post = posts[&id].clone();
            // Later than any observation of the post so far: it wins the canonical rule.
            post.observed_at = post.observed_at.max(at) + 1 + rng.below(1_000) as i64;
            match rng.below(8) {
                0 => post.deleted = true,
                1 => {
                    post.deleted = false;
                    post.topic = 78;
                }
                _ => {
                    post.deleted = false;
                    (post.merit, post.senders) = random_merit(&mut rng, unlisted_allowed);
                }
            }
            observe(&mut posts, &mut lines, id, post);
        }
        if !unlisted_allowed {
            // Every unlisted merit gets its senders: distinct senders are counted by sender.
            let unlisted: Vec<i64> = posts
                .iter()
                .filter(|(_, p)| p.senders.is_none() && !p.deleted)
                .map(|(id, _)| *id)
                .collect();
            for id in unlisted {
                let mut post = posts[&id].clone();
                post.observed_at = post.observed_at.max(at) + 1_000;
                post.senders = Some(vec![(id % 7 + 1, post.merit.0)]);
                post.merit = (post.merit.0, 1, 1);
                observe(&mut posts, &mut lines, id, post);
            }
        }
        for n in 0..500 {
            let id = 1_000 + batch * 500 + n;
            let (merit, senders) = random_merit(&mut rng, unlisted_allowed);
            let post = Modelled {
                topic: 77,
                posted_at: (rng.below(50) != 0).then(|| base + rng.below(20_000) as i64 * hour),
                merit,
                senders,
                observed_at: at,
                deleted: false,
                is_op: (batch == 3 && n == 250).then_some(true),
            };
            observe(&mut posts, &mut lines, id, post);
        }
        let seq = import(&store, &lines, at).unwrap();
        expected.push((seq, posts.clone()));
    }
    let check = |hidden: &[i64]| {
        for (seq, posts) in &expected {
            for topic in [77, 78] {
                assert_eq!(
                    values(&store, topic, *seq),
                    modelled_values(posts, topic, hidden),
                    "topic {topic} at {seq}, {hidden:?} taken down"
                );
            }
        }
    };
    check(&[]);
    let (last_seq, last_posts) = expected.last().unwrap();
    let latest = values(&store, 77, *last_seq).unwrap().latest_post.unwrap();
    assert!(last_posts[&latest].posted_at.is_some());
    let takedown = store
        .add_takedown(TakedownTarget::Post(latest), "order", Millis(1))
        .unwrap();
    check(&[latest]);
    store
        .lift_takedown(takedown.takedown_id, "", Millis(2))
        .unwrap();
    check(&[]);
}
