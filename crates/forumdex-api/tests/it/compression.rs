//! Answers are compressed for clients that accept it (pages and JSON alike), and sent as they
//! are to the others; a compressed paid answer carries the same charge headers.

use std::io::Read;

use reqwest::header;
use serde_json::Value;

use crate::harness::TestApp;

/// `path` with `Accept-Encoding: gzip`: status, headers and the body, decoded.
async fn gzip_get(
    app: &TestApp,
    path: &str,
    key: Option<&str>,
) -> (u16, header::HeaderMap, Vec<u8>, usize) {
    let mut request = app
        .client
        .get(app.url(path))
        .header(header::ACCEPT_ENCODING, "gzip");
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = app.send(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let wire = response.bytes().await.unwrap();
    let mut body = Vec::new();
    if headers.get(header::CONTENT_ENCODING).is_some() {
        flate2::read::GzDecoder::new(&wire[..])
            .read_to_end(&mut body)
            .expect("a gzip body");
    } else {
        body = wire.to_vec();
    }
    (status, headers, body, wire.len())
}

#[tokio::test]
async fn pages_and_json_are_compressed_for_clients_that_accept_it() {
    let app = TestApp::start().await;
    let plain = app.send(app.client.get(app.url("/docs"))).await.unwrap();
    assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
    let plain = plain.bytes().await.unwrap();

    let (status, headers, body, wire) = gzip_get(&app, "/docs", None).await;
    assert_eq!(status, 200);
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    assert_eq!(body, plain.to_vec(), "the same page once decoded");
    assert!(
        wire * 3 < body.len(),
        "{wire} bytes sent for {}",
        body.len()
    );

    let (status, headers, body, _) = gzip_get(&app, "/api/v1/openapi.json", None).await;
    assert_eq!(status, 200);
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    let document: Value = serde_json::from_slice(&body).expect("JSON once decoded");
    assert!(document["paths"].is_object());

    let (_, _, key) = app.funded(10);
    let (status, headers, body, _) = gzip_get(&app, "/api/v1/search?q=bitcoin", Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    assert_eq!(headers["x-credits-charged"], "1", "the charge headers stay");
    let answer: Value = serde_json::from_slice(&body).expect("JSON once decoded");
    assert!(answer["hits"].is_array(), "{answer}");
}
