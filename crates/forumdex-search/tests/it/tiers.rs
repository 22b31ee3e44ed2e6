//! Ranking tiers (issue #14): a post holding more of the query's words ranks above one
//! holding fewer, whatever its length, its title or its repetitions; typo neighbours match
//! one tier below exact words; held words are never "corrected".

use serde_json::json;

use forumdex_search::{SearchRequest, SearchResults};

use crate::helpers::{World, filler, ids, post};

/// Searches with low-quality replies kept: these tests use short replies on purpose.
fn search(world: &World, query: &str) -> SearchResults {
    world.run(SearchRequest {
        include_low_quality: true,
        ..SearchRequest::new(query)
    })
}

/// Partial matches built to beat the complete one under plain BM25: a short reply with one
/// word, a reply repeating another, an opening post whose title has a stemmed form of the
/// third; and the complete match, long, in the middle of an ordinary reply.
fn world() -> World {
    let world = World::new();
    let mut lines = filler(
        100,
        50,
        40,
        "ordinary chatter about the price and the weather",
    );
    lines.push(post(1, 1, "Sprouting.", json!({})));
    lines.push(post(
        2,
        1,
        "Hydroponic hydroponic hydroponic hydroponic setups.",
        json!({}),
    ));
    lines.push(post(
        3,
        2,
        "An unrelated opening post about gardens.",
        json!({"is_op": true, "title": "Culture of mushrooms"}),
    ));
    let long = format!(
        "{} I have been culturing sprouting seeds in a hydroponic tray for months. {}",
        "Some words of introduction that go on for a while. ".repeat(30),
        "And more words that say nothing in particular at all. ".repeat(30),
    );
    lines.push(post(4, 3, &long, json!({})));
    world.import_and_sync(&lines);
    world
}

#[test]
fn a_post_holding_every_word_ranks_first() {
    let world = world();
    let results = search(&world, "culturing sprouting hydroponic");
    assert_eq!(ids(&results)[0], 4, "{:?}", ids(&results));
    let hit = &results.hits[0];
    assert!(hit.rank_factors.words);
    assert!(!hit.rank_factors.typo);
    // Every partial match is still found, below.
    for partial in [1, 2, 3] {
        assert!(
            ids(&results).contains(&partial),
            "{partial}: {:?}",
            ids(&results)
        );
    }
    assert!(results.hits[0].score > results.hits[1].score);
}

#[test]
fn scores_fall_along_the_order() {
    let world = world();
    let results = search(&world, "culturing sprouting hydroponic");
    for pair in results.hits.windows(2) {
        assert!(
            pair[0].score >= pair[1].score,
            "{} < {}",
            pair[0].score,
            pair[1].score
        );
    }
}

#[test]
fn words_standing_close_rank_above_words_apart() {
    let world = World::new();
    let far = format!("solar {} panel", "filler words here and there ".repeat(20));
    world.import_and_sync(&[
        post(1, 1, &far, json!({})),
        post(2, 1, "a solar panel on the roof", json!({})),
    ]);
    let results = search(&world, "solar panel");
    assert_eq!(ids(&results), [2, 1]);
    assert!(results.hits[0].rank_factors.proximity);
}

#[test]
fn a_missing_word_matches_its_neighbours_below_exact_matches() {
    let world = World::new();
    let mut lines = filler(
        100,
        50,
        30,
        "the difficulty adjustment keeps blocks near ten minutes",
    );
    lines.push(post(
        1,
        1,
        "My rig hashes with a strange rhythm.",
        json!({}),
    ));
    world.import_and_sync(&lines);
    // `rythm` is held by no post: its neighbour `rhythm` (held by one) is matched.
    let results = search(&world, "strange rythm");
    assert_eq!(ids(&results), [1]);
    assert_eq!(results.corrected_query.as_deref(), Some("strange rhythm"));
    assert!(results.hits[0].rank_factors.typo);
    // A neighbour held by a single post is still suggested.
    let alone = search(&world, "rythm");
    assert_eq!(ids(&alone), [1]);
    assert_eq!(alone.corrected_query.as_deref(), Some("rhythm"));
}

#[test]
fn an_exact_match_ranks_above_a_typo_match_of_the_same_words() {
    let world = World::new();
    world.import_and_sync(&[
        post(1, 1, "cold wallet backups", json!({})),
        post(2, 1, "cold wallets backup", json!({})),
        post(3, 1, "cold walet backups", json!({})),
    ]);
    // `walet` is held (post 3), so it is searched as typed and nothing is corrected.
    let results = search(&world, "cold walet backups");
    assert_eq!(ids(&results)[0], 3);
    assert_eq!(results.corrected_query, None);
    assert_eq!(results.did_you_mean, None);
}

#[test]
fn a_held_rare_word_is_never_corrected() {
    let world = World::new();
    let mut lines = filler(100, 50, 40, "mining pools and mining rigs");
    lines.push(post(1, 1, "minting new blocks of coins", json!({})));
    world.import_and_sync(&lines);
    let results = search(&world, "minting blocks");
    assert_eq!(ids(&results)[0], 1);
    assert_eq!(results.corrected_query, None);
    assert_eq!(results.did_you_mean, None);
}

#[test]
fn when_the_hits_do_not_use_the_neighbour_it_is_only_suggested() {
    let world = World::new();
    let mut lines = filler(100, 50, 30, "an adjustment of the schedule");
    lines.push(post(1, 1, "difficulty rises", json!({})));
    world.import_and_sync(&lines);
    // Thirty posts hold `adjustment` exactly: the first 20 hits are theirs, above the
    // neighbour match of `dificulty`.
    let results = search(&world, "adjustment dificulty");
    assert_eq!(results.hits.len(), 20);
    assert!(results.hits.iter().all(|h| h.post_id != 1));
    assert_eq!(results.corrected_query, None);
    assert_eq!(
        results.did_you_mean.as_deref(),
        Some("adjustment difficulty")
    );
    assert_eq!(results.total, 31);
}

#[test]
fn a_long_post_is_highlighted_where_its_word_stands_after_look_alikes() {
    let world = World::new();
    // "how" and "work" stand only as parts of other words, at the start; "segwit"
    // stands alone far after 1,200 bytes of other text.
    let look_alikes = "however the workers showed their homework ".repeat(10);
    let filler = "the rest of this long post says nothing about it ".repeat(40);
    let text = format!("{look_alikes} {filler} and a note on segwit at the end");
    world.import_and_sync(&[post(1, 1, &text, json!({}))]);
    let results = world.search("how does segwit work?");
    let hit = results
        .hits
        .iter()
        .find(|h| h.post_id == 1)
        .expect("the post is found");
    let content = &hit.highlight["content"][0];
    assert!(content.contains("<mark>segwit</mark>"), "{content}");
}

#[test]
fn a_negation_counts_after_the_words_that_say_what_is_sought() {
    let world = World::new();
    world.import_and_sync(&[
        // Holds "never" and the project, short: the better BM25 if "never" counted as
        // much as "paid".
        post(1, 1, "Ehealth will never stop.", json!({})),
        post(
            2,
            1,
            "The ehealth team paid the rewards to every participant of the campaign.",
            json!({}),
        ),
        post(
            3,
            1,
            "My ehealth rewards were never paid, and the team does not answer.",
            json!({}),
        ),
    ]);
    let results = search(&world, "ehealth never paid");
    assert_eq!(ids(&results), vec![3, 2, 1]);
}

/// Of a query of more than ten distinct words, the common ones give way first: a rare word
/// at its end still counts, and decides.
#[test]
fn a_rare_word_late_in_a_long_query_still_counts() {
    let world = World::new();
    let mut lines = filler(
        100,
        50,
        120,
        "ordinary chatter about the price and the weather",
    );
    lines.push(post(1, 1, "Zucchini grow fast in spring.", json!({})));
    world.import_and_sync(&lines);
    // 11 distinct words, 7 of them common (in 120 of the 121 posts); "chatter" gives way.
    let found = search(
        &world,
        "what about the price and the weather with ordinary chatter on zucchini",
    );
    assert_eq!(ids(&found).first(), Some(&1), "{:?}", ids(&found));
}
