//! The semantic leg with a small model of fixed vectors: what it finds that words do not,
//! how it is fused with the lexical leg, that every filter applies to its hits, and that
//! post vectors are kept beside the index.

use std::sync::Arc;

use forumdex_corpus::{TakedownSet, VectorStore};
use forumdex_search::SearchRequest;
use forumdex_search::semantic::{Semantic, SemanticModel, generation, model};
use forumdex_search::{SearchIndexes, search};
use forumdex_sqlite::SqliteVectorStore;
use serde_json::json;

use crate::helpers::{World, ids, post};

/// Words of three meanings: money paid (English and Russian), lateness, a wallet.
fn tiny_model() -> SemanticModel {
    let money = vec![1.0, 0.0, 0.0, 0.0];
    let late = vec![0.0, 1.0, 0.0, 0.0];
    let wallet = vec![0.0, 0.0, 1.0, 0.0];
    let other = vec![0.0, 0.0, 0.0, 1.0];
    let file = model::encode(
        &[
            "payout",
            "payment",
            "выплата",
            "late",
            "delayed",
            "wallet",
            "кошелек",
            "mining",
        ],
        &[
            money.clone(),
            money.clone(),
            money,
            late.clone(),
            late,
            wallet.clone(),
            wallet,
            other,
        ],
    );
    SemanticModel::from_bytes(&file).expect("a valid model")
}

fn attach(world: &World) -> Arc<Semantic> {
    attach_model(world, tiny_model())
}

/// Embeds `world`'s posts with `model` and gives its searches the semantic leg.
fn attach_model(world: &World, model: SemanticModel) -> Arc<Semantic> {
    let semantic = Arc::new(Semantic::new(model, world.dir.path()));
    semantic
        .embed_missing(&world.indexes, &mut |_| {})
        .expect("the posts embed");
    world.indexes.attach_semantic(Arc::clone(&semantic));
    semantic
}

fn world() -> World {
    let world = World::new();
    world.import_and_sync(&[
        post(1, 1, "The bounty payout came late again", json!({})),
        post(2, 2, "Mining at home with a small rig", json!({})),
        post(
            3,
            3,
            "Выплата задерживается уже неделю",
            json!({"language": "ru"}),
        ),
        post(
            4,
            4,
            "My wallet shows the payout <img src=\"https://img.example/w.png\">",
            json!({"author": {"profile_id": 9, "username": "holder"}}),
        ),
    ]);
    world
}

#[test]
fn a_question_in_other_words_finds_the_post_and_says_it_is_hybrid() {
    let world = world();
    let lexical = world.search("is the payment delayed for everyone");
    assert!(!lexical.hybrid);
    assert!(ids(&lexical).is_empty(), "{:?}", ids(&lexical));
    attach(&world);
    let results = world.search("is the payment delayed for everyone");
    assert!(results.hybrid);
    assert_eq!(
        ids(&results)[..2],
        [1, 3],
        "late payouts, English then Russian"
    );
    let hit = &results.hits[0];
    assert!(hit.rank_factors.semantic);
    assert!(hit.score > results.hits[1].score);
    assert!(
        hit.ranking_model_version.starts_with("fdx-rank-5+fdxsem1-")
            && hit.ranking_model_version.ends_with("+rrf60-8"),
        "{}",
        hit.ranking_model_version
    );
    assert_eq!(results.total, results.hits.len() as u64);
}

#[test]
fn a_short_query_with_enough_complete_matches_stays_lexical() {
    let world = world();
    attach(&world);
    let mut request = SearchRequest::new("payout");
    request.limit = 2;
    let results = world.run(request);
    assert!(!results.hybrid, "two posts hold the word: the fast path");
    let mut found = ids(&results);
    found.sort_unstable();
    assert_eq!(found, [1, 4]);
    assert!(results.hits.iter().all(|h| !h.rank_factors.semantic));
    assert_eq!(results.hits[0].ranking_model_version, "fdx-rank-5");
}

#[test]
fn complete_lexical_matches_stay_first() {
    let world = world();
    world.import_and_sync(&[post(
        8,
        8,
        "Mining payout shows late: wallet wallet wallet wallet wallet",
        json!({}),
    )]);
    attach(&world);
    // Post 8 holds every word, but its vector is mostly "wallet": the semantic leg prefers
    // post 1 (a payout that came late), and the fusion keeps post 8 first all the same.
    let query = "shows payout late mining";
    let results = world.search(query);
    assert!(results.hybrid);
    let found = ids(&results);
    assert_eq!(found[..2], [8, 1], "{found:?}");
    assert!(
        results.hits[0].score > 1.0,
        "a tier score, above every fused one"
    );
    assert!(results.hits[1].score < 1.0 && results.hits[1].rank_factors.semantic);
}

/// The opening post (20) of the thread "[ANN] Ripaex exchange".
fn ripaex_announcement() -> String {
    post(
        20,
        20,
        "The exchange opens in May",
        json!({"is_op": true, "title": "[ANN] Ripaex exchange"}),
    )
}

#[test]
fn the_thread_a_query_names_comes_before_other_threads() {
    let world = world();
    world.import_and_sync(&[
        ripaex_announcement(),
        post(21, 20, "The payout is delayed, mining too", json!({})),
        post(30, 30, "Payment delayed", json!({})),
    ]);
    attach(&world);
    // Without a name, the post nearest the question leads.
    let unnamed = world.search("is the payment delayed?");
    assert!(unnamed.hybrid);
    assert_eq!(ids(&unnamed)[0], 30, "{:?}", ids(&unnamed));
    // "Ripaex" is in one topic's title: that thread's posts come first, the one the
    // semantic leg also found (21) before the one only the words found (20).
    let named = world.search("is the ripaex payment delayed?");
    assert!(named.hybrid);
    let found = ids(&named);
    assert_eq!(found[..3], [21, 20, 30], "{found:?}");
    assert!(named.hits[0].score > named.hits[1].score);
    assert!(named.hits[1].score > named.hits[2].score);
}

#[test]
fn a_named_threads_complete_matches_come_before_other_threads_unless_those_hold_the_query_whole() {
    let world = world();
    world.import_and_sync(&[
        ripaex_announcement(),
        // Every word, one by its stem only and apart: a worse tier than 40's.
        post(
            21,
            20,
            "The payouts, as the team of ripaex wrote in its last update, were delayed by a week.",
            json!({}),
        ),
        post(22, 20, "ripaex wallet", json!({})),
        post(23, 20, "ripaex mining", json!({})),
        // Another project's announcement that mentions the named one in passing.
        post(
            40,
            40,
            "Ripaex payout? Not ours. Our own token sale, by the way, was delayed.",
            json!({"is_op": true, "title": "[ANN] Other token"}),
        ),
        // Another thread's post that holds the query whole.
        post(
            50,
            50,
            "Ripaex payout delayed again, says the news.",
            json!({}),
        ),
    ]);
    let query = "ripaex payout delayed?";
    let lexical = ids(&world.search(query));
    assert_eq!(lexical[..3], [50, 40, 21], "by tier alone: {lexical:?}");
    attach(&world);
    let results = world.search(query);
    assert!(results.hybrid);
    let found = ids(&results);
    assert_eq!(found[..3], [50, 21, 40], "{found:?}");
    for pair in results.hits.windows(2) {
        assert!(pair[0].score >= pair[1].score, "{found:?}");
    }
}

#[test]
fn two_words_name_a_thread_together_as_a_phrase_or_written_as_one() {
    let world = world();
    let mut lines = vec![
        post(
            70,
            70,
            "We sell mining rigs",
            json!({"is_op": true, "title": "[ANN] Ice Rock Mining"}),
        ),
        post(71, 70, "Ice Rock: my payout came late", json!({})),
        post(
            90,
            90,
            "A broker for everyone",
            json!({"is_op": true, "title": "[ANN] INDIGODMA broker"}),
        ),
        post(91, 90, "The payout came late here", json!({})),
        post(80, 80, "Payout late, and late again", json!({})),
    ];
    // "ice" and "rock" are each in four titles: neither names a thread alone.
    for (at, title) in [
        "Ice cream",
        "Ice age",
        "Ice hockey",
        "Rock music",
        "Rock solid",
        "Rock bottom",
    ]
    .iter()
    .enumerate()
    {
        let id = 100 + at as i64;
        lines.push(post(
            id,
            id,
            "Mining",
            json!({"is_op": true, "title": title}),
        ));
    }
    world.import_and_sync(&lines);
    attach(&world);
    let results = world.search("ice rock payout late again?");
    assert!(results.hybrid);
    assert_eq!(ids(&results)[0], 71, "{:?}", ids(&results));
    assert!(results.hits[0].score > 1.0, "a named thread's post");
    let results = world.search("indigo dma payout late again?");
    assert_eq!(ids(&results)[0], 91, "{:?}", ids(&results));
    assert!(results.hits[0].score > 1.0, "a named thread's post");
    // Without a name, the nearest post of any thread leads.
    assert_eq!(ids(&world.search("payout late again?"))[0], 80);
}

#[test]
fn within_a_named_thread_the_rest_of_the_query_picks_the_post() {
    // Five meanings: money, lateness, a wallet, mining, and the project's name.
    let model = axis_model(&[
        ("payout", 0),
        ("delayed", 1),
        ("wallet", 2),
        ("mining", 3),
        ("ripaex", 4),
    ]);
    let world = World::new();
    world.import_and_sync(&[
        post(
            40,
            40,
            "The exchange opens in May",
            json!({"is_op": true, "title": "[ANN] Ripaex exchange"}),
        ),
        post(41, 40, "Ripaex, Ripaex!", json!({})),
        post(
            42,
            40,
            "The payout is delayed, mining mining mining",
            json!({}),
        ),
    ]);
    attach_model(&world, model);
    // The whole query is nearer the reply that only says the name (cosine 0.58) than the
    // one that answers (0.5), and each leg has one of them first. Without "ripaex", which
    // names the thread, the question is about a delayed payout: the answer leads.
    let found = world.search("is the ripaex payout delayed?");
    assert!(found.hybrid);
    assert_eq!(ids(&found)[0], 42, "{:?}", ids(&found));
}

#[test]
fn a_named_threads_opening_post_comes_up_unless_the_query_asks_how_things_stand() {
    // Four meanings: farming, a wallet, mining, and the project's name.
    let model = axis_model(&[
        ("farmers", 0),
        ("harvests", 0),
        ("wallet", 1),
        ("mining", 2),
        ("gric", 3),
    ]);
    let world = World::new();
    world.import_and_sync(&[
        post(
            60,
            60,
            "Gric is a coin that funds farmers and their harvests. Wallet, mining pool.",
            json!({"is_op": true, "title": "[ANN] Gric coin", "posted_at": "2018-01-01T00:00:00Z"}),
        ),
        post(
            61,
            60,
            "So Gric helps farmers with harvests, great",
            json!({"posted_at": "2018-02-01T00:00:00Z"}),
        ),
        post(
            62,
            60,
            "Farmers got their harvests funded last week",
            json!({"posted_at": "2018-03-01T00:00:00Z"}),
        ),
    ]);
    attach_model(&world, model);
    // The replies are nearer the question than the opening post (which is also about a
    // wallet and mining), and shorter for the words; the opening post says what the
    // project does, and leads.
    let found = world.search("does gric fund farmers' harvests?");
    assert!(found.hybrid);
    assert_eq!(ids(&found)[0], 60, "{:?}", ids(&found));
    // Asked how things stand, the later word leads instead.
    let found = world.search("did gric fund farmers' harvests already?");
    assert!(found.hybrid);
    assert_ne!(ids(&found)[0], 60, "{:?}", ids(&found));
}

#[test]
fn a_near_duplicate_of_a_post_before_it_goes_down() {
    let world = World::new();
    world.import_and_sync(&[
        post(
            50,
            50,
            "The payout came late, sent yesterday to all of us",
            json!({}),
        ),
        post(
            51,
            51,
            "Hi! The payout came late, sent yesterday to all of us",
            json!({}),
        ),
        post(
            52,
            52,
            "Payout still late, my wallet shows nothing",
            json!({}),
        ),
    ]);
    attach(&world);
    // 50 and 51 are as near the question, 52 less; 51 says what 50 said.
    let found = world.search("is the payment delayed?");
    assert!(found.hybrid);
    assert_eq!(ids(&found), [50, 52, 51], "{:?}", ids(&found));
    assert_eq!(
        found.total, 3,
        "a near duplicate goes down, it is not left out"
    );
}

#[test]
fn answers_come_before_questions_and_report_forms() {
    let world = World::new();
    world.import_and_sync(&[
        post(5, 5, "Is the payout late?", json!({})),
        post(6, 6, "The payout came late, sent yesterday", json!({})),
        post(
            7,
            7,
            "Proof of authentication. Username: miner. Payout late",
            json!({}),
        ),
    ]);
    attach(&world);
    // The three are as near the question; the answer comes first, then the question,
    // which answers a statement but not a question, and the report form last.
    let asked = world.search("is the payment delayed?");
    assert!(asked.hybrid && asked.answer_seeking);
    assert_eq!(ids(&asked), [6, 5, 7], "{:?}", ids(&asked));
    let stated = world.search("payment delayed for everyone");
    assert!(stated.hybrid && !stated.answer_seeking);
    assert_eq!(ids(&stated)[2], 7, "{:?}", ids(&stated));
}

#[test]
fn filters_apply_to_semantic_hits() {
    let world = world();
    attach(&world);
    let query = "when will the delayed payment arrive";
    let mut request = SearchRequest::new(query);
    request.exclude = TakedownSet {
        posts: vec![1],
        topics: vec![],
        profiles: vec![],
    };
    assert!(!ids(&world.run(request)).contains(&1), "a takedown");
    let mut request = SearchRequest::new(query);
    request.images_only = true;
    assert_eq!(ids(&world.run(request)), [4], "image search");
    let mut request = SearchRequest::new(query);
    request.lang = Some(forumdex_corpus::LangCode::parse("ru").expect("a code"));
    assert_eq!(ids(&world.run(request)), [3], "one language's index");
    world.import_and_sync(&[post(
        1,
        1,
        "",
        json!({"deleted": true, "observed_at": "2024-04-01T12:00:00Z"}),
    )]);
    assert!(!ids(&world.search(query)).contains(&1), "a deleted post");
}

#[test]
fn vectors_are_kept_beside_the_index_and_follow_new_segments() {
    let world = world();
    let first = Semantic::new(tiny_model(), world.dir.path());
    let coverage = first.coverage(&world.indexes);
    assert_eq!((coverage.docs, coverage.embedded), (4, 0));
    let report = first.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert!(
        report.segments_embedded >= 1 && report.docs_embedded >= 4,
        "{report:?}"
    );
    assert_eq!(first.coverage(&world.indexes).embedded, 4);

    // A restart reads the tables instead of embedding again.
    let again = Semantic::new(tiny_model(), world.dir.path());
    let report = again.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(report.docs_embedded, 0, "{report:?}");
    assert_eq!(report.segments_loaded, first_segments(&first, &world));
    assert_eq!(again.coverage(&world.indexes).share(), 1.0);

    // A new post is a new segment (merged with others, perhaps): covered by the next pass.
    world.import_and_sync(&[post(5, 5, "late payout", json!({}))]);
    let coverage = again.coverage(&world.indexes);
    assert_eq!(coverage.docs, 5);
    assert!(coverage.embedded < 5, "{coverage:?}");
    let report = again.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert!(report.docs_embedded >= 1, "{report:?}");
    assert_eq!(again.coverage(&world.indexes).embedded, 5);
}

#[test]
fn a_damaged_table_or_another_models_table_is_made_again() {
    let world = world();
    let semantic = Semantic::new(tiny_model(), world.dir.path());
    semantic.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    let folders = vector_folders(&world);
    let table = std::fs::read_dir(&folders[0])
        .unwrap()
        .flatten()
        .next()
        .unwrap();
    let bytes = std::fs::read(table.path()).unwrap();
    std::fs::write(table.path(), &bytes[..bytes.len() / 2]).unwrap();
    let reopened = Semantic::new(tiny_model(), world.dir.path());
    let report = reopened.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(report.segments_embedded, 1, "the cut table: {report:?}");

    // A folder whose model was never recorded (made before models were): its tables of
    // another model cannot serve.
    std::fs::remove_file(world.dir.path().join("search").join(generation::MODEL_FILE)).unwrap();
    let other = SemanticModel::from_bytes(&model::encode(&["payout"], &[vec![1.0, 0.5, 0.0, 0.0]]))
        .unwrap();
    let other = Semantic::new(other, world.dir.path());
    let report = other.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        report.segments_loaded, 0,
        "tables of another model: {report:?}"
    );
}

/// [`tiny_model`] with its dimensions in another order: the same meanings, another model.
fn reordered_model() -> SemanticModel {
    axis_model(&[
        ("payout", 3),
        ("payment", 3),
        ("выплата", 3),
        ("late", 2),
        ("delayed", 2),
        ("wallet", 1),
        ("кошелек", 1),
        ("mining", 0),
    ])
}

/// A model whose every word is a unit vector along its axis (words on one axis mean one
/// thing), with as many dimensions as the largest axis needs.
fn axis_model(words: &[(&str, usize)]) -> SemanticModel {
    let dims = words.iter().map(|&(_, axis)| axis + 1).max().unwrap_or(1);
    let rows: Vec<Vec<f32>> = words
        .iter()
        .map(|&(_, axis)| {
            (0..dims)
                .map(|i| if i == axis { 1.0 } else { 0.0 })
                .collect()
        })
        .collect();
    let names: Vec<&str> = words.iter().map(|&(word, _)| word).collect();
    SemanticModel::from_bytes(&model::encode(&names, &rows)).expect("a valid model")
}

/// The names of the table files of every index.
fn table_files(world: &World) -> Vec<String> {
    let mut names: Vec<String> = vector_folders(world)
        .iter()
        .flat_map(|folder| std::fs::read_dir(folder).unwrap().flatten())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_model_change_keeps_the_earlier_vectors_serving_until_the_new_ones_are_made() {
    let world = world();
    attach(&world);
    let (earlier, new) = (tiny_model(), reordered_model());
    let record = world.dir.path().join("search").join(generation::MODEL_FILE);
    assert_eq!(
        SemanticModel::open(&record).unwrap().version(),
        earlier.version(),
        "the folder records the model its vectors were made with"
    );
    let tables = table_files(&world);
    assert!(!tables.is_empty());
    assert!(
        tables.iter().all(|t| t.contains(earlier.version())),
        "{tables:?}"
    );

    // The node restarts with another model.
    let indexes = SearchIndexes::open(world.dir.path()).unwrap();
    let semantic = Arc::new(Semantic::new(reordered_model(), world.dir.path()));
    indexes.attach_semantic(Arc::clone(&semantic));
    assert_eq!(semantic.serving().model().version(), earlier.version());
    let change = semantic.change(&indexes).expect("a change under way");
    assert_eq!(change.model, new.version());
    assert_eq!(change.coverage.embedded, 0);
    let query = SearchRequest::new("is the payment delayed for everyone");
    let mut while_made = Vec::new();
    let report = semantic
        .embed_missing(&indexes, &mut |_| {
            let results = search(&indexes, &query).unwrap();
            while_made.push((
                results.hybrid,
                results.hits[0].post_id,
                results.hits[0].ranking_model_version.clone(),
            ));
        })
        .unwrap();
    assert_eq!(report.segments_loaded as usize, tables.len(), "{report:?}");
    assert_eq!(
        report.segments_embedded as usize,
        tables.len(),
        "{report:?}"
    );
    assert_eq!(while_made.len(), tables.len());
    for (hybrid, first, version) in &while_made {
        assert!(
            hybrid,
            "the earlier vectors serve while the new ones are made"
        );
        assert_eq!(*first, 1);
        assert!(version.contains(earlier.version()), "{version}");
    }

    // Made for every segment: the new model serves, and the earlier one's files are gone.
    assert!(semantic.change(&indexes).is_none());
    assert_eq!(semantic.serving().model().version(), new.version());
    assert_eq!(semantic.coverage(&indexes).share(), 1.0);
    let results = search(&indexes, &query).unwrap();
    assert!(results.hybrid);
    assert_eq!(results.hits[0].post_id, 1);
    assert!(
        results.hits[0]
            .ranking_model_version
            .contains(new.version())
    );
    assert_eq!(
        SemanticModel::open(&record).unwrap().version(),
        new.version()
    );
    let after = table_files(&world);
    assert_eq!(after.len(), tables.len());
    assert!(after.iter().all(|t| t.contains(new.version())), "{after:?}");

    // A restart with the new model reads its tables: nothing is embedded again.
    let again = Semantic::new(reordered_model(), world.dir.path());
    assert!(again.change(&indexes).is_none());
    let report = again.embed_missing(&indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.segments_embedded, report.segments_loaded as usize),
        (0, tables.len())
    );
}

#[test]
fn a_folder_that_cannot_take_the_recorded_model_still_embeds_and_serves() {
    let world = world();
    // A folder where the model's file should go: the rename onto it fails.
    let record = world.dir.path().join("search").join(generation::MODEL_FILE);
    std::fs::create_dir_all(record.join("in-the-way")).unwrap();
    let semantic = Semantic::new(tiny_model(), world.dir.path());
    let report = semantic.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert!(report.segments_embedded >= 1, "{report:?}");
    assert_eq!(semantic.coverage(&world.indexes).share(), 1.0);
    assert!(record.is_dir());
}

#[test]
fn tables_named_before_models_were_recorded_are_kept_when_their_model_serves() {
    let world = world();
    attach(&world);
    let record = world.dir.path().join("search").join(generation::MODEL_FILE);
    let unname = |world: &World| {
        for folder in vector_folders(world) {
            for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let segment = name.split('.').next().unwrap();
                std::fs::rename(entry.path(), folder.join(format!("{segment}.fdxvec"))).unwrap();
            }
        }
        let _ = std::fs::remove_file(&record);
    };
    let tables = table_files(&world);
    unname(&world);

    let same = Semantic::new(tiny_model(), world.dir.path());
    let report = same.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.segments_embedded, report.segments_loaded as usize),
        (0, tables.len())
    );
    assert_eq!(table_files(&world), tables, "named by their model again");
    assert!(record.is_file());

    // Another model's unnamed tables, with no record of the model: made again.
    unname(&world);
    let other = Semantic::new(reordered_model(), world.dir.path());
    let report = other.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.segments_embedded as usize, report.segments_loaded),
        (tables.len(), 0)
    );
    let after = table_files(&world);
    assert!(
        after
            .iter()
            .all(|t| t.contains(reordered_model().version())),
        "{after:?}"
    );
}

/// The folders of post vector tables (`search/<lang>/semantic/`) that exist.
fn vector_folders(world: &World) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(world.dir.path().join("search"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("semantic"))
        .filter(|p| p.is_dir())
        .collect()
}

fn first_segments(semantic: &Semantic, world: &World) -> u64 {
    world
        .indexes
        .all()
        .iter()
        .map(|index| {
            index
                .reader
                .searcher()
                .segment_readers()
                .iter()
                .filter(|s| {
                    semantic
                        .serving()
                        .table(&index.key, s.segment_id())
                        .is_some()
                })
                .count() as u64
        })
        .sum()
}

#[test]
fn a_node_seeded_with_a_copy_of_the_indexes_gets_their_vectors_too() {
    let world = world();
    let source = Semantic::new(tiny_model(), world.dir.path());
    source.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    let node = tempfile::tempdir().unwrap();
    forumdex_search::SearchIndexes::seed_from(world.dir.path(), node.path()).unwrap();
    let indexes = forumdex_search::SearchIndexes::open(node.path()).unwrap();
    let copy = Semantic::new(tiny_model(), node.path());
    let report = copy.embed_missing(&indexes, &mut |_| {}).unwrap();
    assert_eq!(report.docs_embedded, 0, "{report:?}");
    assert!(report.segments_loaded >= 2, "{report:?}");
    assert_eq!(copy.coverage(&indexes).embedded, 4);

    // A node seeded to run another model serves the source's vectors until its own are made.
    let other = tempfile::tempdir().unwrap();
    forumdex_search::SearchIndexes::seed_from(world.dir.path(), other.path()).unwrap();
    let indexes = forumdex_search::SearchIndexes::open(other.path()).unwrap();
    let changing = Semantic::new(reordered_model(), other.path());
    assert_eq!(changing.serving().model().version(), tiny_model().version());
    assert!(changing.change(&indexes).is_some());
}

/// Two nodes with their own indexes of one corpus and one vector store (as on PostgreSQL):
/// the second reads every vector the first made and embeds none, and an edited post is
/// embedded once more, by the node that meets it first.
#[test]
fn nodes_sharing_a_vector_store_embed_each_post_once() {
    let world = world();
    let shared = tempfile::tempdir().unwrap();
    let store: Arc<dyn VectorStore> = Arc::new(SqliteVectorStore::open_in(shared.path()).unwrap());
    let first =
        Arc::new(Semantic::new(tiny_model(), world.dir.path()).with_store(Arc::clone(&store)));
    let report = first.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.docs_embedded, report.docs_from_store),
        (4, 0),
        "{report:?}"
    );

    let node = tempfile::tempdir().unwrap();
    let indexes = forumdex_search::SearchIndexes::open(node.path()).unwrap();
    indexes.sync(&world.store).unwrap();
    let second = Arc::new(Semantic::new(tiny_model(), node.path()).with_store(Arc::clone(&store)));
    let report = second.embed_missing(&indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.docs_embedded, report.docs_from_store),
        (4, 4),
        "every vector read, none made: {report:?}"
    );
    // An edit that changes the text is a new vector: made by the first node, read by the
    // second.
    world.import(&[post(
        1,
        1,
        "The bounty payment arrived late, then it was paid",
        json!({"observed_at": "2024-05-01T12:00:00Z"}),
    )]);
    world.sync();
    indexes.sync(&world.store).unwrap();
    let report = first.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        report.docs_embedded - report.docs_from_store,
        1,
        "only the edited post is embedded: {report:?}"
    );
    let report = second.embed_missing(&indexes, &mut |_| {}).unwrap();
    assert!(report.docs_embedded >= 1, "{report:?}");
    assert_eq!(report.docs_from_store, report.docs_embedded, "{report:?}");

    // The vectors read are the ones the first node made: both rank alike.
    world.indexes.attach_semantic(Arc::clone(&first));
    indexes.attach_semantic(Arc::clone(&second));
    let query = "is the payment delayed for everyone";
    let here = world.search(query);
    let there = forumdex_search::search(&indexes, &SearchRequest::new(query)).unwrap();
    assert!(here.hybrid && there.hybrid);
    assert_eq!(ids(&here), ids(&there));
    let scores = |r: &forumdex_search::SearchResults| -> Vec<f64> {
        r.hits.iter().map(|hit| hit.score).collect()
    };
    assert_eq!(scores(&here), scores(&there));
}

/// A vector store that fails (its file is not a database) never stops the embedding: the
/// node embeds its posts itself, and says so.
#[test]
fn a_failing_vector_store_leaves_the_node_embedding_alone() {
    let world = world();
    let shared = tempfile::tempdir().unwrap();
    let store = SqliteVectorStore::open_in(shared.path()).unwrap();
    std::fs::write(store.path(), vec![7u8; 8192]).unwrap();
    let semantic = Semantic::new(tiny_model(), world.dir.path()).with_store(Arc::new(store));
    let report = semantic.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    assert_eq!(
        (report.docs_embedded, report.docs_from_store),
        (4, 0),
        "{report:?}"
    );
    assert_eq!(semantic.coverage(&world.indexes).share(), 1.0);
}

/// The model this source tree ships, on a few posts: a Russian question finds the English
/// post that answers it, and an English question in other words finds its post.
#[test]
fn the_bundled_model_answers_across_languages_and_in_other_words() {
    let world = World::new();
    world.import_and_sync(&[
        post(
            1,
            1,
            "Bounty rewards have been distributed to all participants, check your wallets",
            json!({}),
        ),
        post(
            2,
            2,
            "New mining rig with six graphics cards: hashrate and power draw inside",
            json!({}),
        ),
        post(
            3,
            3,
            "Our token will be listed on a big exchange next month",
            json!({}),
        ),
        post(
            4,
            4,
            "Nice weather today, going fishing with friends",
            json!({}),
        ),
    ]);
    let model = SemanticModel::open(&forumdex_search::semantic::bundled_model_path())
        .expect("the bundled model is in the source tree");
    let semantic = Arc::new(Semantic::new(model, world.dir.path()));
    semantic.embed_missing(&world.indexes, &mut |_| {}).unwrap();
    world.indexes.attach_semantic(semantic);
    for query in [
        "когда будут выплаты участникам баунти?",
        "did the campaign hunters get paid",
        "когда листинг монеты на бирже?",
    ] {
        let results = world.search(query);
        assert!(results.hybrid, "{query}");
        let expected = if query.contains("листинг") {
            3
        } else {
            1
        };
        assert_eq!(ids(&results)[0], expected, "{query}: {:?}", ids(&results));
    }
}

/// The bundled model embeds as the Python reference that made it does (`semantic-model/
/// embed.py fdxsem1.bin TEXT` printed these first 8 components, rounded to 4 decimals).
#[test]
fn the_bundled_model_embeds_as_its_reference_does() {
    let model = SemanticModel::open(&forumdex_search::semantic::bundled_model_path())
        .expect("the bundled model is in the source tree");
    let cases: [(&str, [f32; 8]); 2] = [
        (
            "Дoбpый день, когда выплата? Bounty rewards were distributed",
            [
                0.1096, 0.0874, -0.0932, -0.1144, 0.0075, 0.1404, 0.0175, 0.0557,
            ],
        ),
        (
            "did the campaign hunters get paid",
            [
                0.1371, 0.0713, -0.1175, 0.0718, -0.1077, 0.0256, 0.0198, 0.0750,
            ],
        ),
    ];
    for (text, expected) in cases {
        let unit = model.embed(text).expect("known words");
        for (at, (got, want)) in unit.iter().zip(expected).enumerate() {
            assert!((got - want).abs() < 2e-4, "{text:?}[{at}]: {got} vs {want}");
        }
    }
}

/// The sync and the background job (or `forumdex embed` beside a server) may embed the same
/// segment at once: each writes its own temporary file, and both succeed.
#[test]
fn two_embedders_of_one_folder_both_succeed() {
    let world = world();
    for _ in 0..5 {
        for folder in vector_folders(&world) {
            std::fs::remove_dir_all(folder).unwrap();
        }
        std::thread::scope(|scope| {
            let embedders: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        Semantic::new(tiny_model(), world.dir.path())
                            .embed_missing(&world.indexes, &mut |_| {})
                    })
                })
                .collect();
            for embedder in embedders {
                let report = embedder.join().unwrap().expect("both embed");
                assert_eq!(report.segments_embedded + report.segments_loaded, 2);
            }
        });
    }
}
