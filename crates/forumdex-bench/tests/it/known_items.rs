//! The generator on a corpus made here: every query is checked against a brute-force oracle
//! over the canonical texts (not the generator's own index).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use forumdex::commands::relevance::parse_queries;
use forumdex_bench::known_items::{Corpus, Kind, Options, QuerySet, generate};
use forumdex_corpus::text::html_to_text;
use forumdex_ingest::source::Source;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// Posts of the made-up corpus, and the words they are made of.
const POSTS: i64 = 400;
const WORDS: usize = 1_500;

/// A post line of topic `post_id / 20`, observed at `observed_at`.
fn post(post_id: i64, author: &str, posted_at: &str, content: &str, observed_at: &str) -> String {
    json!({
        "kind": "post", "post_id": post_id, "topic_id": 1 + post_id / 20,
        "title": format!("Topic {}", 1 + post_id / 20),
        "author": {"profile_id": null, "username": author},
        "posted_at": posted_at, "content_html": content,
        "language": "en", "observed_at": observed_at,
    })
    .to_string()
}

/// A made-up word of 4 to 9 letters.
fn word(rng: &mut ChaCha8Rng) -> String {
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ru", "te", "zan", "vor", "pel", "qui", "sto",
    ];
    let mut w = String::new();
    while w.len() < rng.gen_range(4..=9) {
        w.push_str(SYLLABLES.choose(rng).expect("syllables"));
    }
    w
}

/// The corpus: posts of 25-60 made-up words (HTML, with a URL and a username now and then),
/// an edited post whose old words must never be used, a deleted post, and a question that a
/// later post quotes with SMF's header.
fn corpus_lines() -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let vocabulary: Vec<String> = (0..WORDS).map(|_| word(&mut rng)).collect();
    let mut lines = Vec::new();
    for post_id in 1..=POSTS {
        let len = rng.gen_range(25..=60);
        let mut text: Vec<String> = (0..len)
            .map(|_| vocabulary.choose(&mut rng).expect("words").clone())
            .collect();
        text[3] = format!("{}, see https://www.{}.org/x &amp;", text[3], text[4]);
        text[7] = format!("{}.<br />Ask authorname", text[7]);
        lines.push(post(
            post_id,
            "authorname",
            "2018-01-01T10:00:00Z",
            &text.join(" "),
            "2024-01-01T00:00:00Z",
        ));
    }
    // Post 1 edited: the earlier observation holds words no served post has.
    lines.push(post(
        1,
        "authorname",
        "2018-01-01T10:00:00Z",
        "obsoleteword vanishedterm forgottenthing replacedtext formerwording",
        "2023-01-01T00:00:00Z",
    ));
    lines.push(
        json!({"kind": "post", "post_id": 2, "topic_id": 1, "title": "", "author": {"profile_id": null, "username": "x"},
               "content_html": "", "deleted": true, "observed_at": "2025-01-01T00:00:00Z"})
        .to_string(),
    );
    lines.push(post(
        900,
        "Asker",
        "2018-02-03T14:05:06Z",
        "Hello. How does the gravimetric flux capacitor handle overclocked condensers?",
        "2024-01-01T00:00:00Z",
    ));
    lines.push(post(
        901,
        "Answerer",
        "2018-02-04T10:00:00Z",
        "Quote from: Asker on February 03, 2018, 02:05:06 PM How does the gravimetric flux \
         capacitor handle overclocked condensers? It cools them.",
        "2024-01-01T00:00:00Z",
    ));
    lines.push("not json".to_owned());
    lines
}

fn write_corpus(dir: &Path) -> Source {
    let path = dir.join("corpus.jsonl");
    std::fs::write(&path, corpus_lines().join("\n") + "\n").expect("the corpus is written");
    Source::File(path)
}

/// Lowercase tokens of each served post's searchable text, by post ID: the oracle.
fn oracle() -> HashMap<i64, BTreeSet<String>> {
    let mut latest: HashMap<i64, (String, serde_json::Value)> = HashMap::new();
    for line in corpus_lines() {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = record["post_id"].as_i64().expect("a post");
        let at = record["observed_at"].as_str().expect("a time").to_owned();
        if latest.get(&id).is_none_or(|(old, _)| *old < at) {
            latest.insert(id, (at, record));
        }
    }
    latest
        .into_iter()
        .filter(|(_, (_, r))| r["deleted"] != true)
        .map(|(id, (_, r))| {
            let text = html_to_text(r["content_html"].as_str().expect("content"));
            let title = r["title"].as_str().expect("title").to_lowercase();
            let mut tokens: BTreeSet<String> = text
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect();
            tokens.extend(title.split(' ').map(str::to_owned));
            (id, tokens)
        })
        .collect()
}

/// Posts holding every word of `query` (lowercased, without marks).
fn holding(oracle: &HashMap<i64, BTreeSet<String>>, words: &[String]) -> BTreeSet<i64> {
    oracle
        .iter()
        .filter(|(_, tokens)| words.iter().all(|w| tokens.contains(w)))
        .map(|(&id, _)| id)
        .collect()
}

/// The words of the question templates.
const TEMPLATE_WORDS: &[&str] = &[
    "how", "does", "work", "what", "is", "where", "can", "i", "find", "there", "any", "news",
    "about", "do", "you", "think", "and",
];

fn words_of(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn generated(seed: u64) -> QuerySet {
    let dir = tempfile::tempdir().expect("a temp folder");
    let options = Options { per_kind: 40, seed };
    generate(&write_corpus(dir.path()), options).expect("the queries generate")
}

#[test]
fn the_first_pass_keeps_the_latest_observation_of_served_posts() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let corpus = Corpus::read(&write_corpus(dir.path())).expect("the corpus reads");
    assert_eq!(corpus.rejected, 1);
    let ids: Vec<i64> = corpus.posts.iter().map(|p| p.post_id).collect();
    assert_eq!(ids.len() as i64, POSTS - 1 + 2, "post 2 is deleted");
    assert!(!ids.contains(&2));
    assert!(!corpus.occurs("obsoleteword"), "an old version's word");
    assert_eq!(corpus.quoted_by.len(), 1);
    let (&quoted, by) = corpus.quoted_by.iter().next().expect("one quoted post");
    assert_eq!(corpus.posts[quoted as usize].post_id, 900);
    assert_eq!(corpus.posts[by[0] as usize].post_id, 901);
}

#[test]
fn every_query_names_its_post_by_the_oracle() {
    let set = generated(7);
    let oracle = oracle();
    for kind in Kind::ALL {
        let made = set.count(kind);
        let wanted = if kind == Kind::Question { 1 } else { 40 };
        assert_eq!(made, wanted, "{} queries: {made}", kind.as_str());
    }
    for item in &set.items {
        let words = words_of(&item.query);
        match item.kind {
            Kind::Words3 | Kind::Words2 | Kind::Phrase => {
                let expected = BTreeSet::from_iter(item.expected.iter().copied());
                assert_eq!(holding(&oracle, &words), expected, "{item:?}");
                let lengths = match item.kind {
                    Kind::Words3 => 3..=3,
                    Kind::Words2 => 2..=2,
                    _ => 4..=6,
                };
                assert!(lengths.contains(&words.len()), "{item:?}");
                if item.kind != Kind::Phrase {
                    assert!(
                        !words.contains(&"authorname".to_owned()),
                        "a username: {item:?}"
                    );
                    assert!(!words.contains(&"www".to_owned()), "a URL: {item:?}");
                }
            }
            Kind::Typo => {
                let unknown: Vec<&String> = words
                    .iter()
                    .filter(|w| !oracle.values().any(|t| t.contains(*w)))
                    .collect();
                assert_eq!(unknown.len(), 1, "one misspelled word: {item:?}");
                let source = set.items.iter().find(|e| {
                    e.kind != Kind::Typo && e.expected == item.expected && {
                        let other = words_of(&e.query);
                        other.len() == words.len()
                            && other.iter().zip(&words).filter(|(a, b)| a != b).count() == 1
                    }
                });
                let source = source.unwrap_or_else(|| panic!("no exact query for {item:?}"));
                let original = words_of(&source.query)
                    .into_iter()
                    .zip(&words)
                    .find(|(a, b)| a != *b)
                    .expect("a changed word")
                    .0;
                assert!(original.chars().count() >= 5, "{item:?}");
                assert_eq!(original.chars().next(), unknown[0].chars().next());
            }
            Kind::Question => {
                assert_eq!(item.expected, vec![900, 901]);
                assert_eq!(
                    item.query,
                    "How does the gravimetric flux capacitor handle overclocked condensers?"
                );
            }
            Kind::QuestionTemplate => {
                assert!(item.query.ends_with('?'), "{item:?}");
                let content: Vec<String> = words
                    .into_iter()
                    .filter(|w| !TEMPLATE_WORDS.contains(&w.as_str()))
                    .collect();
                assert_eq!(content.len(), 2, "{item:?}");
                let expected = BTreeSet::from_iter(item.expected.iter().copied());
                assert_eq!(holding(&oracle, &content), expected, "{item:?}");
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_file_and_relevance_reads_it() {
    let a = generated(7).to_tsv("corpus.jsonl");
    assert_eq!(a, generated(7).to_tsv("corpus.jsonl"));
    assert_ne!(a, generated(8).to_tsv("corpus.jsonl"));
    let queries = parse_queries(&a, "generated").expect("relevance reads the file");
    assert_eq!(queries.len(), 201);
    assert!(queries.iter().all(|q| q.lang.is_none() && q.kind.is_some()));
    let typos = queries.iter().filter(|q| q.kind.as_deref() == Some("typo"));
    assert_eq!(typos.count(), 40);
}
