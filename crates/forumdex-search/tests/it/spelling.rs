//! Spelling correction from the index's own dictionary.

use serde_json::json;

use crate::helpers::{World, filler, post};

fn world() -> World {
    let world = World::new();
    let mut lines = filler(
        100,
        50,
        20,
        "the difficulty adjustment keeps blocks near ten minutes",
    );
    lines.extend(filler(
        200,
        51,
        4,
        "my transaction is unconfirmed since yesterday",
    ));
    lines.push(post(
        1,
        1,
        "Why did the mining difficulty jump so much after the retarget?",
        json!({"is_op": true, "title": "difficulty jump"}),
    ));
    world.import_and_sync(&lines);
    world
}

#[test]
fn a_one_edit_misspelling_is_corrected() {
    let world = world();
    let results = world.search("dificulty");
    assert_eq!(results.corrected_query.as_deref(), Some("difficulty"));
    assert!(results.total >= 20);
    assert!(results.hits.iter().any(|h| h.post_id == 1));
    let swapped = world.search("mining difficutly");
    assert_eq!(
        swapped.corrected_query.as_deref(),
        Some("mining difficulty")
    );
    let longer = world.search("unconfrimed transaction");
    assert_eq!(
        longer.corrected_query.as_deref(),
        Some("unconfirmed transaction")
    );
}

#[test]
fn correct_queries_are_left_alone() {
    let world = world();
    let results = world.search("difficulty");
    assert_eq!(results.corrected_query, None);
    assert_eq!(results.did_you_mean, None);
}

#[test]
fn a_typo_beside_a_held_word_is_matched_and_corrected() {
    let world = world();
    // The posts holding both words come first, one through the neighbour of `dificulty`,
    // so the results use the correction.
    let results = world.search("adjustment dificulty");
    assert_eq!(
        results.corrected_query.as_deref(),
        Some("adjustment difficulty")
    );
    assert_eq!(results.did_you_mean, None);
    assert!(results.total >= 20);
    assert!(results.hits.iter().all(|h| h.rank_factors.typo));
}

#[test]
fn a_typo_of_the_first_letter_finds_its_word_over_rarer_same_letter_ones() {
    let world = World::new();
    let mut lines = filler(100, 50, 20, "the difficulty adjustment keeps blocks steady");
    // `tifficulty` is one edit from both; the one of another first letter is more frequent.
    lines.extend(filler(300, 51, 2, "a tiffficulty of mine"));
    world.import_and_sync(&lines);
    for (typo, word) in [
        ("tifficulty", "difficulty"),
        ("ifficulty", "difficulty"),
        ("idfficulty", "difficulty"),
        ("adifficulty", "difficulty"),
    ] {
        let results = world.search(typo);
        assert_eq!(results.corrected_query.as_deref(), Some(word), "{typo}");
        assert!(results.total >= 20, "{typo}");
    }
}

#[test]
fn a_typo_is_corrected_in_the_language_the_other_words_speak() {
    let world = World::new();
    let lines: Vec<String> = (0..60)
        .map(|i| {
            post(
                1_000 + i,
                60,
                &format!("these pages of the manual explain the wallet, reply {i}"),
                json!({"author": {"profile_id": 100 + i, "username": format!("en{i}")}}),
            )
        })
        .chain((0..20).map(|i| {
            post(
                2_000 + i,
                61,
                &format!("cuando pagan el bounty a los participantes, respuesta {i}"),
                json!({
                    "language": "es",
                    "author": {"profile_id": 300 + i, "username": format!("es{i}")},
                }),
            )
        }))
        .collect();
    world.import_and_sync(&lines);
    // `pagen` is one edit from the English `pages` (60 posts) and the Spanish `pagan` (20):
    // the query's other words are Spanish, so is the suggestion (`did_you_mean` here: the
    // Spanish stemmer already matches `pagen` with `pagan`).
    let suggestion = |q: &str| {
        let results = world.search(q);
        results.corrected_query.or(results.did_you_mean)
    };
    assert_eq!(
        suggestion("cuando pagen el bounty").as_deref(),
        Some("cuando pagan el bounty")
    );
    let spanish = world.search("cuando pagen el bounty");
    assert!(!spanish.hits.is_empty());
    assert!(spanish.hits.iter().all(|h| h.lang == "es"));
    // Beside an English word the same typo is the English word.
    assert_eq!(suggestion("manual pagen").as_deref(), Some("manual pages"));
    // Alone it has no language: the most frequent neighbour of every index.
    assert_eq!(suggestion("pagen").as_deref(), Some("pages"));
}
