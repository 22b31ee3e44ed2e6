//! One index per language: each finds its posts with its own analysis.

use serde_json::json;

use crate::helpers::{World, ids, post};

fn world() -> World {
    let world = World::new();
    world.import_and_sync(&[
        post(
            1,
            1,
            "The miners were mining blocks all night",
            json!({"language": "en"}),
        ),
        post(
            2,
            2,
            "Майнеры добывали биткоины всю ночь",
            json!({"language": "ru"}),
        ),
        post(
            3,
            3,
            "Die Größe der Blöcke und die Gebühren der Transaktionen",
            json!({"language": "de"}),
        ),
        post(
            4,
            4,
            "比特币挖矿的难度越来越高了",
            json!({"language": "zh"}),
        ),
        post(
            5,
            5,
            "Os mineradores estão minerando bitcoins",
            json!({"language": "pt"}),
        ),
        post(6, 6, "mining rig for sale cheap", json!({"language": null})),
    ]);
    world
}

#[test]
fn each_language_index_finds_its_posts() {
    let world = world();
    assert_eq!(
        ids(&world.search_lang("mined", "en")),
        [1],
        "english stemming"
    );
    assert_eq!(
        ids(&world.search_lang("биткоин", "ru")),
        [2],
        "russian stemming"
    );
    assert_eq!(
        ids(&world.search_lang("grosse Gebühr", "de")),
        [3],
        "german folding"
    );
    assert_eq!(
        ids(&world.search_lang("挖矿", "zh")),
        [4],
        "chinese bigrams"
    );
    assert_eq!(
        ids(&world.search_lang("minerando", "pt-BR")),
        [5],
        "region suffix"
    );
    let counts = world.indexes.doc_counts();
    for key in ["en", "ru", "de", "zh", "pt", "und"] {
        assert_eq!(counts.get(key), Some(&1), "{key}");
    }
}

#[test]
fn lang_selects_one_index_and_no_lang_searches_all() {
    let world = world();
    assert!(world.search_lang("mining", "ru").hits.is_empty());
    let none = world.search_lang("mining", "ja");
    assert_eq!(
        (none.total, none.index.as_str(), none.lang.as_str()),
        (0, "ja", "ja")
    );
    let all = world.search("mining");
    let mut got = ids(&all);
    got.sort();
    assert_eq!(got, [1, 6]);
    assert_eq!(all.lang, "all");
    let undetermined = all.hits.iter().find(|h| h.post_id == 6).unwrap();
    assert_eq!(
        (
            undetermined.lang.as_str(),
            undetermined.search_index.as_str()
        ),
        ("und", "und")
    );
}
