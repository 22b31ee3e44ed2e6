//! Every line follows corpus-format.md; the counts match the summary.

use std::collections::{BTreeMap, BTreeSet};

use crate::helpers::{corpus, time, validate};

#[test]
fn every_line_follows_the_spec() {
    for seed in [1, 99] {
        let corpus = corpus(5_000, seed);
        for (n, line) in corpus.lines.iter().enumerate() {
            if let Err(e) = validate(line) {
                panic!("line {}: {e}", n + 1);
            }
        }
    }
}

#[test]
fn posts_counts_distinct_post_ids() {
    let corpus = corpus(4_321, 5);
    let ids: BTreeSet<u64> = corpus
        .kind("post")
        .map(|p| p["post_id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids.len(), 4_321);
    let lines = corpus.kind("post").count() as u64;
    assert!(lines > 4_321, "edits add re-observations");
    assert_eq!(corpus.summary.posts, 4_321);
    assert_eq!(corpus.summary.post_records, lines);
}

#[test]
fn summary_matches_the_file() {
    let corpus = corpus(3_000, 11);
    let s = &corpus.summary;
    assert_eq!(s.out, corpus.path);
    assert_eq!(s.records, corpus.lines.len() as u64);
    assert_eq!(s.boards, corpus.kind("board").count() as u64);
    assert_eq!(s.profiles, corpus.kind("profile").count() as u64);
    assert_eq!(s.images, corpus.kind("image").count() as u64);
    assert_eq!(s.topic_records, corpus.kind("topic").count() as u64);
    let topics: BTreeSet<u64> = corpus
        .kind("post")
        .map(|p| p["topic_id"].as_u64().expect("id"))
        .collect();
    assert_eq!(s.topics, topics.len() as u64);
    let json = serde_json::to_value(s).expect("serialize");
    assert_eq!(json["posts"], 3_000);
}

#[test]
fn topics_are_consistent() {
    let corpus = corpus(4_000, 2);
    let boards: BTreeSet<u64> = corpus
        .kind("board")
        .map(|b| b["board_id"].as_u64().expect("id"))
        .collect();
    let mut by_topic: BTreeMap<u64, Vec<&serde_json::Value>> = BTreeMap::new();
    for post in corpus.canonical_posts().values() {
        if let Some(board) = post["board_id"].as_u64() {
            assert!(boards.contains(&board));
        }
        by_topic
            .entry(post["topic_id"].as_u64().expect("id"))
            .or_default()
            .push(post);
    }
    for posts in by_topic.values() {
        // The opening post has the smallest post_id, number 0 and the earliest time.
        let op = posts
            .iter()
            .min_by_key(|p| p["post_id"].as_u64())
            .expect("non-empty");
        if let Some(number) = op["post_number"].as_u64() {
            assert_eq!(number, 0);
        }
        assert_ne!(op["is_op"], false);
        let numbers: Vec<u64> = posts
            .iter()
            .filter_map(|p| p["post_number"].as_u64())
            .collect();
        let distinct: BTreeSet<u64> = numbers.iter().copied().collect();
        assert_eq!(distinct.len(), numbers.len(), "post numbers repeat");
        for post in posts {
            if post["post_id"] != op["post_id"] {
                assert_ne!(post["is_op"], true);
                assert!(post["title"].as_str().expect("title").starts_with("Re: "));
                if op.get("posted_at").is_some_and(|t| !t.is_null())
                    && post.get("posted_at").is_some_and(|t| !t.is_null())
                {
                    assert!(time(post, "posted_at") >= time(op, "posted_at"));
                }
            }
        }
    }
}

#[test]
fn re_observations_are_later_and_changed() {
    let corpus = corpus(5_000, 4);
    let mut seen: BTreeMap<u64, &serde_json::Value> = BTreeMap::new();
    let mut edits = 0;
    for post in corpus.kind("post") {
        let id = post["post_id"].as_u64().expect("id");
        if let Some(first) = seen.get(&id) {
            edits += 1;
            assert!(time(post, "observed_at") > time(first, "observed_at"));
            assert!(
                post["content_html"] != first["content_html"] || post["merit"] != first["merit"],
                "re-observation of {id} changes nothing"
            );
        } else {
            seen.insert(id, post);
        }
    }
    assert!(edits >= 50, "only {edits} edits");
}
