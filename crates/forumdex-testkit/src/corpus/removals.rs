//! What leaves the service: posts whose canonical observation is a deletion
//! (corpus-format.md, post field `deleted`; versioned like any observation) and takedowns
//! (operator-interface.md; not versioned: they hold at every snapshot).

use forumdex_corpus::*;
use serde_json::json;

use super::fixtures::*;
use crate::Fresh;

/// The post IDs of one listing page (limit 100) of `scope` at `seq`.
fn listed(store: &dyn CorpusWrite, scope: Scope, seq: i64) -> Vec<i64> {
    let request = ListRequest {
        scope,
        order: Order::Asc,
        filters: ListFilters::default(),
        limit: 100,
        after: None,
        scan_budget: 1_000,
    };
    let page = store.list_posts(&request, seq).unwrap();
    page.posts.iter().map(|p| p.post_id).collect()
}

/// Posts 1 and 2 (topic 10, by 5 and 6) and 3 (topic 20, by 6), dated in order.
fn three_posts(store: &dyn CorpusWrite) -> i64 {
    import(
        store,
        &[
            post(1, 10, Some(5), Some("2020-01-01T00:00:00Z"), json!({})),
            post(2, 10, Some(6), Some("2020-01-02T00:00:00Z"), json!({})),
            post(3, 20, Some(6), Some("2020-01-03T00:00:00Z"), json!({})),
        ],
        1,
    )
    .unwrap()
}

/// A canonical deletion serves the post as absent from its sequence on (lookups, batched
/// lookups, listings, topic and profile derivations, counts) and reports it to an index
/// as deleted; earlier snapshots still see the post; an older observation does not bring
/// it back, a newer one does.
pub fn a_deleted_canonical_post_is_served_as_absent<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = three_posts(&store);
    let s2 = import(&store, &[deletion(2, 10, "2024-06-01T00:00:00Z")], 2).unwrap();

    assert!(store.post(2, s2).unwrap().is_none(), "deleted at s2");
    assert!(
        store.post(2, s1).unwrap().is_some(),
        "s1 predates the deletion"
    );
    let found = store.posts(&[1, 2, 3], s2).unwrap();
    assert_eq!(found.len(), 2);
    assert!(!found.contains_key(&2));
    let live = store.live_posts(&[1, 2, 3], s2).unwrap();
    assert_eq!(
        live.len(),
        2,
        "what the search sync indexes has no deleted post either"
    );
    assert!(!live.contains_key(&2));
    assert_eq!(listed(&store, Scope::Topic(10), s2), [1]);
    assert_eq!(listed(&store, Scope::Topic(10), s1), [1, 2]);
    assert_eq!(listed(&store, Scope::Profile(6), s2), [3]);
    assert_eq!(store.topic(10, s2).unwrap().unwrap().post_count, 1);
    assert_eq!(
        store.profile(6, s2).unwrap().unwrap().activity.post_count,
        1
    );
    assert_eq!(store.counts(s2).unwrap().posts, 2);

    let changes = store
        .posts_changed(s1, s2, ChangePosition::default(), 10)
        .unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].1, PostChange::Deleted { post_id: 2 });

    // An observation older than the deletion loses the canonical rule.
    let older = post(
        2,
        10,
        Some(6),
        Some("2020-01-02T00:00:00Z"),
        json!({"observed_at": "2024-05-01T00:00:00Z", "content_html": "older"}),
    );
    let s3 = import(&store, &[older], 3).unwrap();
    assert!(store.post(2, s3).unwrap().is_none(), "still deleted");

    // The post seen again later is served again.
    let again = post(
        2,
        10,
        Some(6),
        Some("2020-01-02T00:00:00Z"),
        json!({"observed_at": "2024-07-01T00:00:00Z", "content_html": "back"}),
    );
    let s4 = import(&store, &[again], 4).unwrap();
    assert_eq!(store.post(2, s4).unwrap().unwrap().content_html, "back");
    assert_eq!(listed(&store, Scope::Topic(10), s4), [1, 2]);
}

/// A takedown hides its post, topic (with its posts) or profile (with its posts) from every
/// read at every snapshot, old ones included; later imports do not bring the content back;
/// lifting it serves the content again; every change is kept with its time and reason.
pub fn takedowns_hold_at_every_snapshot_until_lifted<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let s1 = three_posts(&store);
    assert_eq!(store.takedowns_in_force().unwrap(), TakedownSet::default());

    let post_down = store
        .add_takedown(TakedownTarget::Post(1), " court order ", Millis(100))
        .unwrap();
    assert_eq!(post_down.target, TakedownTarget::Post(1));
    assert_eq!(post_down.reason, "court order", "the reason is trimmed");
    assert_eq!(post_down.at, Millis(100));
    assert!(post_down.in_force());
    assert!(
        store.post(1, s1).unwrap().is_none(),
        "even at an older snapshot"
    );
    assert!(!store.posts(&[1, 2], s1).unwrap().contains_key(&1));
    let indexed = store.live_posts(&[1, 2], s1).unwrap();
    assert_eq!(
        (indexed[&1].post_id, indexed[&2].post_id),
        (1, 2),
        "the search sync reads a post under a takedown: the indexes hold it"
    );
    assert_eq!(listed(&store, Scope::Topic(10), s1), [2]);
    assert_eq!(store.topic(10, s1).unwrap().unwrap().post_count, 1);
    assert_eq!(store.profile(5, s1).unwrap(), None, "5 wrote only post 1");
    assert!(
        !store.post(2, s1).unwrap().unwrap().is_op,
        "the smallest post ID of the topic stays the opening post, served or not"
    );
    assert!(!store.scope_exists(Scope::Profile(5), s1).unwrap());

    let topic_down = store
        .add_takedown(TakedownTarget::Topic(20), "spam", Millis(200))
        .unwrap();
    assert_eq!(store.topic(20, s1).unwrap(), None);
    assert!(!store.scope_exists(Scope::Topic(20), s1).unwrap());
    assert!(store.post(3, s1).unwrap().is_none());
    assert_eq!(listed(&store, Scope::Profile(6), s1), [2]);

    store
        .add_takedown(
            TakedownTarget::Profile(6),
            "request of the user",
            Millis(300),
        )
        .unwrap();
    assert_eq!(store.profile(6, s1).unwrap(), None);
    assert!(!store.scope_exists(Scope::Profile(6), s1).unwrap());
    assert!(store.post(2, s1).unwrap().is_none());
    assert_eq!(listed(&store, Scope::Topic(10), s1), Vec::<i64>::new());
    let counts = store.counts(s1).unwrap();
    assert_eq!(
        (counts.posts, counts.topics, counts.profiles),
        (0, 0, 0),
        "every post is taken down; topic 10 and the profiles exist only through posts"
    );
    assert_eq!(
        store.takedowns_in_force().unwrap(),
        TakedownSet {
            posts: vec![1],
            topics: vec![20],
            profiles: vec![6],
        }
    );

    // A newer observation of a taken-down post does not bring it back.
    let newer = post(
        1,
        10,
        Some(5),
        Some("2020-01-01T00:00:00Z"),
        json!({"observed_at": "2024-09-01T00:00:00Z", "content_html": "re-crawled"}),
    );
    let s2 = import(&store, &[newer], 2).unwrap();
    assert!(store.post(1, s2).unwrap().is_none());

    // Refusals change nothing.
    assert!(matches!(
        store.add_takedown(TakedownTarget::Post(1), "again", Millis(400)),
        Err(TakedownError::AlreadyTakenDown { takedown_id, .. }) if takedown_id == post_down.takedown_id
    ));
    assert!(matches!(
        store.add_takedown(TakedownTarget::Post(2), "  ", Millis(400)),
        Err(TakedownError::BadReason)
    ));
    assert!(matches!(
        store.lift_takedown(999, "", Millis(400)),
        Err(TakedownError::NotInForce(999))
    ));

    let lifted = store
        .lift_takedown(post_down.takedown_id, "order quashed", Millis(500))
        .unwrap();
    assert!(!lifted.in_force());
    assert_eq!(lifted.lifted.as_ref().unwrap().at, Millis(500));
    assert_eq!(lifted.lifted.as_ref().unwrap().reason, "order quashed");
    assert_eq!(
        store.post(1, s2).unwrap().unwrap().content_html,
        "re-crawled"
    );
    assert!(matches!(
        store.lift_takedown(post_down.takedown_id, "", Millis(600)),
        Err(TakedownError::NotInForce(_))
    ));

    let history = store.takedowns().unwrap();
    assert_eq!(history.len(), 3);
    assert_eq!(history[0], lifted);
    assert_eq!(history[1], topic_down);
    // A lifted target can be taken down again, as a new takedown.
    let again = store
        .add_takedown(TakedownTarget::Post(1), "new order", Millis(700))
        .unwrap();
    assert!(again.takedown_id > topic_down.takedown_id);
    assert!(store.post(1, s2).unwrap().is_none());
}
