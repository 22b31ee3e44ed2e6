//! `GET /api/v1/posts/{id}`, `/topics/{id}`, `/profiles/{id}`: bodies field by field,
//! derived values, 404, malformed ids, query parameters, metering.

use serde_json::{Value, json};

use super::model::{Oracle, line, post};
use super::shapes::{Config, FORUM, assert_post, assert_profile, assert_topic, start};
use crate::harness::{Paid, TestApp};

/// The hand-made corpus of the lookup tests, imported in two batches.
fn seed(api: &TestApp) -> Oracle {
    let at = "2024-03-01T12:00:00Z";
    let mut first = vec![
        json!({"kind":"board","board_id":1,"name":"Bitcoin Discussion","observed_at":at}),
        json!({"kind":"board","board_id":2,"name":"Off-topic","observed_at":at}),
        json!({"kind":"topic","topic_id":5,"board_id":1,"title":"Welcome","views":18235,"observed_at":at}),
        json!({"kind":"topic","topic_id":7,"title":"Boardless","page_count":4,"observed_at":at}),
        json!({"kind":"topic","topic_id":8,"board_id":1,"title":"Empty","views":0,"observed_at":"2024-03-02T00:00:00+01:00"}),
        json!({"kind":"profile","profile_id":3,"username":"satoshi","observed_at":at}),
        json!({"kind":"profile","profile_id":9,"username":"lurker","observed_at":at}),
    ];
    let mut p28 = post(
        28,
        5,
        Some((3, "satoshi")),
        Some("2009-11-22T18:51:31Z"),
        at,
    );
    p28["post_number"] = json!(0);
    p28["title"] = json!("Welcome");
    p28["language"] = json!("en");
    p28["content_html"] =
        json!("Welcome to the forum.<br /><img src=\"https://example.org/logo.png\" alt=\"\" />");
    p28["merit"] = json!({"total":12,"distinct_senders":4,"transactions":5});
    let mut p29 = post(29, 5, None, Some("2009-11-22T21:00:00+02:00"), at);
    p29["post_number"] = json!(1);
    p29["board_id"] = json!(3);
    p29["merit"] = json!({"total":99,"senders":[{"profile_id":7,"amount":2},{"profile_id":7,"amount":1},{"profile_id":8,"amount":5}]});
    let mut p30 = post(30, 5, Some((4, "hal")), Some("2009-11-23T00:00:00.5Z"), at);
    p30["title"] = json!("Re: Welcome");
    let mut p40 = post(40, 6, Some((4, "hal")), Some("2010-01-01T00:00:00Z"), at);
    p40["title"] = json!("Off we go");
    p40["board_id"] = json!(2);
    p40["merit"] = json!({"senders":[{"profile_id":3,"amount":1}]});
    let mut p41 = post(
        41,
        6,
        Some((4, "hal_finney")),
        Some("2010-01-02T00:00:00Z"),
        at,
    );
    p41["board_id"] = json!(2);
    p41["language"] = json!("pt-BR");
    p41["merit"] = json!({"senders":[{"profile_id":3,"amount":2},{"profile_id":9,"amount":1}]});
    let mut p50 = post(50, 7, None, None, at);
    p50["is_op"] = json!(false);
    let p51 = post(51, 7, Some((4, "hal-old")), None, at);
    first.extend([p28, p29, p30, p40, p41, p50, p51]);
    for i in 0..12 {
        first.push(post(
            100 + i,
            9,
            Some((11, "many")),
            Some(&format!("2011-05-{:02}T10:00:00Z", 1 + i)),
            at,
        ));
    }
    let first: Vec<String> = first.iter().map(line).collect();
    let mut oracle = Oracle::default();
    oracle.add(&first, api.import(&first));

    // Re-observations: a later edit of post 30 wins, a stale dump of post 28 loses, and
    // board 1 is renamed.
    let mut p30b = post(
        30,
        5,
        Some((4, "hal")),
        Some("2009-11-23T00:00:00.5Z"),
        "2024-05-01T00:00:00-04:00",
    );
    p30b["title"] = json!("Re: Welcome (edited)");
    p30b["merit"] = json!({"total":3,"distinct_senders":1,"transactions":1});
    let mut p28_stale = post(
        28,
        5,
        Some((3, "satoshi")),
        Some("2009-11-22T18:51:31Z"),
        "2020-01-01T00:00:00Z",
    );
    p28_stale["title"] = json!("stale legacy dump");
    let board = json!({"kind":"board","board_id":1,"name":"Bitcoin Discussion (renamed)","observed_at":"2024-04-01T00:00:00Z"});
    let second: Vec<String> = [p30b, p28_stale, board].iter().map(line).collect();
    oracle.add(&second, api.import(&second));
    oracle
}

#[tokio::test(flavor = "multi_thread")]
async fn posts_topics_and_profiles_match_the_contract_field_by_field() {
    let api = start(Config::default()).await;
    let oracle = seed(&api);
    let caller = api.caller(1_000);

    for id in [28, 29, 30, 40, 41, 50, 51, 100, 111] {
        let body = api.ok(&caller, &format!("/api/v1/posts/{id}")).await;
        assert_post(&body);
        assert_eq!(body, oracle.post(id).expect("fixture post"), "post {id}");
    }
    for id in [5, 6, 7, 8, 9] {
        let body = api.ok(&caller, &format!("/api/v1/topics/{id}")).await;
        assert_topic(&body);
        assert_eq!(body, oracle.topic(id).expect("fixture topic"), "topic {id}");
    }
    for id in [3, 4, 9, 11] {
        let body = api.ok(&caller, &format!("/api/v1/profiles/{id}")).await;
        assert_profile(&body);
        assert_eq!(
            body,
            oracle.profile(id).expect("fixture profile"),
            "profile {id}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn derived_values_match_hand_computed_ones() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(1_000);

    // The opening post, as the corpus-format example spells it.
    let p28 = api.ok(&caller, "/api/v1/posts/28").await;
    assert_eq!(p28["title"], "Welcome", "the stale dump loses");
    assert_eq!(p28["is_op"], true);
    assert_eq!(p28["post_number"], 0);
    assert_eq!(p28["posted_at"], "2009-11-22T18:51:31.000Z");
    assert_eq!(p28["url"], format!("{FORUM}/index.php?topic=5.msg28#msg28"));
    assert_eq!(p28["topic_url"], format!("{FORUM}/index.php?topic=5.0"));
    assert_eq!(
        p28["author"],
        json!({"profile_id": 3, "username": "satoshi", "url": format!("{FORUM}/index.php?action=profile;u=3")})
    );
    assert_eq!(
        p28["board"],
        json!({"board_id": 1, "name": "Bitcoin Discussion (renamed)"})
    );
    assert_eq!(
        p28["merit"],
        json!({"total": 12, "distinct_senders": 4, "transactions": 5, "observed_at": "2024-03-01T12:00:00.000Z"})
    );
    assert_eq!(p28["language"], "en");

    // A guest reply with its own board that has no record; senders define the merit.
    let p29 = api.ok(&caller, "/api/v1/posts/29").await;
    assert_eq!(
        p29["author"],
        json!({"profile_id": null, "username": "guest29", "url": null})
    );
    assert_eq!(p29["board"], json!({"board_id": 3, "name": ""}));
    assert_eq!(p29["posted_at"], "2009-11-22T19:00:00.000Z");
    assert_eq!(p29["is_op"], false);
    assert_eq!(p29["merit"]["total"], 8);
    assert_eq!(p29["merit"]["distinct_senders"], 2);
    assert_eq!(p29["merit"]["transactions"], 3);

    // The later observation of post 30 is canonical.
    let p30 = api.ok(&caller, "/api/v1/posts/30").await;
    assert_eq!(p30["title"], "Re: Welcome (edited)");
    assert_eq!(p30["posted_at"], "2009-11-23T00:00:00.500Z");
    assert_eq!(p30["merit"]["observed_at"], "2024-05-01T04:00:00.000Z");
    assert_eq!(p30["post_number"], Value::Null);

    // No board anywhere: null id and empty name; undated.
    let p50 = api.ok(&caller, "/api/v1/posts/50").await;
    assert_eq!(p50["board"], json!({"board_id": null, "name": ""}));
    assert_eq!(p50["posted_at"], Value::Null);
    assert_eq!(p50["language"], Value::Null);

    let t5 = api.ok(&caller, "/api/v1/topics/5").await;
    assert_eq!(t5["title"], "Welcome");
    assert_eq!(t5["post_count"], 3);
    assert_eq!(t5["page_count"], 1);
    assert_eq!(t5["created_at"], "2009-11-22T18:51:31.000Z");
    assert_eq!(t5["last_post_at"], "2009-11-23T00:00:00.500Z");
    assert_eq!(t5["language"], "en");
    assert_eq!(
        t5["views"],
        json!({"observed": 18235, "observed_at": "2024-03-01T12:00:00.000Z"})
    );
    // 12 + 8 + 3 points, 5 + 3 + 1 transactions; post 28 lists no senders, so the
    // distinct senders are the sum 4 + 2 + 1.
    assert_eq!(
        t5["merit"],
        json!({"total": 23, "distinct_senders": 7, "transactions": 9, "observed_at": "2024-05-01T04:00:00.000Z"})
    );
    assert_eq!(t5["first_post"]["post_id"], 28);
    assert_eq!(t5["first_post"]["object"], "post");
    assert_eq!(t5["latest_post"]["post_id"], 30);
    assert!(t5["latest_post"].get("content_html").is_none());

    // No topic record: title of the opening post, board of its posts, no views; every
    // merited post lists its senders, so distinct senders are counted ({3, 9}).
    let t6 = api.ok(&caller, "/api/v1/topics/6").await;
    assert_eq!(t6["title"], "Off we go");
    assert_eq!(t6["board"], json!({"board_id": 2, "name": "Off-topic"}));
    assert_eq!(t6["views"], json!({"observed": 0, "observed_at": null}));
    assert_eq!(t6["merit"]["total"], 4);
    assert_eq!(t6["merit"]["distinct_senders"], 2);
    assert_eq!(t6["merit"]["transactions"], 3);
    assert_eq!(t6["first_post"]["post_id"], 40);
    assert_eq!(t6["latest_post"]["post_id"], 41);

    // A record without a board; its only candidate opening post says it is not one.
    let t7 = api.ok(&caller, "/api/v1/topics/7").await;
    assert_eq!(t7["board"], json!({"board_id": null, "name": ""}));
    assert_eq!(t7["page_count"], 4);
    assert_eq!(t7["first_post"], Value::Null);
    assert_eq!(t7["created_at"], Value::Null);
    assert_eq!(t7["last_post_at"], Value::Null);
    assert_eq!(t7["latest_post"]["post_id"], 51);

    // A topic record without posts exists.
    let t8 = api.ok(&caller, "/api/v1/topics/8").await;
    assert_eq!(t8["post_count"], 0);
    assert_eq!(t8["page_count"], 0);
    assert_eq!(t8["first_post"], Value::Null);
    assert_eq!(t8["latest_post"], Value::Null);
    assert_eq!(
        t8["views"],
        json!({"observed": 0, "observed_at": "2024-03-01T23:00:00.000Z"})
    );
    assert_eq!(
        t8["merit"],
        json!({"total": 0, "distinct_senders": 0, "transactions": 0, "observed_at": null})
    );
    assert_eq!(t8["board"]["name"], "Bitcoin Discussion (renamed)");

    // 12 posts: ceil(12 / 20) = 1 page.
    let t9 = api.ok(&caller, "/api/v1/topics/9").await;
    assert_eq!(t9["page_count"], 1);
    assert_eq!(t9["first_post"]["post_id"], 100);

    // No profile record: the username of the latest post (undated posts sort first).
    let p4 = api.ok(&caller, "/api/v1/profiles/4").await;
    assert_eq!(p4["username"], "hal_finney");
    assert_eq!(
        p4["corpus"],
        json!({
            "post_count": 4,
            "topic_count": 3,
            "first_post_at": "2009-11-23T00:00:00.500Z",
            "last_post_at": "2010-01-02T00:00:00.000Z",
            "derived_from": "distinct indexed posts",
        })
    );
    let recent: Vec<&Value> = p4["recent_posts"]
        .as_array()
        .expect("recent")
        .iter()
        .map(|p| &p["post_id"])
        .collect();
    assert_eq!(recent, [&json!(41), &json!(40), &json!(30), &json!(51)]);

    let p9 = api.ok(&caller, "/api/v1/profiles/9").await;
    assert_eq!(p9["username"], "lurker");
    assert_eq!(p9["corpus"]["post_count"], 0);
    assert_eq!(p9["corpus"]["first_post_at"], Value::Null);
    assert_eq!(p9["recent_posts"], json!([]));

    let p11 = api.ok(&caller, "/api/v1/profiles/11").await;
    assert_eq!(p11["corpus"]["post_count"], 12);
    assert_eq!(p11["corpus"]["topic_count"], 1);
    let recent = p11["recent_posts"].as_array().expect("recent");
    assert_eq!(recent.len(), 10, "at most 10 recent posts");
    assert_eq!(recent[0]["post_id"], 111);
    assert_eq!(recent[9]["post_id"], 102);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_malformed_and_parameterised_lookups_are_refused_free() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(1_000);
    for kind in ["posts", "topics", "profiles"] {
        // The contract bounds lookup IDs only from below: an integer beyond the corpus's
        // range is a valid ID of no document.
        for id in [
            "999",
            "9007199254740991",
            "12345678",
            "9007199254740992",
            "99999999999999999999",
        ] {
            api.fails(&caller, &format!("/api/v1/{kind}/{id}"), 404)
                .await;
        }
        for id in ["0", "-1", "abc", "1.5", "01", "+5", "5%20", "1e3"] {
            api.fails(&caller, &format!("/api/v1/{kind}/{id}"), 400)
                .await;
        }
        let known = match kind {
            "posts" => 28,
            "topics" => 5,
            _ => 3,
        };
        for query in ["x=1", "limit=5", "cursor=abc", "id=5", "x="] {
            api.fails(&caller, &format!("/api/v1/{kind}/{known}?{query}"), 400)
                .await;
        }
    }
    // After all those refusals, one good lookup costs exactly one credit.
    let before = api.balance(&caller);
    assert_eq!(before, 1_000, "nothing was charged for refusals");
    api.ok(&caller, "/api/v1/posts/28").await;
    assert_eq!(api.balance(&caller), 999);
}
