//! Collection walks: complete, in order, once per post, with pages and credits counted;
//! restarted from the beginning after a 410.

use forumdex_client::types::Order;
use forumdex_client::{ForumId, Limit, PageOptions, ProfilePostsOptions, TopicPostsOptions};
use futures_util::StreamExt;

use crate::helpers::{PROFILE, TOPIC, TestServer, topic_post_ids};

fn limit(n: u8) -> Option<Limit> {
    Some(Limit::new(n).expect("valid limit"))
}

#[tokio::test]
async fn a_topic_walk_yields_every_post_of_the_corpus_in_order() {
    let server = TestServer::start("").await;
    let (account, _, key) = server.key(100, &[]);
    let client = server.client(&key);
    let options = TopicPostsOptions {
        page: PageOptions {
            limit: limit(5),
            ..PageOptions::default()
        },
        ..TopicPostsOptions::default()
    };
    let mut walk = client.walk_topic_posts(ForumId::new(TOPIC).expect("valid"), &options);
    let mut ids = Vec::new();
    while let Some(post) = walk.next().await {
        ids.push(post.expect("a post").summary.post_id);
    }
    assert_eq!(ids, topic_post_ids());
    let stats = walk.stats();
    // 23 posts, 5 a page: at least 5 pages (the server may end with an empty page).
    assert!(stats.pages >= 5, "{stats:?}");
    assert_eq!(stats.credits, stats.pages, "one credit a page");
    assert_eq!(stats.restarts, 0);
    assert_eq!(stats.posts, 23);
    let balance = server.accounts_balance(account);
    assert_eq!(
        balance,
        100 - stats.credits,
        "the account paid what the walk reports"
    );
    assert_eq!(client.credits_remaining(), Some(balance));
}

#[tokio::test]
async fn descending_and_profile_walks_follow_their_options() {
    let server = TestServer::start("").await;
    let (_, _, key) = server.key(100, &[]);
    let client = server.client(&key);
    let desc = TopicPostsOptions {
        page: PageOptions {
            limit: limit(4),
            order: Some(Order::Desc),
            ..PageOptions::default()
        },
        ..TopicPostsOptions::default()
    };
    let ids: Vec<i64> = client
        .walk_topic_posts(ForumId::new(TOPIC).expect("valid"), &desc)
        .map(|post| post.expect("a post").summary.post_id)
        .collect()
        .await;
    let mut expected = topic_post_ids();
    expected.reverse();
    assert_eq!(ids, expected);

    let profile = ProfilePostsOptions {
        page: PageOptions {
            limit: limit(3),
            ..PageOptions::default()
        },
        topic_id: Some(ForumId::new(TOPIC).expect("valid")),
    };
    let ids: Vec<i64> = client
        .walk_profile_posts(ForumId::new(PROFILE).expect("valid"), &profile)
        .map(|post| post.expect("a post").summary.post_id)
        .collect()
        .await;
    let expected: Vec<i64> = topic_post_ids().into_iter().step_by(2).collect();
    assert_eq!(ids, expected, "the satoshi posts are every other one");
}

#[tokio::test]
async fn a_walk_restarts_after_a_snapshot_expiry_and_yields_every_post_once() {
    let server = TestServer::start("snapshot_seconds = 60\n").await;
    let (_, _, key) = server.key(100, &[]);
    let client = server.client(&key);
    let options = TopicPostsOptions {
        page: PageOptions {
            limit: limit(4),
            ..PageOptions::default()
        },
        ..TopicPostsOptions::default()
    };
    let mut walk = client.walk_topic_posts(ForumId::new(TOPIC).expect("valid"), &options);
    let mut ids = Vec::new();
    // Two pages in (six posts read, the second page's cursor in hand), the snapshot expires.
    for _ in 0..6 {
        let post = walk.next().await.expect("more posts").expect("a post");
        ids.push(post.summary.post_id);
    }
    let before = walk.stats();
    assert_eq!(before.pages, 2);
    server.clock.advance(chrono::Duration::seconds(61));
    while let Some(post) = walk.next().await {
        ids.push(post.expect("a post").summary.post_id);
    }
    assert_eq!(ids, topic_post_ids(), "every post once, in order");
    let stats = walk.stats();
    assert_eq!(stats.restarts, 1, "{stats:?}");
    assert_eq!(stats.posts, 23);
    // The 410 costs nothing; the first two pages are bought again.
    assert_eq!(stats.credits, stats.pages);
    assert!(stats.pages >= 6 + 2, "{stats:?}");
}

#[tokio::test]
async fn a_page_at_a_time_follows_next_cursor_until_null() {
    let server = TestServer::start("").await;
    let (_, _, key) = server.key(100, &[]);
    let client = server.client(&key);
    let id = ForumId::new(TOPIC).expect("valid");
    let options = TopicPostsOptions {
        page: PageOptions {
            limit: limit(10),
            ..PageOptions::default()
        },
        ..TopicPostsOptions::default()
    };
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = client
            .topic_posts_page(id, &options, cursor.as_deref())
            .await
            .expect("a page");
        assert_eq!(page.limit, 10, "the cursor keeps the original options");
        ids.extend(page.data.iter().map(|post| post.summary.post_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(ids, topic_post_ids());
}
