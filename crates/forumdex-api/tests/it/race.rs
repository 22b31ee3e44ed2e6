//! Debit last under contention: never more charges than credits.

use reqwest::StatusCode;

use crate::harness::{POST, TestApp};

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_concurrent_requests_spend_exactly_seven_credits() {
    let server = TestApp::builder()
        .config("rate_limit_per_minute = 100000\n")
        .socket()
        .start()
        .await;
    let (account, _, secret) = server.funded(7);
    let ledger_before = server.money(account).1.len();

    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let client = server.client.clone();
            let url = server.url(POST);
            let secret = secret.clone();
            tokio::spawn(async move {
                let response = client
                    .get(url)
                    .bearer_auth(secret)
                    .send()
                    .await
                    .expect("sent");
                let status = response.status();
                let request_id = response
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                (status, request_id)
            })
        })
        .collect();
    let mut results: Vec<(StatusCode, Option<String>)> = Vec::new();
    for task in tasks {
        results.push(task.await.expect("request task"));
    }

    let ok: Vec<&String> = results
        .iter()
        .filter(|(status, _)| *status == StatusCode::OK)
        .filter_map(|(_, id)| id.as_ref())
        .collect();
    let payment = results
        .iter()
        .filter(|(status, _)| *status == StatusCode::PAYMENT_REQUIRED)
        .count();
    let statuses: Vec<u16> = results.iter().map(|(s, _)| s.as_u16()).collect();
    assert_eq!(ok.len(), 7, "{statuses:?}");
    assert_eq!(payment, 93, "{statuses:?}");

    let (balance, ledger) = server.money(account);
    assert_eq!(balance, 0);
    let charges = &ledger[ledger_before..];
    assert_eq!(charges.len(), 7);
    assert!(charges.iter().all(|row| row.amount == -1));
    let mut charged: Vec<&str> = charges
        .iter()
        .filter_map(|r| r.request_id.as_deref())
        .collect();
    let mut answered: Vec<&str> = ok.iter().map(|id| id.as_str()).collect();
    charged.sort_unstable();
    answered.sort_unstable();
    assert_eq!(
        charged, answered,
        "the charged requests are the ones answered 200"
    );
}

/// A request whose time runs out while its debit waits for the accounts database must end
/// consistently: either 503 and nothing charged, or 200 and exactly one charge for it.
///
/// The server runs on its own runtime so that dropping it joins every blocking task: a
/// debit abandoned by a timed-out request gets the chance to commit before the ledger is
/// read, which makes the check deterministic.
#[test]
fn a_timeout_never_answers_503_for_a_charged_request() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime.block_on(
        TestApp::builder()
            .config("request_timeout_ms = 200\n")
            .socket()
            .start(),
    );
    let (account, _, secret) = server.funded(5);
    let before = server.money(account);

    // The operator holds the accounts write lock: reads (authentication, balance) go on,
    // the debit has to wait.
    let mut lock = server.lock_accounts_for_writing();
    let (status, request_id) = runtime.block_on(async {
        let send = server
            .client
            .get(server.url(POST))
            .bearer_auth(&secret)
            .send();
        let mut request = tokio::spawn(send);
        // Long enough for the server's 200 ms bound to pass while the debit waits; not a
        // timing assertion: either outcome is checked below.
        let early = tokio::time::timeout(std::time::Duration::from_secs(1), &mut request).await;
        let response = match early {
            Ok(joined) => joined,
            Err(_) => {
                lock.release();
                request.await
            }
        }
        .expect("request task")
        .expect("sent");
        let id = response
            .headers()
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .expect("x-request-id");
        (response.status(), id)
    });
    lock.release();
    // Joins the server's blocking tasks, including an abandoned debit.
    drop(runtime);

    let (balance, ledger) = server.money(account);
    match status {
        StatusCode::OK => {
            assert_eq!(balance, before.0 - 1);
            assert_eq!(ledger.len(), before.1.len() + 1);
            assert_eq!(
                ledger.last().and_then(|r| r.request_id.clone()),
                Some(request_id)
            );
        }
        StatusCode::SERVICE_UNAVAILABLE => {
            assert_eq!(balance, before.0, "a 503 was charged");
            assert_eq!(ledger, before.1, "a 503 left a ledger row");
        }
        other => panic!("unexpected status {other}"),
    }
}
