//! Re-ranking: freshness, the quality filter, answer seeking, determinism.

use forumdex_clock::SystemClock;
use forumdex_corpus::{CorpusWrite, Millis, TakedownTarget};
use forumdex_search::SearchRequest;
use serde_json::json;

use crate::helpers::{World, ids, post};

#[test]
fn freshness_prefers_newer_posts_when_asked_or_detected() {
    let world = World::new();
    let text = |year: i32| {
        format!(
            "exchange listing announcement for the token, posted in the year {year} with details"
        )
    };
    world.import_and_sync(&[
        post(1, 1, &text(2013), json!({"posted_at": "2013-01-01T00:00:00Z", "merit": {"total": 40, "distinct_senders": 10, "transactions": 12}})),
        post(2, 2, &text(2016), json!({"posted_at": "2016-01-01T00:00:00Z"})),
        post(3, 3, &text(2019), json!({"posted_at": "2019-01-01T00:00:00Z"})),
    ]);
    let plain = world.search("exchange listing announcement");
    assert!(!plain.freshness);
    assert_eq!(plain.hits[0].post_id, 1, "merit wins without freshness");
    let mut request = SearchRequest::new("exchange listing announcement");
    request.freshness = true;
    let fresh = world.run(request);
    assert!(fresh.freshness);
    assert_eq!(fresh.hits[0].post_id, 3);
    assert!(fresh.hits[0].rank_factors.freshness);
    let detected = world.search("latest exchange listing announcement");
    assert!(detected.freshness);
    assert_eq!(detected.hits[0].post_id, 3);
}

#[test]
fn low_quality_replies_are_left_out_unless_included() {
    let world = World::new();
    world.import_and_sync(&[
        post(1, 1, "Presenting the moonbeam project: a new token for decentralized storage with a long whitepaper", json!({"is_op": true, "title": "[ANN] moonbeam project"})),
        post(2, 1, "Nice project moonbeam!", json!({"author": {"profile_id": 8, "username": "farmer"}})),
        post(3, 1, "Join the moonbeam bounty and airdrop, referral link: <a href=\"https://x.example/r\">https://x.example/r</a>", json!({"author": {"profile_id": 9, "username": "hunter"}})),
        post(4, 1, "I read the moonbeam whitepaper; the storage proofs look sound but the token supply schedule is unclear to me.", json!({"author": {"profile_id": 10, "username": "reader"}})),
    ]);
    let filtered = world.search("moonbeam");
    let mut got = ids(&filtered);
    got.sort();
    assert_eq!(got, [1, 4]);
    assert_eq!(filtered.total, 2);
    let mut request = SearchRequest::new("moonbeam");
    request.include_low_quality = true;
    let all = world.run(request);
    assert_eq!(all.total, 4);
    let spam = all.hits.iter().find(|h| h.post_id == 3).unwrap();
    assert!(spam.spam_score >= 0.6, "{}", spam.spam_score);
}

#[test]
fn opening_posts_are_never_filtered() {
    let world = World::new();
    world.import_and_sync(&[post(
        1,
        1,
        "Nice project!",
        json!({"is_op": true, "title": "nice"}),
    )]);
    assert_eq!(ids(&world.search("project")), [1]);
}

#[test]
fn a_post_taken_for_the_opening_one_becomes_a_reply_when_an_earlier_post_arrives() {
    // Without `is_op` in its record, a post is its topic's opening post while it has the
    // smallest post ID there: a later sync that brings an earlier post makes it a reply,
    // as a node that indexes both at once finds it.
    let reply = || post(20, 1, "Nice project!", json!({"title": "Re: quasar"}));
    let opening = post(
        10,
        1,
        "The quasar wallet keeps long term savings offline and signs on the device",
        json!({"title": "quasar"}),
    );
    let later = World::new();
    later.import_and_sync(&[reply()]);
    assert_eq!(
        ids(&later.search("project")),
        [20],
        "alone, it opens the topic"
    );
    later.import_and_sync(std::slice::from_ref(&opening));
    let at_once = World::new();
    at_once.import_and_sync(&[opening, reply()]);
    for world in [later, at_once] {
        assert!(
            ids(&world.search("project")).is_empty(),
            "a short generic reply is hidden"
        );
        let mut all = SearchRequest::new("project");
        all.include_low_quality = true;
        let hits = world.run(all).hits;
        assert_eq!((hits[0].post_id, hits[0].is_op), (20, false));
        assert_eq!(
            ids(&world.search("quasar")),
            [10],
            "the title is the opening post's"
        );
    }
}

#[test]
fn near_duplicate_replies_by_one_author_are_filtered() {
    let world = World::new();
    let text = "I think the quasar wallet is the safest choice for long term storage of coins";
    let by = |id: i64, content: &str| {
        post(
            id,
            1,
            content,
            json!({"author": {"profile_id": 3, "username": "copycat"}}),
        )
    };
    world.import_and_sync(&[
        post(
            1,
            1,
            "Which wallet do you use for savings?",
            json!({"is_op": true}),
        ),
        by(2, text),
        by(3, &text.to_uppercase().replace(' ', "  ")),
    ]);
    world.import_and_sync(&[by(4, text)]);
    assert_eq!(ids(&world.search("quasar")), [2]);
}

#[test]
fn a_copy_of_a_deleted_reply_is_not_a_duplicate() {
    let world = World::new();
    let text = "I think the quasar wallet is the safest choice for long term storage of coins";
    let by = |id: i64| {
        post(
            id,
            1,
            text,
            json!({"author": {"profile_id": 3, "username": "copycat"}}),
        )
    };
    world.import_and_sync(&[post(1, 1, "Which wallet?", json!({"is_op": true})), by(2)]);
    // The original is gone from the forum, so from the index: a later copy is the only
    // one left, and is shown.
    world.import_and_sync(&[deletion(2)]);
    world.import_and_sync(&[by(3)]);
    assert_eq!(ids(&world.search("quasar")), [3]);
}

/// One author's copies of one text, and the opening post of their topic.
fn copies() -> (String, impl Fn(i64, &str) -> String) {
    let op = post(1, 1, "Which wallet?", json!({"is_op": true}));
    let by = |id: i64, observed_at: &str| {
        post(
            id,
            1,
            "I think the quasar wallet is the safest choice for long term storage of coins",
            json!({"author": {"profile_id": 3, "username": "copycat"}, "observed_at": observed_at}),
        )
    };
    (op, by)
}

const FIRST_SEEN: &str = "2024-03-01T12:00:00Z";
const SEEN_AGAIN: &str = "2024-04-01T12:00:00Z";

/// Post `post_id` of topic 1 deleted, seen after [`FIRST_SEEN`].
fn deletion(post_id: i64) -> String {
    post(
        post_id,
        1,
        "",
        json!({"deleted": true, "observed_at": SEEN_AGAIN}),
    )
}

/// Every post that holds `q`, the hidden ones included, by post ID.
fn with_hidden(world: &World, q: &str) -> Vec<i64> {
    let mut all = SearchRequest::new(q);
    all.include_low_quality = true;
    let mut every = ids(&world.run(all));
    every.sort_unstable();
    every
}

#[test]
fn the_first_of_an_authors_copies_is_shown_whatever_order_they_came_in() {
    let (op, by) = copies();
    // Copies first, each synced on its own, the original last: the indexed copy gives way.
    let apart = World::new();
    apart.import_and_sync(&[op.clone(), by(4, FIRST_SEEN)]);
    apart.import_and_sync(&[by(3, FIRST_SEEN)]);
    apart.import_and_sync(&[by(2, FIRST_SEEN)]);
    // A copy and the original in two batches of one sync window.
    let window = World::new();
    window.import(&[op.clone(), by(4, FIRST_SEEN)]);
    window.import(&[by(2, FIRST_SEEN), by(3, FIRST_SEEN)]);
    window.sync();
    for world in [apart, window] {
        assert_eq!(ids(&world.search("quasar")), [2]);
        assert_eq!(
            with_hidden(&world, "quasar"),
            [2, 3, 4],
            "the copies are hidden, not gone"
        );
    }
}

#[test]
fn an_original_seen_again_stays_the_original() {
    // Seen again in a later sync than its copy: it was taken for a copy of its own copy,
    // and two nodes that synced the two observations in one window or two disagreed.
    let (op, by) = copies();
    let world = World::new();
    world.import_and_sync(&[op, by(2, FIRST_SEEN), by(3, FIRST_SEEN)]);
    world.import_and_sync(&[by(2, SEEN_AGAIN)]);
    assert_eq!(ids(&world.search("quasar")), [2]);
}

#[test]
fn a_copy_under_a_takedown_gives_way_to_its_original_too() {
    // The indexes hold posts under a takedown (searches leave them out), so a lifted
    // takedown must find the copy hidden.
    let (op, by) = copies();
    let world = World::new();
    world.import_and_sync(&[op, by(7, FIRST_SEEN)]);
    let now = Millis::now(&SystemClock);
    let takedown = world
        .store
        .add_takedown(TakedownTarget::Post(7), "a complaint", now)
        .expect("the takedown is recorded");
    world.import_and_sync(&[by(5, FIRST_SEEN)]);
    world
        .store
        .lift_takedown(takedown.takedown_id, "resolved", now)
        .expect("the takedown is lifted");
    assert_eq!(ids(&world.search("quasar")), [5]);
}

#[test]
fn an_original_edited_or_moved_away_leaves_the_next_copy_shown() {
    let (op, by) = copies();
    let edited = World::new();
    edited.import_and_sync(&[op.clone(), by(2, FIRST_SEEN), by(3, FIRST_SEEN)]);
    edited.import_and_sync(&[post(
        2,
        1,
        "Edited: I moved everything to a hardware device last week",
        json!({"author": {"profile_id": 3, "username": "copycat"}, "observed_at": SEEN_AGAIN}),
    )]);
    assert_eq!(ids(&edited.search("quasar")), [3]);
    // Duplicates are told apart within one language's index: the original moved to another
    // index is shown there, and the first copy left is shown in its own.
    let moved = World::new();
    moved.import_and_sync(&[op, by(2, FIRST_SEEN), by(3, FIRST_SEEN)]);
    let mut german = serde_json::from_str::<serde_json::Value>(&by(2, SEEN_AGAIN)).unwrap();
    german["language"] = json!("de");
    moved.import_and_sync(&[german.to_string()]);
    let mut shown = ids(&moved.search("quasar"));
    shown.sort_unstable();
    assert_eq!(shown, [2, 3]);
}

/// The opening post and three copies, 2 the original, synced.
fn three_copies() -> World {
    let (op, by) = copies();
    let world = World::new();
    world.import_and_sync(&[op, by(2, FIRST_SEEN), by(3, FIRST_SEEN), by(4, FIRST_SEEN)]);
    world
}

#[test]
fn a_deleted_copy_changes_nothing_else() {
    let world = three_copies();
    world.import_and_sync(&[deletion(3)]);
    assert_eq!(ids(&world.search("quasar")), [2]);
    assert_eq!(with_hidden(&world, "quasar"), [2, 4]);
}

#[test]
fn the_next_copy_is_shown_when_the_original_is_deleted() {
    let world = three_copies();
    world.import_and_sync(&[deletion(2)]);
    assert_eq!(ids(&world.search("quasar")), [3]);
}

#[test]
fn questions_favour_replies_over_the_question() {
    let world = World::new();
    world.import_and_sync(&[
        post(1, 1, "How do I import a private key into electrum? I tried twice.", json!({"is_op": true, "title": "Need help with my wallet"})),
        post(2, 1, "To import a private key in electrum open Wallet, then Private keys, then Import and paste the key.", json!({"author": {"profile_id": 8, "username": "helper"}})),
    ]);
    // Both posts hold every word, close and as typed: one tier, where the score is
    // `points + s / (1 + s)` and the answer boost multiplies `s`.
    let score = |results: &forumdex_search::SearchResults, id: i64| {
        let score = results.hits.iter().find(|h| h.post_id == id).unwrap().score;
        let within = score.fract();
        within / (1.0 - within)
    };
    assert_eq!(
        world.search("import private key electrum").hits[0]
            .score
            .floor(),
        world.search("import private key electrum").hits[1]
            .score
            .floor()
    );
    let plain = world.search("import private key electrum");
    assert!(!plain.answer_seeking);
    let question = world.search("import private key electrum?");
    assert!(question.answer_seeking);
    let before = score(&plain, 2) / score(&plain, 1);
    let after = score(&question, 2) / score(&question, 1);
    assert!(
        (after / before - forumdex_search::search::ANSWER_BOOST).abs() < 1e-2,
        "{before} {after}"
    );
    assert_eq!(
        question.hits[0].post_id,
        2,
        "{:?}",
        question
            .hits
            .iter()
            .map(|h| (h.post_id, h.bm25, h.score))
            .collect::<Vec<_>>()
    );
    assert!(question.hits[0].rank_factors.answer);
}

#[test]
fn equal_scores_are_ordered_by_post_id_and_results_repeat() {
    let world = World::new();
    let lines: Vec<String> = (1..=12)
        .rev()
        .map(|i| {
            post(
                i,
                i,
                "identical words about a cold storage setup",
                json!({"author": {"profile_id": i, "username": format!("u{i}")}}),
            )
        })
        .collect();
    world.import_and_sync(&lines);
    let first = world.search("cold storage");
    assert_eq!(ids(&first), (1..=12).collect::<Vec<_>>());
    assert_eq!(ids(&world.search("cold storage")), ids(&first));
    let hit = &first.hits[0];
    assert_eq!(
        hit.highlight.get("content").unwrap()[0],
        "identical words about a <mark>cold</mark> <mark>storage</mark> setup"
    );
}
