//! Posts without a language get one detected from their text; an explicit one is kept.

use serde_json::{Value, json};

use crate::support::*;

#[test]
fn missing_languages_are_detected_and_explicit_ones_kept() {
    let (store, dir) = store();
    let english = "I think this project has a strong team and the roadmap looks realistic to me.";
    // (post_id, language field, content_html, expected language)
    let cases: [(i64, Option<Value>, &str, Option<&str>); 8] = [
        (1, None, english, Some("en")),
        (
            2,
            None,
            "Я думаю, что у этого проекта сильная команда<br />и реалистичная дорожная карта.",
            Some("ru"),
        ),
        (
            3,
            None,
            "Ich denke, dieses Projekt hat ein starkes Team und eine realistische Roadmap.",
            Some("de"),
        ),
        (
            4,
            None,
            "<b>我认为这个项目有一个强大的团队和一个现实的路线图。</b>",
            Some("zh"),
        ),
        (5, Some(Value::Null), english, Some("en")),
        // An explicit language is the record's word, even when the text disagrees.
        (6, Some(json!("pt-BR")), english, Some("pt-BR")),
        (7, Some(json!("de")), english, Some("de")),
        // Too little text to tell.
        (8, None, "ok +1", None),
    ];
    let lines: Vec<String> = cases
        .iter()
        .map(|(post_id, language, content, _)| {
            let mut record: Value =
                serde_json::from_str(&post(*post_id, 5, json!({"content_html": content}))).unwrap();
            let object = record.as_object_mut().unwrap();
            match language {
                None => {
                    object.remove("language");
                }
                Some(value) => {
                    object.insert("language".to_owned(), value.clone());
                }
            }
            record.to_string()
        })
        .collect();
    let path = write(dir.path(), "languages.jsonl", &jsonl(&lines));
    let (summary, seen) = import(&store, &[&path], 3);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!(summary.accepted, 8);
    for (post_id, _, content, expected) in cases {
        let doc = post_doc(&store, post_id);
        assert_eq!(
            doc.language.as_deref(),
            expected,
            "post {post_id}: {content}"
        );
        assert_eq!(
            doc.content_html, content,
            "the text itself is stored as given"
        );
    }
}

#[test]
fn detection_does_not_change_the_observation_identity() {
    // A line without a language and the same line re-imported: the detected language is
    // not part of the line, so the second import is a no-op.
    let (store, dir) = store();
    let line = merged(
        serde_json::from_str(&post(1, 5, json!({}))).unwrap(),
        json!({"language": null, "content_html": "This thread is about mining pools and the fees they charge."}),
    );
    let path = write(dir.path(), "one.jsonl", &jsonl(&[line]));
    let (first, _) = import(&store, &[&path], 1);
    let (second, _) = import(&store, &[&path], 1);
    assert_eq!((first.new_observations, second.new_observations), (1, 0));
    assert_eq!(post_doc(&store, 1).language.as_deref(), Some("en"));
}

/// A post line without a language, in `board` (none: its topic's).
fn unlabelled(post_id: i64, topic_id: i64, board: Option<i64>, content: &str) -> String {
    let mut record: Value = serde_json::from_str(&post(
        post_id,
        topic_id,
        json!({"content_html": content, "board_id": board}),
    ))
    .unwrap();
    record.as_object_mut().unwrap().remove("language");
    record.to_string()
}

fn board_with_parent(board_id: i64, name: &str, parent: i64) -> String {
    merged(
        serde_json::from_str(&board(board_id, name)).unwrap(),
        json!({"parent_board_id": parent}),
    )
}

const ENGLISH_ANNOUNCEMENT: &str = "CoinMarketBrasil will provide a decentralization system for business project operations, which can be deployed to existing ERP systems, adding database security and implementing managed blockchain services.";

#[test]
fn posts_without_a_language_take_their_boards_unless_the_text_clearly_is_another() {
    let (store, dir) = store();
    let lines = [
        board(16, "Deutsch (German)"),
        board_with_parent(17, "Trading und Spekulation", 16),
        board(10, "Русский (Russian)"),
        board(159, "Announcements (Altcoins)"),
        topic(5, 17, "Kurs"),
        unlabelled(1, 5, Some(17), "[reserviert]"),
        unlabelled(2, 5, None, "Danke!"),
        unlabelled(3, 5, Some(16), ENGLISH_ANNOUNCEMENT),
        unlabelled(
            4,
            6,
            Some(10),
            "Да! Да! У меня написано: Validation Completed Congratulations! Please wait for all users to complete theirs.",
        ),
        unlabelled(5, 6, Some(10), "Where is the english translation?"),
        unlabelled(6, 7, Some(159), "[reserved]"),
        unlabelled(7, 7, Some(159), ENGLISH_ANNOUNCEMENT),
        post(8, 5, json!({"board_id": 16, "language": "pt-BR"})),
        // A board read after its posts counts from there on.
        unlabelled(9, 8, Some(29), "Reservado"),
        board(29, "Português (Portuguese)"),
        unlabelled(10, 8, Some(29), "Reservado"),
    ];
    let path = write(dir.path(), "boards.jsonl", &jsonl(&lines));
    let (summary, seen) = import(&store, &[&path], 4);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!(summary.posts, 10);
    let expected = [
        (1, Some("de"), "short, in a child of the German board"),
        (2, Some("de"), "no board of its own: its topic's"),
        (3, Some("en"), "long and clearly English"),
        (4, Some("ru"), "Russian quoting English"),
        (5, Some("en"), "English in another script than Russian's"),
        (6, None, "short, in a board without a language"),
        (7, Some("en"), "detected"),
        (8, Some("pt-BR"), "its own language is kept"),
        (9, None, "before its board was read"),
        (10, Some("pt"), "after"),
    ];
    for (post_id, language, why) in expected {
        assert_eq!(
            post_doc(&store, post_id).language.as_deref(),
            language,
            "post {post_id}: {why}"
        );
    }
}

#[test]
fn boards_already_in_the_corpus_are_priors_too() {
    let (store, dir) = store();
    let first = [
        board(16, "Deutsch (German)"),
        topic(5, 16, "Kurs"),
        post(1, 5, json!({"board_id": 16, "language": "de"})),
    ];
    let first = write(dir.path(), "first.jsonl", &jsonl(&first));
    import(&store, &[&first], 10);
    // Posts only: the board is known from the corpus, through the topic's posts.
    let second = [
        unlabelled(2, 5, Some(16), "[reserviert]"),
        unlabelled(3, 5, None, "Danke!"),
        unlabelled(4, 9, Some(16), "Gut so"),
        unlabelled(5, 9, Some(77), "Gut so"),
    ];
    let second = write(dir.path(), "second.jsonl", &jsonl(&second));
    let (summary, seen) = import(&store, &[&second], 10);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!(summary.new_observations, 4);
    for (post_id, language) in [(2, Some("de")), (3, Some("de")), (4, Some("de")), (5, None)] {
        assert_eq!(
            post_doc(&store, post_id).language.as_deref(),
            language,
            "post {post_id}"
        );
    }
}
