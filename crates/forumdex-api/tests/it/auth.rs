//! IP allowlists: 403 with `sourceIp`, forwarding headers believed only from trusted
//! proxies, IPv4-mapped IPv6 peers matched against IPv4 entries.

use std::net::IpAddr;

use forumdex_accounts::{AllowEntry, Allowlist};
use forumdex_api::client_ip::client_ip;
use forumdex_clock::{Clock as _, SystemClock};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::checks::{assert_not_charged, expect_error};
use crate::harness::{POST, SendTo, TestApp};

#[tokio::test(flavor = "multi_thread")]
async fn a_key_restricted_elsewhere_is_403_with_the_peer_address() {
    let server = TestApp::start().await;
    let account = server.account(5);
    let (_, secret) = server.key(account, &["10.0.0.0/8"]);
    let before = server.money(account);

    let (headers, body) =
        expect_error(server.get(POST, Some(&secret)).await, StatusCode::FORBIDDEN).await;
    assert_eq!(body["sourceIp"], "127.0.0.1", "{body}");
    assert!(body.get("topupUrl").is_none());
    assert!(!headers.contains_key("x-credits-remaining"));

    // A forged X-Forwarded-For from an untrusted peer changes nothing.
    for forged in ["10.1.2.3", "192.0.2.1, 10.1.2.3", "10.0.0.1"] {
        let response = server
            .client
            .get(server.url(POST))
            .bearer_auth(&secret)
            .header("x-forwarded-for", forged)
            .header("x-real-ip", "10.9.9.9")
            .header("forwarded", "for=10.9.9.9")
            .send_to(&server)
            .await
            .expect("sent");
        let (_, body) = expect_error(response, StatusCode::FORBIDDEN).await;
        assert_eq!(body["sourceIp"], "127.0.0.1", "{forged}: {body}");
    }
    assert_not_charged(&server, account, &before);
}

/// The allowlist is checked against the peer address (set by the in-process harness as a
/// connection would): a peer inside the list is served, and reported as itself elsewhere.
#[tokio::test(flavor = "multi_thread")]
async fn a_peer_inside_the_allowlist_is_served() {
    let peer = "10.1.2.3:50000".parse().expect("socket address");
    let server = TestApp::builder().peer(peer).start().await;
    let account = server.account(5);
    let (_, inside) = server.key(account, &["10.0.0.0/8"]);
    let (_, outside) = server.key(account, &["192.0.2.0/24"]);
    assert_eq!(
        server.get(POST, Some(&inside)).await.status(),
        StatusCode::OK
    );
    let before = server.money(account);
    let (_, body) = expect_error(
        server.get(POST, Some(&outside)).await,
        StatusCode::FORBIDDEN,
    )
    .await;
    assert_eq!(body["sourceIp"], "10.1.2.3", "{body}");
    assert_not_charged(&server, account, &before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trusted_proxy_forwards_the_client_address() {
    let server = TestApp::with_config("trusted_proxies = \"127.0.0.1\"\n").await;
    let account = server.account(5);
    let (_, secret) = server.key(account, &["10.0.0.0/8"]);
    let before = server.money(account);
    let get = |forwarded: &'static str| {
        server
            .client
            .get(server.url(POST))
            .bearer_auth(&secret)
            .header("x-forwarded-for", forwarded)
            .send_to(&server)
    };

    // The client behind the proxy is in the allowlist.
    let response = get("10.1.2.3").await.expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    // Read right to left: the first untrusted hop is the client; whatever it claims to its
    // left is not believed.
    let (_, body) = expect_error(
        get("10.1.2.3, 192.0.2.1").await.expect("sent"),
        StatusCode::FORBIDDEN,
    )
    .await;
    assert_eq!(body["sourceIp"], "192.0.2.1", "{body}");
    // A trusted hop is skipped.
    let response = get("10.4.4.4, 127.0.0.1").await.expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    // Without the header the peer itself (the proxy) is the client.
    let (_, body) =
        expect_error(server.get(POST, Some(&secret)).await, StatusCode::FORBIDDEN).await;
    assert_eq!(body["sourceIp"], "127.0.0.1");

    let after = server.money(account);
    assert_eq!(after.0, before.0 - 2, "only the two 200s were charged");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ipv4_mapped_peer_matches_ipv4_entries() {
    // The functions first: a mapped peer is canonicalised before it meets the allowlist.
    let mapped: IpAddr = "::ffff:127.0.0.1".parse().expect("ip");
    let seen = client_ip(mapped, &HeaderMap::new(), &[]);
    assert_eq!(seen, "127.0.0.1".parse::<IpAddr>().expect("ip"));
    let list = Allowlist::parse_all(&["127.0.0.0/8"]).expect("list");
    assert!(list.allows(seen) && list.allows(mapped));
    assert!(
        !Allowlist::parse_all(&["10.0.0.0/8"])
            .expect("list")
            .allows(mapped)
    );
    let mapped_entry = AllowEntry::parse("::ffff:127.0.0.1").expect("entry");
    assert!(mapped_entry.contains("127.0.0.1".parse().expect("ip")));

    // Then over a dual-stack socket, when the platform has one.
    let server = match TestApp::builder().socket_on("[::]:0").try_start().await {
        Ok(server) => server,
        Err(err) => {
            eprintln!("skipping the dual-stack part: cannot bind [::]: {err:#}");
            return;
        }
    };
    let url = format!("http://[::ffff:127.0.0.1]:{}{POST}", server.addr.port());
    let probe = server.client.get(&url).send().await;
    if let Err(err) = probe {
        eprintln!("skipping the dual-stack part: cannot connect to {url}: {err}");
        return;
    }
    let account = server.account(5);
    let (_, allowed) = server.key(account, &["127.0.0.1"]);
    let (_, denied) = server.key(account, &["10.0.0.0/8"]);
    let response = server
        .client
        .get(&url)
        .bearer_auth(&allowed)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "mapped peer matched 127.0.0.1"
    );
    let before = server.money(account);
    let response = server
        .client
        .get(&url)
        .bearer_auth(&denied)
        .send()
        .await
        .expect("sent");
    let (_, body) = expect_error(response, StatusCode::FORBIDDEN).await;
    assert_eq!(body["sourceIp"], "127.0.0.1", "canonical IPv4 form: {body}");
    assert_not_charged(&server, account, &before);
    // A plain IPv6 peer is reported as such, and IPv6 entries match it.
    let v6_url = format!("http://[::1]:{}{POST}", server.addr.port());
    if server.client.get(&v6_url).send().await.is_ok() {
        let response = server
            .client
            .get(&v6_url)
            .bearer_auth(&denied)
            .send()
            .await
            .expect("sent");
        let (_, body) = expect_error(response, StatusCode::FORBIDDEN).await;
        assert_eq!(body["sourceIp"], "::1", "{body}");
        let (_, v6_key) = server.key(account, &["::1/128"]);
        let response = server
            .client
            .get(&v6_url)
            .bearer_auth(&v6_key)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::OK);
    }
    // An allowlist changed to the mapped form still matches.
    let key = server
        .store(|accounts| accounts.list_keys(account))
        .expect("keys")[1]
        .key_id
        .clone();
    server
        .store(|accounts| {
            accounts.update_allowlist(
                &key,
                &[AllowEntry::parse("::ffff:127.0.0.1").expect("entry")],
                &[],
            )
        })
        .expect("allow");
    let response = server
        .client
        .get(&url)
        .bearer_auth(&denied)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
}

/// The checks run in the contract's order: key (401), address (403), rate (429), credit
/// (402); a request refused by an earlier check uses nothing of the later ones.
#[tokio::test(flavor = "multi_thread")]
async fn checks_run_in_order_and_refusals_use_no_rate_budget() {
    let server = TestApp::with_config("rate_limit_per_minute = 2\n").await;
    let account = server.account(5);
    let (key_id, secret) = server.key(account, &["10.0.0.0/8"]);
    let before = server.money(account);

    // Denied by address, many times: no rate budget is used.
    for _ in 0..5 {
        let (headers, _) =
            expect_error(server.get(POST, Some(&secret)).await, StatusCode::FORBIDDEN).await;
        assert!(!headers.contains_key("x-ratelimit-remaining"));
    }
    // Revoked and denied by address: 401 comes first.
    let (other_id, other) = server.key(account, &["10.0.0.0/8"]);
    server
        .store(|accounts| accounts.revoke_key(&other_id, SystemClock.now()))
        .expect("revoke");
    expect_error(
        server.get(POST, Some(&other)).await,
        StatusCode::UNAUTHORIZED,
    )
    .await;

    // Allowed again: the full budget of 2 is there.
    server
        .store(|accounts| {
            accounts.update_allowlist(
                &key_id,
                &[AllowEntry::parse("127.0.0.1").expect("entry")],
                &[],
            )
        })
        .expect("allow");
    for remaining in ["1", "0"] {
        let response = server.get(POST, Some(&secret)).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()["x-ratelimit-remaining"].to_str().ok(),
            Some(remaining)
        );
    }
    assert_eq!(server.money(account).0, before.0 - 2);

    // Rate limited with no credit left: 429, not 402.
    let empty = server.account(0);
    let (_, poor) = server.key(empty, &[]);
    for _ in 0..2 {
        expect_error(
            server.get(POST, Some(&poor)).await,
            StatusCode::PAYMENT_REQUIRED,
        )
        .await;
    }
    expect_error(
        server.get(POST, Some(&poor)).await,
        StatusCode::TOO_MANY_REQUESTS,
    )
    .await;
}
