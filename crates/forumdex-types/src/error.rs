//! The error body of every non-200 response (api-contract.md "Errors").

use serde::{Deserialize, Serialize};

/// The contract's error body. Keys are camelCase; the optional ones are left out when
/// absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
    /// The request id (also in `X-Request-Id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Always 0: no error is charged.
    pub credits_charged: u8,
    /// With 403: the client address the service detected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_ip: Option<String>,
    /// With 402: where to top up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topup_url: Option<String>,
}
