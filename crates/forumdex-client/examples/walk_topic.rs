//! Prints every post ID of a topic in order, one a line, then `pages N credits N`.
//!
//! ```text
//! cargo run -p forumdex-client --example walk_topic -- BASE_URL KEY TOPIC_ID
//! FORUMDEX_API_KEY=... cargo run -p forumdex-client --example walk_topic -- BASE_URL TOPIC_ID
//! ```
//!
//! A script that does not want async code can do the same with a runtime's `block_on`, as
//! `main` does here through `#[tokio::main]`.

use anyhow::{Context, bail};
use forumdex_client::{Client, ForumId, TopicPostsOptions};
use futures_util::StreamExt;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (base_url, key, topic) = match args.as_slice() {
        [base_url, key, topic] => (base_url.clone(), key.clone(), topic),
        [base_url, topic] => (
            base_url.clone(),
            std::env::var("FORUMDEX_API_KEY").context("no KEY argument and no FORUMDEX_API_KEY")?,
            topic,
        ),
        _ => bail!("usage: walk_topic BASE_URL [KEY] TOPIC_ID (or the key in FORUMDEX_API_KEY)"),
    };
    let topic: u64 = topic.parse().context("TOPIC_ID is a positive integer")?;
    let client = Client::new(&base_url, key)?;
    let mut walk = client.walk_topic_posts(ForumId::new(topic)?, &TopicPostsOptions::default());
    while let Some(post) = walk.next().await {
        println!("{}", post?.summary.post_id);
    }
    let stats = walk.stats();
    println!("pages {} credits {}", stats.pages, stats.credits);
    Ok(())
}
