//! Known-item search on a generated corpus: a query made of a post's most distinctive words
//! finds it in the top 10.

use std::collections::HashMap;

use forumdex_corpus::{ChangePosition, CorpusWrite, PostDoc, text::html_to_text};
use forumdex_generate::{GenerateConfig, generate};
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, import_files};
use forumdex_search::SearchRequest;

use crate::helpers::World;

/// Every canonical post of the corpus.
pub fn all_posts(store: &dyn CorpusWrite) -> Vec<PostDoc> {
    let upto = store.snapshot(forumdex_corpus::Millis(0)).unwrap().seq;
    let mut out = Vec::new();
    let mut after = ChangePosition::default();
    loop {
        let page = store.posts_changed(0, upto, after, 1000).unwrap();
        let Some((last, _)) = page.last() else { break };
        after = *last;
        out.extend(page.into_iter().filter_map(|(_, change)| change.current()));
    }
    out
}

/// Lowercased words of 4+ letters (not CJK runs, which are not words).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4 && !w.chars().any(forumdex_search::analysis::is_cjk))
        .map(str::to_lowercase)
        .collect()
}

/// The share of `posts` found in the top 10 by a query of their 3 rarest words, among the
/// posts whose 3 rarest words are distinctive (each in at most 5 posts).
pub fn known_item_rate(world: &World, posts: &[PostDoc], sample: usize) -> f64 {
    let mut df: HashMap<String, usize> = HashMap::new();
    let texts: Vec<Vec<String>> = posts
        .iter()
        .map(|p| {
            let mut ws = words(&html_to_text(&p.content_html));
            ws.sort();
            ws.dedup();
            for w in &ws {
                *df.entry(w.clone()).or_default() += 1;
            }
            ws
        })
        .collect();
    let mut candidates: Vec<(i64, Vec<&str>)> = Vec::new();
    for (post, ws) in posts.iter().zip(&texts) {
        let mut ranked: Vec<(usize, &String)> = ws.iter().map(|w| (df[w], w)).collect();
        ranked.sort();
        if ranked.len() >= 3 && ranked[2].0 <= 5 {
            let query = ranked[..3].iter().map(|(_, w)| w.as_str()).collect();
            candidates.push((post.post_id, query));
        }
    }
    assert!(
        candidates.len() >= sample,
        "too few posts with distinctive words"
    );
    let step = candidates.len() / sample;
    let (mut tried, mut found) = (0, 0);
    for (post_id, query) in candidates.iter().step_by(step).take(sample) {
        let mut request = SearchRequest::new(query.join(" "));
        request.include_low_quality = true;
        request.limit = 10;
        let results = world.run(request);
        tried += 1;
        if results.hits.iter().any(|h| h.post_id == *post_id) {
            found += 1;
        } else {
            eprintln!("missed post {post_id}: {query:?}");
        }
    }
    found as f64 / tried as f64
}

#[test]
fn distinctive_words_find_their_post_in_the_top_10() {
    let world = World::new();
    let out = world.dir.path().join("corpus/generated.jsonl");
    let config = GenerateConfig {
        posts: 3_000,
        seed: 11,
    };
    generate(&config, &out).expect("the corpus generates");
    let options = ImportOptions {
        batch_size: 1_000,
        progress: false,
        ..ImportOptions::default()
    };
    import_files(&world.store, &[Source::from_arg(&out)], &options, |_| {})
        .expect("the import succeeds");
    world.sync();
    let posts = all_posts(&world.store);
    assert!(posts.len() >= 2_900, "{}", posts.len());
    let rate = known_item_rate(&world, &posts, 60);
    assert!(rate >= 0.9, "known-item rate {rate}");
}
