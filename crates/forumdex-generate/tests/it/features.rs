//! Each feature of the real forum shows up: megathread, long tail, guests, missing dates,
//! quotes, links, merit, languages, low-quality replies, missing records.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::helpers::{Corpus, corpus};

fn html(post: &Value) -> &str {
    post["content_html"].as_str().expect("html")
}

fn topic_sizes(corpus: &Corpus) -> BTreeMap<u64, u64> {
    let mut sizes = BTreeMap::new();
    for post in corpus.canonical_posts().values() {
        *sizes
            .entry(post["topic_id"].as_u64().expect("id"))
            .or_insert(0) += 1;
    }
    sizes
}

#[test]
fn largest_topic_holds_ten_percent_and_sizes_have_a_long_tail() {
    let corpus = corpus(20_000, 1);
    let sizes = topic_sizes(&corpus);
    let mut counts: Vec<u64> = sizes.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(counts[0], 2_000);
    assert_eq!(corpus.summary.largest_topic_posts, 2_000);
    assert!(counts[1] < counts[0]);
    let small = counts.iter().filter(|&&c| c <= 3).count();
    let big = counts.iter().filter(|&&c| c >= 50).count();
    assert!(
        small * 3 > counts.len(),
        "few small topics: {small} of {}",
        counts.len()
    );
    assert!(big >= 10, "only {big} topics with 50+ posts");
}

#[test]
fn guests_missing_dates_and_optional_fields() {
    let corpus = corpus(10_000, 1);
    let posts: Vec<&Value> = corpus.kind("post").collect();
    let guests = posts
        .iter()
        .filter(|p| p["author"]["profile_id"].is_null())
        .count();
    assert!(guests > 100, "{guests} guest posts");
    assert!(
        posts
            .iter()
            .any(|p| p.get("posted_at") == Some(&Value::Null))
    );
    assert!(posts.iter().any(|p| p.get("posted_at").is_none()));
    let ops: Vec<&&Value> = posts
        .iter()
        .filter(|p| p["post_number"] == 0 || p["is_op"] == true)
        .collect();
    assert!(ops.iter().any(|p| p["is_op"] == true));
    assert!(ops.iter().any(|p| p.get("is_op").is_none()));
    assert!(posts.iter().any(|p| p.get("post_number").is_none()));
    assert!(posts.iter().any(|p| p.get("board_id").is_none()));
    assert!(posts.iter().any(|p| p.get("language").is_some()));
    assert!(posts.iter().filter(|p| p.get("language").is_none()).count() > posts.len() / 2);
}

#[test]
fn quotes_links_and_line_breaks() {
    let corpus = corpus(5_000, 1);
    let posts: Vec<&Value> = corpus.kind("post").collect();
    let quotes = posts
        .iter()
        .filter(|p| {
            let h = html(p);
            h.contains("<div class=\"quote_header\">Quote from: ")
                && h.contains("</div><div class=\"quote\">")
        })
        .count();
    assert!(quotes > 200, "{quotes} quotes");
    assert!(posts.iter().any(|p| html(p).contains("<a href=\"https://")));
    assert!(posts.iter().any(|p| html(p).contains("<br />")));
}

#[test]
fn merit_with_and_without_senders() {
    let corpus = corpus(5_000, 1);
    let merits: Vec<&Value> = corpus.kind("post").filter_map(|p| p.get("merit")).collect();
    assert!(merits.iter().any(|m| m.get("senders").is_some()));
    assert!(merits.iter().any(|m| m.get("senders").is_none()));
}

#[test]
fn seven_languages_and_local_boards_use_theirs() {
    let corpus = corpus(10_000, 1);
    let board_lang: BTreeMap<u64, &str> = [
        (10, "ru"),
        (90, "ru"),
        (16, "de"),
        (137, "de"),
        (11, "es"),
        (95, "id"),
        (199, "id"),
        (30, "zh"),
        (142, "pl"),
    ]
    .into_iter()
    .collect();
    let names: BTreeMap<u64, (String, Option<u64>)> = corpus
        .kind("board")
        .map(|b| {
            (
                b["board_id"].as_u64().expect("id"),
                (
                    b["name"].as_str().expect("name").to_owned(),
                    b["parent_board_id"].as_u64(),
                ),
            )
        })
        .collect();
    assert_eq!(names[&241].0, "Local");
    assert_eq!(names[&10], ("Русский (Russian)".to_owned(), Some(241)));
    assert_eq!(names[&30].1, Some(241));
    let mut codes = BTreeSet::new();
    for post in corpus.kind("post") {
        let Some(code) = post["language"].as_str() else {
            continue;
        };
        codes.insert(code.to_owned());
        match post["board_id"].as_u64().and_then(|b| board_lang.get(&b)) {
            Some(expected) => assert_eq!(code, *expected, "{post}"),
            None if post["board_id"].is_u64() => assert_eq!(code, "en"),
            None => {}
        }
    }
    let expected: BTreeSet<String> = ["en", "ru", "de", "es", "id", "zh", "pl"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(codes, expected);
    let cyrillic = corpus
        .kind("post")
        .any(|p| html(p).contains("кошел") || html(p).contains("монет"));
    let chinese = corpus
        .kind("post")
        .any(|p| html(p).contains("手续费") || html(p).contains("币"));
    assert!(cyrillic && chinese);
}

#[test]
fn low_quality_replies() {
    let corpus = corpus(10_000, 1);
    let posts: Vec<&Value> = corpus.kind("post").collect();
    let has = |needle: &str| posts.iter().any(|p| html(p).contains(needle));
    assert!(has("nice project sir"));
    assert!(has("Bounty report week"));
    assert!(has("?ref="));
    let caps = posts.iter().any(|p| {
        let h = html(p);
        h.ends_with("!!!") && h.len() > 20 && h == h.to_uppercase().as_str()
    });
    assert!(caps, "no ALL CAPS post");
    // Copy-paste duplicates: the same author posts the same text under two post IDs.
    let mut texts: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for post in &posts {
        texts
            .entry((
                post["author"]["username"].to_string(),
                html(post).to_owned(),
            ))
            .or_default()
            .insert(post["post_id"].as_u64().expect("id"));
    }
    assert!(texts.values().any(|ids| ids.len() >= 2), "no duplicates");
}

#[test]
fn distinctive_words_find_few_posts() {
    // Search tests need to find a post by a few words: the made-up project names plus
    // numbers make most ordinary replies unique.
    let corpus = corpus(5_000, 1);
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    for post in corpus.kind("post") {
        *seen.entry(html(post)).or_insert(0) += 1;
    }
    let unique = seen.values().filter(|&&n| n == 1).count();
    assert!(
        unique * 10 > seen.len() * 8,
        "{unique} unique bodies of {}",
        seen.len()
    );
}

#[test]
fn records_are_missing_for_some_topics_and_profiles() {
    let corpus = corpus(10_000, 1);
    let topic_records: BTreeSet<u64> = corpus
        .kind("topic")
        .map(|t| t["topic_id"].as_u64().expect("id"))
        .collect();
    let topics: BTreeSet<u64> = corpus
        .kind("post")
        .map(|p| p["topic_id"].as_u64().expect("id"))
        .collect();
    let without = topics.difference(&topic_records).count();
    assert!(without > 0 && without * 5 < topics.len());
    assert!(corpus.kind("topic").all(|t| t["views"].is_u64()));
    let profiles: BTreeSet<u64> = corpus
        .kind("profile")
        .map(|p| p["profile_id"].as_u64().expect("id"))
        .collect();
    let authors: BTreeSet<u64> = corpus
        .kind("post")
        .filter_map(|p| p["author"]["profile_id"].as_u64())
        .collect();
    let covered = authors.intersection(&profiles).count();
    assert!(covered < authors.len() && covered * 10 > authors.len() * 9);
}
