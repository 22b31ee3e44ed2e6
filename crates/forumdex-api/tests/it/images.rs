//! Images end to end: originals (PNG, GIF, JPEG, WebP) imported by the real importer become
//! AVIF objects, served by the CDN origin byte-exact under their SHA-256 (no key, no charge,
//! immutable caching, 304, ranges), pointed at from content_html and search content, and
//! found by `GET /api/v1/images/search` (dedup, NSFW hiding, sizes, every 400 rule).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::Path;

use forumdex_clock::SystemClock;
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, ImportSummary, import_files};
use forumdex_storage::Storage;
use image::{DynamicImage, ImageFormat, RgbaImage};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::checks::{assert_documented_response, assert_not_charged, expect_error};
use crate::harness::{SendTo, TestApp};

/// An original of the test corpus.
struct Original {
    url: &'static str,
    file: &'static str,
    format: ImageFormat,
    size: (u32, u32),
    shade: u8,
}

const ORIGINALS: &[Original] = &[
    Original {
        url: "https://img.example/red.png",
        file: "red.png",
        format: ImageFormat::Png,
        size: (40, 24),
        shade: 10,
    },
    Original {
        url: "https://img.example/spin.gif",
        file: "spin.gif",
        format: ImageFormat::Gif,
        size: (32, 32),
        shade: 60,
    },
    Original {
        url: "https://img.example/rig.jpg",
        file: "rig.jpg",
        format: ImageFormat::Jpeg,
        size: (64, 48),
        shade: 120,
    },
    Original {
        url: "https://img.example/chart.webp",
        file: "chart.webp",
        format: ImageFormat::WebP,
        size: (24, 40),
        shade: 180,
    },
    // The same bytes as red.png under another URL: one object for both.
    Original {
        url: "https://mirror.example/red-copy.png",
        file: "red-copy.png",
        format: ImageFormat::Png,
        size: (40, 24),
        shade: 10,
    },
    Original {
        url: "https://img.example/nsfw.png",
        file: "nsfw.png",
        format: ImageFormat::Png,
        size: (16, 16),
        shade: 220,
    },
    Original {
        url: "https://img.example/maybe.png",
        file: "maybe.png",
        format: ImageFormat::Png,
        size: (16, 24),
        shade: 240,
    },
];

/// Posts: (post ID, image URL, alt text). Post 101 opens topic 50; all mention "logo".
const POSTS: &[(i64, &str, &str)] = &[
    (101, "https://img.example/red.png", "red logo"),
    (102, "https://img.example/spin.gif", "spinning logo"),
    (103, "https://img.example/rig.jpg", "mining rig logo"),
    (104, "https://img.example/chart.webp", "price chart logo"),
    (
        105,
        "https://mirror.example/red-copy.png",
        "the red logo again",
    ),
    (
        106,
        "https://img.example/nsfw.png",
        "logo not safe for work",
    ),
    (107, "https://img.example/maybe.png", "borderline logo"),
    (108, "https://img.example/missing.png", "missing logo"),
    (109, "https://img.example/broken.png", "broken logo"),
    (
        110,
        "https://elsewhere.example/uncached.png",
        "logo without a record",
    ),
];

fn original_bytes(original: &Original) -> Vec<u8> {
    let (width, height) = original.size;
    let shade = original.shade;
    let pixels = RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([shade, (x * 5) as u8, (y * 7) as u8, 255])
    });
    let image = match original.format {
        ImageFormat::Jpeg => DynamicImage::ImageRgb8(DynamicImage::ImageRgba8(pixels).to_rgb8()),
        _ => DynamicImage::ImageRgba8(pixels),
    };
    let mut out = Cursor::new(Vec::new());
    image
        .write_to(&mut out, original.format)
        .expect("encode the original");
    out.into_inner()
}

fn corpus_lines() -> Vec<String> {
    let at = "2024-05-01T10:00:00Z";
    let mut lines = vec![json!({"kind": "board", "board_id": 7, "name": "Art", "observed_at": at})];
    for (i, (post_id, url, alt)) in POSTS.iter().enumerate() {
        lines.push(json!({
            "kind": "post", "post_id": post_id, "topic_id": 50, "board_id": 7,
            "is_op": i == 0, "post_number": i,
            "title": if i == 0 { "Logo contest".to_owned() } else { "Re: Logo contest".to_owned() },
            "author": {"profile_id": 900 + i, "username": format!("artist{i}")},
            "posted_at": format!("2024-04-{:02}T12:00:00Z", i + 1), "language": "en",
            "content_html": format!("My entry for the logo contest, entry number {post_id}.<br /><img src=\"{url}\" alt=\"{alt}\" />"),
            "observed_at": at,
        }));
    }
    for original in ORIGINALS {
        let nsfw = match original.file {
            "nsfw.png" => json!(0.95),
            "maybe.png" => json!(0.5),
            _ => Value::Null,
        };
        lines.push(json!({"kind": "image", "source_url": original.url, "file": format!("img/{}", original.file), "nsfw_score": nsfw, "observed_at": at}));
    }
    lines.push(json!({"kind": "image", "source_url": "https://img.example/missing.png", "file": "img/missing.png", "observed_at": at}));
    lines.push(json!({"kind": "image", "source_url": "https://img.example/broken.png", "file": "img/broken.png", "observed_at": at}));
    lines.iter().map(Value::to_string).collect()
}

/// Writes the corpus and its image files under `corpus_dir`, then imports it into `storage`
/// with the real importer and image stage.
fn import_corpus(corpus_dir: &Path, storage: &Storage) -> ImportSummary {
    std::fs::create_dir_all(corpus_dir.join("img")).unwrap();
    for original in ORIGINALS {
        std::fs::write(
            corpus_dir.join("img").join(original.file),
            original_bytes(original),
        )
        .unwrap();
    }
    std::fs::write(
        corpus_dir.join("img/broken.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    let file = corpus_dir.join("corpus.jsonl");
    std::fs::write(&file, corpus_lines().join("\n")).unwrap();
    let corpus = storage.corpus().unwrap();
    let options = ImportOptions {
        progress: false,
        images: Some(storage.image_objects().unwrap()),
        ..ImportOptions::default()
    };
    let summary = import_files(
        corpus.write.as_ref(),
        &[Source::File(file)],
        &options,
        |r| panic!("unexpected rejection {r:?}"),
    )
    .unwrap();
    forumdex_search::SearchIndexes::open(storage.data_dir())
        .unwrap()
        .sync(corpus.read.as_ref())
        .unwrap();
    summary
}

struct World {
    server: TestApp,
    summary: ImportSummary,
    _corpus: tempfile::TempDir,
}

async fn world() -> World {
    let corpus = tempfile::tempdir().unwrap();
    let mut summary = None;
    let server = TestApp::builder()
        .prepare(|storage| summary = Some(import_corpus(corpus.path(), storage)))
        .start()
        .await;
    World {
        server,
        summary: summary.unwrap(),
        _corpus: corpus,
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

async fn json_of(server: &TestApp, path: &str, key: &str) -> Value {
    let response = server.get(path, Some(key)).await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_documented_response(path, status.as_u16(), &body);
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

/// The CDN URL each post's content_html carries for its image, by post ID.
async fn cdn_urls_by_post(world: &World, key: &str) -> BTreeMap<i64, String> {
    let mut urls = BTreeMap::new();
    for (post_id, _, _) in POSTS {
        let post = json_of(&world.server, &format!("/api/v1/posts/{post_id}"), key).await;
        let html = post["content_html"].as_str().unwrap();
        let src = html
            .split("src=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        urls.insert(*post_id, src.to_owned());
    }
    urls
}

#[tokio::test]
async fn imported_originals_come_back_from_the_cdn_as_avif() {
    let world = world().await;
    assert_eq!(world.summary.images, 9);
    assert_eq!(
        world.summary.images_cached, 7,
        "{:?}",
        world.summary.image_failures
    );
    assert_eq!(world.summary.images_failed, 2);
    let reasons: BTreeMap<&str, &str> = world
        .summary
        .image_failures
        .iter()
        .map(|f| (f.source_url.as_str(), f.reason.as_str()))
        .collect();
    assert!(
        reasons["https://img.example/missing.png"].contains("cannot read"),
        "{reasons:?}"
    );
    assert!(
        reasons["https://img.example/broken.png"].contains("PNG"),
        "{reasons:?}"
    );

    let (account, _, key) = world.server.funded(100);
    let urls = cdn_urls_by_post(&world, &key).await;
    let cdn = world.server.url("/cdn/");
    // Cached images point at the CDN; missing, broken and unrecorded ones keep their URL.
    for (post_id, original, _) in POSTS {
        let cached = ORIGINALS.iter().any(|o| o.url == *original);
        assert_eq!(
            urls[post_id].starts_with(&cdn),
            cached,
            "post {post_id}: {}",
            urls[post_id]
        );
        if !cached {
            assert_eq!(urls[post_id], *original);
        }
    }
    // The same bytes under two URLs are one object.
    assert_eq!(urls[&101], urls[&105]);
    let distinct: BTreeSet<&String> = urls.values().filter(|u| u.starts_with(&cdn)).collect();
    assert_eq!(distinct.len(), 6);
    assert_eq!(
        count_files(
            &world
                .server
                .dir
                .path()
                .join(forumdex_images::LocalImageObjects::FOLDER)
        ),
        6
    );

    let before = world.server.money(account);
    for (post_id, original) in [
        (101, &ORIGINALS[0]),
        (102, &ORIGINALS[1]),
        (103, &ORIGINALS[2]),
        (104, &ORIGINALS[3]),
    ] {
        let url = &urls[&post_id];
        let sha = url
            .strip_prefix(&cdn)
            .unwrap()
            .strip_suffix(".avif")
            .unwrap();
        // No key at all: the CDN is public.
        let response = world
            .server
            .client
            .get(url)
            .send_to(&world.server)
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "image/avif");
        assert_eq!(headers["etag"], format!("\"{sha}\"").as_str());
        assert_eq!(
            headers["cache-control"],
            "public, max-age=31536000, immutable"
        );
        assert!(!headers.contains_key("x-credits-charged"));
        let bytes = response.bytes().await.unwrap();
        assert_eq!(
            sha256_hex(&bytes),
            sha,
            "{url}: byte-exact under its SHA-256"
        );
        assert_eq!(headers["content-length"], bytes.len().to_string().as_str());
        let decoded = zenavif::decode(&bytes).expect("the object decodes as AVIF");
        assert_eq!(
            (decoded.width(), decoded.height()),
            original.size,
            "{}: the AVIF has the original's dimensions",
            original.file
        );
    }
    assert_not_charged(&world.server, account, &before);
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                count_files(&e.path())
            } else {
                1
            }
        })
        .sum()
}

#[tokio::test]
async fn the_cdn_answers_conditional_and_range_requests() {
    let world = world().await;
    let (account, _, key) = world.server.funded(100);
    let url = cdn_urls_by_post(&world, &key).await[&103].clone();
    let before = world.server.money(account);
    let client = &world.server.client;
    let whole = client
        .get(&url)
        .send_to(&world.server)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let etag = format!("\"{}\"", sha256_hex(&whole));
    let len = whole.len();

    let not_modified = client
        .get(&url)
        .header("If-None-Match", &etag)
        .send_to(&world.server)
        .await
        .unwrap();
    assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(not_modified.headers()["etag"], etag.as_str());
    assert_eq!(
        not_modified.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(not_modified.bytes().await.unwrap().is_empty());
    let changed = client
        .get(&url)
        .header("If-None-Match", "\"other\"")
        .send_to(&world.server)
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::OK);

    for (range, start, end) in [
        ("bytes=0-15".to_owned(), 0, 15),
        (format!("bytes=10-{}", len + 100), 10, len - 1),
        ("bytes=-20".to_owned(), len - 20, len - 1),
        (format!("bytes={}-", len - 1), len - 1, len - 1),
    ] {
        let part = client
            .get(&url)
            .header("Range", &range)
            .send_to(&world.server)
            .await
            .unwrap();
        assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            part.headers()["content-range"],
            format!("bytes {start}-{end}/{len}").as_str()
        );
        assert_eq!(part.headers()["etag"], etag.as_str());
        assert_eq!(part.bytes().await.unwrap(), whole[start..=end], "{range}");
    }
    let past = client
        .get(&url)
        .header("Range", format!("bytes={len}-"))
        .send_to(&world.server)
        .await
        .unwrap();
    let (headers, _) = expect_error(past, StatusCode::RANGE_NOT_SATISFIABLE).await;
    assert_eq!(headers["content-range"], format!("bytes */{len}").as_str());
    // A stale If-Range or several ranges get the whole object.
    for (name, value) in [("If-Range", "\"stale\""), ("X-Unused", "")] {
        let mut request = client.get(&url).header("Range", "bytes=0-1,4-5");
        if name == "If-Range" {
            request = client
                .get(&url)
                .header("Range", "bytes=0-1")
                .header(name, value);
        }
        let response = request.send_to(&world.server).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.bytes().await.unwrap(), whole);
    }
    let head = client.head(&url).send_to(&world.server).await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(head.headers()["content-length"], len.to_string().as_str());
    // Unknown or malformed object names are JSON 404s, with or without a key.
    for path in [
        format!("/cdn/{}.avif", "0".repeat(64)),
        format!("/cdn/{}.png", sha256_hex(&whole)),
        format!("/cdn/{}.avif", sha256_hex(&whole).to_uppercase()),
        "/cdn/..%2Fcorpus.sqlite".to_owned(),
        "/cdn/x.avif".to_owned(),
    ] {
        expect_error(world.server.get(&path, None).await, StatusCode::NOT_FOUND).await;
        expect_error(
            world.server.get(&path, Some(&key)).await,
            StatusCode::NOT_FOUND,
        )
        .await;
    }
    assert_not_charged(&world.server, account, &before);
}

#[tokio::test]
async fn search_content_points_at_the_cdn() {
    let world = world().await;
    let (_, _, key) = world.server.funded(100);
    let urls = cdn_urls_by_post(&world, &key).await;
    let body = json_of(
        &world.server,
        "/api/v1/search?q=logo%20contest&include_low_quality=1",
        &key,
    )
    .await;
    let hits = body["hits"].as_array().unwrap();
    assert_eq!(hits.len(), POSTS.len(), "{body}");
    for hit in hits {
        let post_id = hit["post_id"].as_i64().unwrap();
        let content = hit["content"].as_str().unwrap();
        assert!(
            content.contains(&urls[&post_id]),
            "post {post_id}: {content}"
        );
        let alt = POSTS.iter().find(|p| p.0 == post_id).unwrap().2;
        assert!(
            content.contains(alt),
            "post {post_id}: alt text in {content}"
        );
    }
    // Alt text is searchable: only post 104 describes a price chart.
    let body = json_of(&world.server, "/api/v1/search?q=price%20chart", &key).await;
    let found: Vec<i64> = body["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["post_id"].as_i64().unwrap())
        .collect();
    assert_eq!(found, vec![104]);
}

#[tokio::test]
async fn image_search_dedups_hides_nsfw_and_honours_size() {
    let world = world().await;
    let (account, _, key) = world.server.funded(100);
    let urls = cdn_urls_by_post(&world, &key).await;
    let sha_of = |post_id: i64| {
        urls[&post_id]
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".avif")
            .to_owned()
    };

    let before = world.server.money(account);
    let body = json_of(
        &world.server,
        "/api/v1/images/search?q=logo&include_low_quality=1",
        &key,
    )
    .await;
    assert_eq!(world.server.money(account).0, before.0 - 1, "one credit");
    assert_eq!(body["object"], "image_search");
    assert_eq!(body["query"], "logo");
    assert_eq!(
        body["board_scope"], "all",
        "image search has no board filter"
    );
    assert_eq!(body["hide_nsfw"], true);
    assert_eq!(body["post_matches_considered"], POSTS.len());
    let images = body["images"].as_array().unwrap();
    let shas: Vec<String> = images
        .iter()
        .map(|i| i["sha256"].as_str().unwrap().to_owned())
        .collect();
    let distinct: BTreeSet<&String> = shas.iter().collect();
    assert_eq!(distinct.len(), shas.len(), "each object once: {shas:?}");
    // red (101 and 105 share it), gif, jpeg, webp and the 0.5 image; not the 0.95 one.
    let expected: BTreeSet<String> = [101, 102, 103, 104, 107].into_iter().map(sha_of).collect();
    assert_eq!(shas.iter().cloned().collect::<BTreeSet<_>>(), expected);
    assert_eq!(body["total"], 5);
    for image in images {
        assert_eq!(image["object"], "image");
        assert_eq!(image["mime_type"], "image/avif");
        let sha = image["sha256"].as_str().unwrap();
        assert_eq!(image["url"], world.server.url(&format!("/cdn/{sha}.avif")));
        let bytes = world
            .server
            .client
            .get(image["url"].as_str().unwrap())
            .send_to(&world.server)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(image["bytes"], bytes.len(), "advertised size");
        let post_id = image["post"]["post_id"].as_i64().unwrap();
        assert_eq!(sha_of(post_id), sha, "found in a post that shows it");
        let full = json_of(&world.server, &format!("/api/v1/posts/{post_id}"), &key).await;
        for &field in crate::resources::shapes::SUMMARY_KEYS {
            assert_eq!(image["post"][field], full[field], "{field}");
        }
    }
    let nsfw = |body: &Value| -> Vec<Value> {
        body["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["nsfw_score"].clone())
            .collect()
    };
    assert!(nsfw(&body).contains(&json!(0.5)));
    assert!(nsfw(&body).contains(&Value::Null));

    let shown = json_of(
        &world.server,
        "/api/v1/images/search?q=logo&include_low_quality=1&hide_nsfw=0",
        &key,
    )
    .await;
    assert_eq!(shown["hide_nsfw"], false);
    assert_eq!(shown["total"], 6);
    assert!(nsfw(&shown).contains(&json!(0.95)));

    let one = json_of(
        &world.server,
        "/api/v1/images/search?q=logo&include_low_quality=1&size=1",
        &key,
    )
    .await;
    assert_eq!(one["images"].as_array().unwrap().len(), 1);
    assert_eq!(one["total"], 5);
    assert_eq!(one["images"][0], body["images"][0], "the best image first");
    let most = json_of(
        &world.server,
        "/api/v1/images/search?q=logo&include_low_quality=1&size=50",
        &key,
    )
    .await;
    assert_eq!(most["images"], body["images"]);
    let none = json_of(&world.server, "/api/v1/images/search?q=zzzqqq", &key).await;
    assert_eq!(none["images"], json!([]));
    assert_eq!(none["total"], 0);
}

#[tokio::test]
async fn image_search_refuses_invalid_parameters_without_charge() {
    let world = world().await;
    let (account, _, key) = world.server.funded(100);
    let before = world.server.money(account);
    let long = "a".repeat(513);
    let cases = [
        "".to_owned(),
        "?q=".to_owned(),
        format!("?q={long}"),
        "?size=3".to_owned(),
        "?q=logo&size=0".to_owned(),
        "?q=logo&size=51".to_owned(),
        "?q=logo&size=-1".to_owned(),
        "?q=logo&size=2.5".to_owned(),
        "?q=logo&size=ten".to_owned(),
        "?q=logo&size=".to_owned(),
        "?q=logo&size=2&size=2".to_owned(),
        "?q=logo&hide_nsfw=1".to_owned(),
        "?q=logo&hide_nsfw=false".to_owned(),
        "?q=logo&hide_nsfw=".to_owned(),
        "?q=logo&lang=EN".to_owned(),
        "?q=logo&freshness=0".to_owned(),
        "?q=logo&include_low_quality=0".to_owned(),
        "?q=logo&page=2".to_owned(),
        "?q=logo&q=logo".to_owned(),
    ];
    for case in &cases {
        let path = format!("/api/v1/images/search{case}");
        let response = world.server.get(&path, Some(&key)).await;
        let (_, body) = expect_error(response, StatusCode::BAD_REQUEST).await;
        assert_documented_response(&path, 400, &body);
    }
    assert_not_charged(&world.server, account, &before);
    expect_error(
        world.server.get("/api/v1/images/search?q=logo", None).await,
        StatusCode::UNAUTHORIZED,
    )
    .await;
}

#[tokio::test]
async fn collection_pages_point_at_the_cdn() {
    let world = world().await;
    let (_, _, key) = world.server.funded(100);
    let urls = cdn_urls_by_post(&world, &key).await;
    let page = json_of(&world.server, "/api/v1/topics/50/posts?limit=100", &key).await;
    let data = page["data"].as_array().unwrap();
    assert_eq!(data.len(), POSTS.len());
    for post in data {
        let post_id = post["post_id"].as_i64().unwrap();
        assert!(
            post["content_html"]
                .as_str()
                .unwrap()
                .contains(&format!("src=\"{}\"", urls[&post_id]))
        );
    }
    let topic = json_of(&world.server, "/api/v1/topics/50", &key).await;
    assert!(
        topic["first_post"]["content_html"]
            .as_str()
            .unwrap()
            .contains(&urls[&101])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_search_leaves_out_what_is_taken_down() {
    use forumdex_corpus::{Millis, TakedownTarget};
    let world = world().await;
    let (_, _, key) = world.server.funded(100);
    let urls = cdn_urls_by_post(&world, &key).await;
    let path = "/api/v1/images/search?q=logo&include_low_quality=1";
    let found = |body: &Value| -> BTreeMap<String, i64> {
        body["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let url = i["url"].as_str().unwrap().to_owned();
                (url, i["post"]["post_id"].as_i64().unwrap())
            })
            .collect()
    };
    let before = json_of(&world.server, path, &key).await;
    assert!(found(&before).contains_key(&urls[&102]));

    for post in [102, 101] {
        world
            .server
            .importer(|corpus| {
                corpus.add_takedown(
                    TakedownTarget::Post(post),
                    "test",
                    Millis::now(&SystemClock),
                )
            })
            .unwrap();
    }
    let after = json_of(&world.server, path, &key).await;
    assert_eq!(after["post_matches_considered"], POSTS.len() - 2);
    assert_eq!(after["total"], 4, "{after}");
    let after = found(&after);
    assert!(!after.contains_key(&urls[&102]), "only post 102 showed it");
    assert_eq!(
        after.get(&urls[&101]),
        Some(&105),
        "the object 101 shared with 105 is still found, in 105"
    );
    assert!(after.values().all(|post| *post != 101 && *post != 102));
}
