//! Checks of what the service answers: the contract's error body, "nothing was charged",
//! headers, and bodies validated against the committed OpenAPI document (`openapi.json`,
//! JSON Schema 2020-12).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use forumdex_accounts::{AccountId, LedgerEntry};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::TestApp;

/// Checks that `response` is the contract's error body with `status`: a JSON object whose
/// `error` is a non-empty string, whose `requestId` is the `X-Request-Id` header and a UUID,
/// and whose `creditsCharged` is 0. Returns the headers and the body.
pub async fn expect_error(
    response: reqwest::Response,
    status: StatusCode,
) -> (reqwest::header::HeaderMap, Value) {
    assert_eq!(response.status(), status, "status");
    let headers = response.headers().clone();
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "{status}: content type {content_type:?}"
    );
    let body: Value = response.json().await.expect("a JSON error body");
    let error = body["error"].as_str().expect("error is a string");
    assert!(!error.is_empty(), "{status}: empty error message");
    let request_id = header(&headers, "x-request-id");
    assert_eq!(body["requestId"], json!(request_id), "{status}: requestId");
    assert_uuid(&request_id);
    assert_eq!(body["creditsCharged"], json!(0), "{status}: creditsCharged");
    assert_matches_schema(&body, "Error");
    assert!(
        !headers.contains_key("x-credits-charged"),
        "{status}: an error carries no X-Credits-Charged"
    );
    (headers, body)
}

/// Checks that nothing was charged since `before` was taken with [`TestApp::money`].
pub fn assert_not_charged(server: &TestApp, account: AccountId, before: &(u64, Vec<LedgerEntry>)) {
    let after = server.money(account);
    assert_eq!(after.0, before.0, "balance changed");
    assert_eq!(after.1, before.1, "ledger changed");
}

/// A header as text (panics when absent).
pub fn header(headers: &reqwest::header::HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .unwrap_or_else(|| panic!("header {name} missing"))
        .to_str()
        .expect("ASCII header")
        .to_owned()
}

/// A header as an integer (panics when absent or not a number).
pub fn int_header(headers: &reqwest::header::HeaderMap, name: &str) -> i64 {
    header(headers, name)
        .parse()
        .unwrap_or_else(|_| panic!("header {name} is not an integer"))
}

/// Panics unless `text` is a hyphenated UUID.
pub fn assert_uuid(text: &str) {
    let parsed = uuid::Uuid::parse_str(text).unwrap_or_else(|_| panic!("{text:?} is no uuid"));
    assert_eq!(parsed.hyphenated().to_string(), text, "canonical uuid form");
}

/// The committed OpenAPI document, parsed.
pub fn openapi() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        serde_json::from_str(forumdex_api::routes::openapi::DOCUMENT).expect("openapi.json is JSON")
    })
}

/// One JSON Schema (2020-12, formats asserted) per `components.schemas` entry of the
/// document: `{"$ref": "#/components/schemas/<name>", "components": ...}`, so every
/// reference resolves inside the same root.
fn validators() -> &'static BTreeMap<String, jsonschema::Validator> {
    static VALIDATORS: OnceLock<BTreeMap<String, jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let components = &openapi()["components"];
        let names = components["schemas"]
            .as_object()
            .expect("components.schemas is an object");
        names
            .keys()
            .map(|name| {
                let schema = json!({"$ref": format!("#/components/schemas/{name}")});
                (name.clone(), validator(&schema))
            })
            .collect()
    })
}

/// A validator of `schema` (a schema object of the document) with the document's components
/// beside it in the root, so that `#/components/...` references resolve.
fn validator(schema: &Value) -> jsonschema::Validator {
    let mut root = schema.clone();
    let object = root.as_object_mut().expect("a schema object");
    object.insert(
        "$schema".to_owned(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    object.insert("components".to_owned(), openapi()["components"].clone());
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|err| panic!("schema {schema} does not compile: {err}"))
}

fn errors(validator: &jsonschema::Validator, body: &Value) -> Vec<String> {
    validator
        .iter_errors(body)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, body: &Value, what: &str) {
    let errors = errors(validator, body);
    assert!(
        errors.is_empty(),
        "body does not match {what}: {errors:#?}\n{body}"
    );
}

/// Why `body` is not valid against `components.schemas.<schema_name>` (empty: it is).
pub fn schema_errors(body: &Value, schema_name: &str) -> Vec<String> {
    let validator = validators()
        .get(schema_name)
        .unwrap_or_else(|| panic!("openapi.json has no schema {schema_name}"));
    errors(validator, body)
}

/// Panics unless `body` is valid against `components.schemas.<schema_name>` of the document.
pub fn assert_matches_schema(body: &Value, schema_name: &str) {
    let validator = validators()
        .get(schema_name)
        .unwrap_or_else(|| panic!("openapi.json has no schema {schema_name}"));
    assert_valid(validator, body, schema_name);
}

/// The document's `get` operation whose path template matches `path` (`{name}` matches one
/// non-empty segment), with its template.
pub fn documented_operation(path: &str) -> Option<(&'static str, &'static Value)> {
    let segments: Vec<&str> = path.split('/').collect();
    openapi()["paths"]
        .as_object()
        .expect("paths is an object")
        .iter()
        .find(|(template, _)| {
            let parts: Vec<&str> = template.split('/').collect();
            parts.len() == segments.len()
                && parts.iter().zip(&segments).all(|(part, segment)| {
                    part == segment || (part.starts_with('{') && !segment.is_empty())
                })
        })
        .map(|(template, item)| (template.as_str(), &item["get"]))
}

/// Panics unless a `status` answer with `body` to `GET path_and_query` is what the document
/// says: a status the matched operation lists, and a body valid against its schema. A path
/// the document does not know must be a 404 with the error body.
pub fn assert_documented_response(path_and_query: &str, status: u16, body: &Value) {
    let path = path_and_query
        .split(['?', '#'])
        .next()
        .unwrap_or(path_and_query);
    let Some((template, operation)) = documented_operation(path) else {
        assert_eq!(status, 404, "{path}: undocumented path answered {status}");
        assert_matches_schema(body, "Error");
        return;
    };
    let mut response = operation["responses"]
        .get(status.to_string())
        .unwrap_or_else(|| panic!("{template}: status {status} is not documented"));
    if let Some(reference) = response["$ref"].as_str() {
        let name = reference
            .strip_prefix("#/components/responses/")
            .expect("a local response reference");
        response = &openapi()["components"]["responses"][name];
    }
    let schema = response["content"]["application/json"]
        .get("schema")
        .unwrap_or_else(|| panic!("{template} {status}: no application/json schema"));
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        Some(name) => assert_matches_schema(body, name),
        None => assert_valid(&validator(schema), body, &format!("{template} {status}")),
    }
}

/// The error body as a value: `error` text, a uuid `requestId`, `creditsCharged` 0, valid
/// against the document's `Error`.
pub fn assert_error_body(body: &Value) {
    let error = body["error"].as_str().expect("error is a string");
    assert!(!error.is_empty(), "{body}");
    let request_id = body["requestId"].as_str().expect("requestId");
    assert!(uuid::Uuid::parse_str(request_id).is_ok(), "{body}");
    assert_eq!(body["creditsCharged"], 0, "{body}");
    assert_matches_schema(body, "Error");
}
