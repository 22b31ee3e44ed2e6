//! The machine-readable contract (`openapi.json`): served as committed, complete (every
//! operation of api-contract.md), and in step with the router in both directions. The
//! response bodies of the other tests are validated against it by the helpers
//! ([`crate::checks::assert_documented_response`], [`crate::checks::assert_matches_schema`]).

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::checks::{documented_operation, expect_error, header, openapi, schema_errors};
use crate::harness::TestApp;

/// The committed document, as the server embeds it.
const COMMITTED: &str = include_str!("../../../forumdex-types/openapi.json");

/// The router's source: every `.route("...")` in it must be documented.
const ROUTER_SOURCE: &str = include_str!("../../src/router.rs");

/// The contract's operations: (operationId, path).
const OPERATIONS: &[(&str, &str)] = &[
    ("searchForumPosts", "/api/v1/search"),
    ("searchForumImages", "/api/v1/images/search"),
    ("getForumPost", "/api/v1/posts/{id}"),
    ("getForumTopic", "/api/v1/topics/{id}"),
    ("getForumProfile", "/api/v1/profiles/{id}"),
    ("listForumTopicPosts", "/api/v1/topics/{id}/posts"),
    ("listForumProfilePosts", "/api/v1/profiles/{id}/posts"),
];

/// Free operations: no key, no charge.
const FREE: &[&str] = &["/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"];

const METERING_HEADERS: &[&str] = &[
    "X-Request-Id",
    "X-Credits-Charged",
    "X-Credits-Remaining",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
];

fn paths() -> BTreeSet<&'static str> {
    openapi()["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect()
}

/// The literal paths of the `.route("...")` calls in `source`.
fn routed_paths(source: &str) -> BTreeSet<&str> {
    source
        .split(".route(")
        .skip(1)
        .filter_map(|call| call.trim_start().strip_prefix('"'))
        .map(|literal| &literal[..literal.find('"').expect("a closing quote")])
        .collect()
}

/// A request for a documented path: `{id}` filled with a seeded ID, `q` for searches.
fn concrete(template: &str) -> String {
    let path = template.replace("{id}", "5");
    if template.ends_with("/search") {
        format!("{path}?q=bitcoin")
    } else {
        path
    }
}

#[tokio::test]
async fn the_document_is_served_as_committed_free_of_charge() {
    let server = TestApp::start().await;
    let (account, _, key) = server.funded(10);
    let before = server.money(account);
    for key in [None, Some(key.as_str())] {
        let response = server.get("/api/v1/openapi.json", key).await;
        assert_eq!(response.status(), StatusCode::OK);
        let headers = response.headers().clone();
        assert_eq!(header(&headers, "content-type"), "application/json");
        assert!(!headers.contains_key("x-credits-charged"), "free");
        let text = response.text().await.expect("body");
        assert_eq!(text, COMMITTED, "served document equals the committed file");
    }
    assert_eq!(server.money(account), before, "nothing charged");
}

#[test]
fn the_document_is_openapi_3_1_version_1_2_0_with_every_contract_operation() {
    let document: Value = serde_json::from_str(COMMITTED).expect("valid JSON");
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["version"], "1.2.0");
    let mut operation_ids = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        assert_eq!(
            item.as_object()
                .expect("path item")
                .keys()
                .collect::<Vec<_>>(),
            ["get"],
            "{path}: GET only"
        );
        let id = item["get"]["operationId"].as_str().expect("operationId");
        assert!(operation_ids.insert(id), "operationId {id} is unique");
    }
    for (id, path) in OPERATIONS {
        let operation = &document["paths"][path]["get"];
        assert_eq!(operation["operationId"], *id, "{path}");
        assert!(operation.get("security").is_none(), "{path}: paid");
        let ok = &operation["responses"]["200"];
        for name in METERING_HEADERS {
            assert!(ok["headers"].get(*name).is_some(), "{path}: 200 has {name}");
        }
    }
    let security = document["security"].as_array().expect("global security");
    assert_eq!(security.len(), 2, "Bearer or X-API-Key");
    let schemes = &document["components"]["securitySchemes"];
    assert_eq!(schemes["bearerAuth"]["scheme"], "bearer");
    assert_eq!(schemes["apiKeyHeader"]["name"], "X-API-Key");
    for path in FREE {
        assert_eq!(
            document["paths"][path]["get"]["security"],
            serde_json::json!([]),
            "{path}: free"
        );
    }
    for name in [
        "Author",
        "Board",
        "Merit",
        "PostSummary",
        "Post",
        "Topic",
        "Profile",
        "SearchHit",
        "SearchResponse",
        "Image",
        "ImageSearchResponse",
        "PostList",
        "Error",
    ] {
        assert!(
            document["components"]["schemas"].get(name).is_some(),
            "schema {name}"
        );
    }
    let expected: BTreeSet<&str> = OPERATIONS
        .iter()
        .map(|(_, path)| *path)
        .chain(FREE.iter().copied())
        .collect();
    assert_eq!(paths(), expected, "exactly the contract's paths");
}

#[test]
fn every_route_of_the_router_is_documented() {
    let routed = routed_paths(ROUTER_SOURCE);
    assert!(routed.contains("/api/v1/posts/{id}"), "parsed {routed:?}");
    // The one route without a literal path is the CDN origin, which lives on {cdn_url}
    // rather than {base_url}/api/v1 and is not part of the API document.
    assert_eq!(
        ROUTER_SOURCE.matches(".route(").count(),
        routed.len() + 1,
        "every other route has a literal path"
    );
    assert!(
        ROUTER_SOURCE.contains(".route(&cdn::route_path(&app.links.cdn_url), get(cdn::object))")
    );
    let documented = paths();
    let undocumented: Vec<&&str> = routed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from openapi.json: {undocumented:?}"
    );
}

#[tokio::test]
async fn every_documented_path_is_routed() {
    let server = TestApp::start().await;
    let (_, _, key) = server.funded(100);
    for template in paths() {
        let path = concrete(template);
        let free = FREE.contains(&template);
        let response = server.get(&path, (!free).then_some(key.as_str())).await;
        let status = response.status();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        if template == "/metrics" {
            assert_eq!(status, StatusCode::OK, "{path}");
            continue;
        }
        let body: Value = response.json().await.expect("a JSON body");
        assert_ne!(
            body["error"], "no such route",
            "{template} is documented but not routed"
        );
        assert!(
            status == StatusCode::OK || status == StatusCode::NOT_FOUND,
            "{path}: {status} {body}"
        );
        crate::checks::assert_documented_response(&path, status.as_u16(), &body);
    }
}

#[tokio::test]
async fn undocumented_paths_are_not_routed() {
    let server = TestApp::start().await;
    let (_, _, key) = server.funded(10);
    for path in [
        "/api/v1/posts",
        "/api/v1/posts/28/posts",
        "/api/v1/boards/1",
        "/api/v1/topics/5/posts/29",
        "/api/v2/posts/28",
        "/api/v1/openapi.yaml",
        "/openapi.json",
    ] {
        assert!(documented_operation(path).is_none(), "{path} is documented");
        let (_, body) =
            expect_error(server.get(path, Some(&key)).await, StatusCode::NOT_FOUND).await;
        assert_eq!(body["error"], "no such route", "{path}");
    }
}

#[test]
fn the_schemas_refuse_what_the_contract_forbids() {
    let post = json!({
        "object": "post", "post_id": 28, "topic_id": 5, "post_number": 0, "is_op": true,
        "title": "Welcome",
        "author": {"profile_id": 3, "username": "satoshi", "url": "https://forum.example/index.php?action=profile;u=3"},
        "board": {"board_id": 1, "name": "Bitcoin Discussion"},
        "language": "en", "posted_at": "2009-11-22T18:51:31.000Z",
        "url": "https://forum.example/index.php?topic=5.msg28#msg28",
        "topic_url": "https://forum.example/index.php?topic=5.0",
        "content_html": "Welcome to the forum.", "indexed_at": null,
        "merit": {"total": 12, "distinct_senders": 4, "transactions": 5, "observed_at": null},
    });
    assert_eq!(schema_errors(&post, "Post"), Vec::<String>::new());
    let mut optional_absent = post.clone();
    for name in ["post_number", "language", "posted_at"] {
        optional_absent
            .as_object_mut()
            .expect("object")
            .remove(name);
    }
    assert!(
        schema_errors(&optional_absent, "Post").is_empty(),
        "optional fields"
    );
    let broken = |pointer: &str, value: Option<Value>| {
        let mut body = post.clone();
        let (parent, name) = pointer.rsplit_once('/').expect("a pointer");
        let object = body
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .expect("parent object");
        match value {
            Some(value) => object.insert(name.to_owned(), value),
            None => object.remove(name),
        };
        body
    };
    for (pointer, value) in [
        ("/merit", None),
        ("/indexed_at", None),
        ("/author/url", None),
        ("/extra", Some(json!(1))),
        ("/author/extra", Some(json!(1))),
        ("/object", Some(json!("topic"))),
        ("/posted_at", Some(json!("2009-11-22 18:51"))),
        ("/url", Some(json!(null))),
        ("/merit/total", Some(json!(-1))),
        ("/post_id", Some(json!("28"))),
    ] {
        let body = broken(pointer, value);
        assert!(
            !schema_errors(&body, "Post").is_empty(),
            "{pointer}: {body}"
        );
    }
    let error = json!({"error": "x", "requestId": "3f1c1f5e-8f0a-4d53-9a4b-0a3c2d1e0f00", "creditsCharged": 0, "more": true});
    assert!(
        schema_errors(&error, "Error").is_empty(),
        "additional properties allowed"
    );
    assert!(!schema_errors(&json!({"requestId": "x"}), "Error").is_empty());
    assert!(!schema_errors(&json!({"error": "x", "creditsCharged": 2}), "Error").is_empty());
    assert!(!schema_errors(&json!({"error": "x", "requestId": "no-uuid"}), "Error").is_empty());
}
