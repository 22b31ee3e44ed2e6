//! Prints the hits of a post search as `post_id<TAB>score<TAB>title`.
//!
//! ```text
//! cargo run -p forumdex-client --example search -- BASE_URL KEY QUERY
//! FORUMDEX_API_KEY=... cargo run -p forumdex-client --example search -- BASE_URL QUERY
//! ```

use anyhow::{Context, bail};
use forumdex_client::{Client, Query, SearchOptions};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (base_url, key, query) = match args.as_slice() {
        [base_url, key, query] => (base_url.clone(), key.clone(), query),
        [base_url, query] => (
            base_url.clone(),
            std::env::var("FORUMDEX_API_KEY").context("no KEY argument and no FORUMDEX_API_KEY")?,
            query,
        ),
        _ => bail!("usage: search BASE_URL [KEY] QUERY (or the key in FORUMDEX_API_KEY)"),
    };
    let client = Client::new(&base_url, key)?;
    let found = client
        .search(&Query::new(query.as_str())?, &SearchOptions::default())
        .await?;
    for hit in found.hits {
        println!("{}\t{}\t{}", hit.post_id, hit.score, hit.title);
    }
    Ok(())
}
