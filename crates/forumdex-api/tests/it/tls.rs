//! HTTPS: with `tls_cert` and `tls_key` set, the same service answers over TLS and its
//! links use `https://`.

use forumdex_api::Server;
use forumdex_settings::Settings;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn serves_over_https_when_a_certificate_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = dir.path().join("cert.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.key_pair.serialize_pem()).unwrap();
    let config = dir.path().join("forumdex.toml");
    std::fs::write(
        &config,
        format!(
            "tls_cert = {:?}\ntls_key = {:?}\n",
            cert.display().to_string(),
            key.display().to_string()
        ),
    )
    .unwrap();
    let settings = Settings::load(
        Some(&config),
        vec![],
        &[("listen", "127.0.0.1:0".to_owned())],
    )
    .unwrap();
    let server = Server::build(settings, dir.path()).await.unwrap();
    let port = server.local_addr().port();
    assert_eq!(
        server.app().settings.server.base_url,
        format!("https://127.0.0.1:{port}")
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run_until_stopped(async {
        let _ = stopped.await;
    }));

    let client = reqwest::Client::builder()
        .no_proxy()
        .add_root_certificate(
            reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap(),
        )
        .build()
        .unwrap();
    let response = client
        .get(format!("https://localhost:{port}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    let unauthorized = client
        .get(format!("https://localhost:{port}/api/v1/posts/1"))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), 401);
    let body: Value = unauthorized.json().await.unwrap();
    assert!(body["error"].is_string());
    // Plain HTTP to the TLS port is not served.
    let plain = reqwest::Client::builder().no_proxy().build().unwrap();
    let plain_served = plain
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await
        .is_ok_and(|response| response.status() == 200);
    assert!(!plain_served);

    let _ = stop.send(());
    task.await.unwrap().unwrap();
}

#[test]
fn a_missing_certificate_fails_at_startup() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forumdex.toml");
    std::fs::write(
        &config,
        "tls_cert = \"/nonexistent/cert.pem\"\ntls_key = \"/nonexistent/key.pem\"\n",
    )
    .unwrap();
    let settings = Settings::load(
        Some(&config),
        vec![],
        &[("listen", "127.0.0.1:0".to_owned())],
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let err = runtime
        .block_on(Server::build(settings, dir.path()))
        .err()
        .expect("startup fails");
    assert!(format!("{err:#}").contains("TLS certificate"), "{err:#}");
}
