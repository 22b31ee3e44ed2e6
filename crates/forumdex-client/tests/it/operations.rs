//! Every lookup and search operation returns the wire types with the metering headers
//! exposed.

use forumdex_client::{ForumId, ImageCount, ImageSearchOptions, Lang, Query, SearchOptions};

use crate::helpers::{PROFILE, TOPIC, TestServer};

#[tokio::test]
async fn lookups_and_searches_return_the_documents() {
    let server = TestServer::start("").await;
    let (account, _, key) = server.key(100, &[]);
    let client = server.client(&key);

    let post = client
        .post(ForumId::new(101).expect("valid"))
        .await
        .expect("post");
    assert_eq!(post.summary.post_id, 101);
    let meter = client.last_meter();
    assert_eq!(meter.credits_charged, Some(1));
    assert_eq!(meter.credits_remaining, Some(99));
    assert!(meter.request_id.is_some());
    assert!(meter.rate_limit.is_some());

    let topic = client
        .topic(ForumId::new(TOPIC).expect("valid"))
        .await
        .expect("topic");
    assert_eq!(topic.post_count, 23);
    let profile = client
        .profile(ForumId::new(PROFILE).expect("valid"))
        .await
        .expect("profile");
    assert_eq!(profile.username.as_deref(), Some("satoshi"));

    let options = SearchOptions {
        lang: Some(Lang::new("en").expect("valid")),
        ..SearchOptions::default()
    };
    let query = Query::new("mining").expect("valid");
    let found = client.search(&query, &options).await.expect("search");
    assert_eq!(found.query, "mining");
    assert!(!found.hits.is_empty(), "the seeded posts mention mining");
    let images = client
        .image_search(
            &query,
            &ImageSearchOptions {
                size: Some(ImageCount::new(5).expect("valid")),
                ..ImageSearchOptions::default()
            },
        )
        .await
        .expect("image search");
    assert!(images.images.is_empty(), "the seed corpus has no images");
    assert_eq!(server.accounts_balance(account), 95);
    assert_eq!(client.credits_remaining(), Some(95));
}
