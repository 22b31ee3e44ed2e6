//! Image files exist beside the corpus, decode, and are shared by several posts.

use std::collections::{BTreeMap, BTreeSet};

use crate::helpers::corpus;

fn img_sources(html: &str) -> Vec<&str> {
    html.split("<img src=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[test]
fn image_files_exist_and_decode() {
    let corpus = corpus(2_000, 1);
    let folder = corpus.path.parent().expect("folder");
    let mut formats = BTreeSet::new();
    let mut urls = BTreeSet::new();
    for record in corpus.kind("image") {
        let file = record["file"].as_str().expect("file");
        assert!(!file.starts_with('/'), "file must be relative");
        let path = folder.join(file);
        let format = image::ImageFormat::from_path(&path).expect("known extension");
        formats.insert(format!("{format:?}"));
        let picture = image::open(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!((16..=64).contains(&picture.width()) && (16..=64).contains(&picture.height()));
        assert!(urls.insert(record["source_url"].as_str().expect("url").to_owned()));
    }
    assert_eq!(urls.len(), 36);
    assert_eq!(formats.len(), 3, "png, gif and jpeg: {formats:?}");
    assert!(corpus.summary.images_dir.ends_with("corpus-images"));
}

#[test]
fn posts_share_images_and_some_urls_are_unbound() {
    let corpus = corpus(20_000, 1);
    let bound: BTreeSet<String> = corpus
        .kind("image")
        .map(|r| r["source_url"].as_str().expect("url").to_owned())
        .collect();
    let mut uses: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for post in corpus.kind("post") {
        for src in img_sources(post["content_html"].as_str().expect("html")) {
            uses.entry(src.to_owned())
                .or_default()
                .insert(post["post_id"].as_u64().expect("id"));
        }
    }
    assert!(
        uses.iter()
            .any(|(url, posts)| bound.contains(url) && posts.len() >= 3),
        "no image is shared"
    );
    assert!(
        uses.keys().any(|url| !bound.contains(url)),
        "no unbound image URL"
    );
    let high = corpus
        .kind("image")
        .filter(|r| r["nsfw_score"].as_f64().is_some_and(|s| s > 0.9))
        .count();
    let unscored = corpus
        .kind("image")
        .filter(|r| r.get("nsfw_score").is_none())
        .count();
    assert!(high >= 2 && unscored > 18);
}
