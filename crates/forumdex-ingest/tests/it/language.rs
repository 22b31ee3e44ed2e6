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
