//! The API tests' view of the one test app ([`forumdex_testkit::app`]), with the contract
//! checks of [`crate::checks`] on top: [`Paid`] requests whose bodies are checked against the
//! OpenAPI document.

use serde_json::Value;

pub use forumdex_testkit::app::*;

/// One HTTP answer, parsed.
#[derive(Debug, Clone)]
pub struct Resp {
    /// Status code.
    pub status: u16,
    /// The JSON body.
    pub body: Value,
    /// `X-Credits-Charged`.
    pub charged: Option<String>,
    /// `X-Credits-Remaining`.
    pub remaining: Option<u64>,
}

/// Paid requests whose answers are checked against the contract.
pub trait Paid {
    /// `GET path_and_query` with the caller's key, parsed, its body checked against the
    /// document.
    async fn get_as(&self, caller: &Caller, path_and_query: &str) -> Resp;

    /// A GET that must succeed: 200, one credit charged, `X-Credits-Remaining` equal to the
    /// balance afterwards and one less than before.
    async fn ok(&self, caller: &Caller, path_and_query: &str) -> Value;

    /// A GET that must fail with `status`, the contract's error body, and no charge.
    async fn fails(&self, caller: &Caller, path_and_query: &str, status: u16) -> String;
}

impl Paid for TestApp {
    async fn get_as(&self, caller: &Caller, path_and_query: &str) -> Resp {
        let response = self.get(path_and_query, Some(&caller.secret)).await;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().expect("ascii header").to_owned())
        };
        let charged = header("x-credits-charged");
        let remaining = header("x-credits-remaining").map(|v| v.parse().expect("integer"));
        let text = response.text().await.expect("body");
        let body = serde_json::from_str(&text)
            .unwrap_or_else(|err| panic!("{path_and_query}: body is not JSON ({err}): {text}"));
        crate::checks::assert_documented_response(path_and_query, status, &body);
        Resp {
            status,
            body,
            charged,
            remaining,
        }
    }

    async fn ok(&self, caller: &Caller, path_and_query: &str) -> Value {
        let before = self.balance(caller);
        let resp = self.get_as(caller, path_and_query).await;
        assert_eq!(resp.status, 200, "{path_and_query}: {}", resp.body);
        assert_eq!(resp.charged.as_deref(), Some("1"), "{path_and_query}");
        let after = self.balance(caller);
        assert_eq!(after + 1, before, "{path_and_query}: one credit per 200");
        assert_eq!(resp.remaining, Some(after), "{path_and_query}");
        resp.body
    }

    async fn fails(&self, caller: &Caller, path_and_query: &str, status: u16) -> String {
        let before = self.balance(caller);
        let resp = self.get_as(caller, path_and_query).await;
        assert_eq!(resp.status, status, "{path_and_query}: {}", resp.body);
        crate::checks::assert_error_body(&resp.body);
        assert_eq!(resp.charged, None, "{path_and_query}: no charge header");
        assert_eq!(
            self.balance(caller),
            before,
            "{path_and_query}: not charged"
        );
        resp.body["error"].as_str().expect("error text").to_owned()
    }
}
