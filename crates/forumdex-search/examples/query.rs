//! Prints the top hits of a query against a data folder's indexes:
//! `cargo run -p forumdex-search --example query -- DATA_DIR "query" [lang]`.

use forumdex_search::{LangCode, SearchIndexes, SearchRequest, search};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, data, query, rest @ ..] = &args[..] else {
        return Err("usage: query DATA_DIR QUERY [LANG]".into());
    };
    let indexes = SearchIndexes::open(std::path::Path::new(data))?;
    let mut request = SearchRequest::new(query.as_str());
    request.lang = rest.first().and_then(|l| LangCode::parse(l));
    request.limit = 10;
    let results = search(&indexes, &request)?;
    println!(
        "total {} corrected {:?} did_you_mean {:?} freshness {} answer {}",
        results.total,
        results.corrected_query,
        results.did_you_mean,
        results.freshness,
        results.answer_seeking
    );
    for hit in &results.hits {
        let preview: String = hit.content.chars().take(80).collect();
        println!(
            "{:>10} op={} score={:.3} bm25={:.3} health={:.2} spam={:.2} [{}] {} | {}",
            hit.post_id,
            hit.is_op,
            hit.score,
            hit.bm25,
            hit.health_score,
            hit.spam_score,
            hit.search_index,
            hit.title,
            preview.replace('\n', " ")
        );
    }
    Ok(())
}
