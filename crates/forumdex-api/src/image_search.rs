//! Image search's domain work, apart from its route: from the ranked matches of a post
//! search, the distinct cached images in rank order, the high-confidence NSFW ones left out
//! when asked, each with the post it was found in (all posts fetched in one batched read).

use std::collections::HashSet;

use forumdex_corpus::{CachedImage, CorpusRead, Millis, PostDoc, StoreError};
use forumdex_search::Hit;

use crate::cdn;

/// NSFW scores from this value up are high-confidence: hidden unless `hide_nsfw=0`.
pub const NSFW_THRESHOLD: f64 = 0.9;

/// What to collect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageQuery {
    /// How many images to return with their posts.
    pub size: usize,
    /// Whether images scored at least [`NSFW_THRESHOLD`] are left out (an image without a
    /// score is never hidden).
    pub hide_nsfw: bool,
}

/// One image found, with the best-ranked post it appears in, as the lookups show it.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundImage {
    /// The cached object and its score.
    pub image: CachedImage,
    /// The post.
    pub post: PostDoc,
}

/// The images of a set of matches.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundImages {
    /// Distinct visible images in all the matches.
    pub total: usize,
    /// The first `size` of them, in the rank order of their posts.
    pub images: Vec<FoundImage>,
}

/// Walks `hits` in rank order and collects their cached images at the newest snapshot
/// (taken at `now`), each object once (the first, best-ranked post it appears in is the
/// one reported); the posts of the first `query.size` come from one batched read at the
/// same snapshot.
pub fn find_images(
    corpus: &dyn CorpusRead,
    hits: &[Hit],
    query: ImageQuery,
    now: Millis,
) -> Result<FoundImages, StoreError> {
    let (cached, seq) = cdn::hit_images(corpus, hits, now)?;
    let mut seen = HashSet::new();
    let mut found: Vec<(i64, &CachedImage)> = Vec::new();
    for hit in hits {
        for source in &hit.images {
            let Some(image) = cached.get(source) else {
                continue;
            };
            let nsfw = image.nsfw_score.is_some_and(|s| s >= NSFW_THRESHOLD);
            if (query.hide_nsfw && nsfw) || !seen.insert(image.object.sha256.as_str()) {
                continue;
            }
            found.push((hit.post_id, image));
        }
    }
    let shown = &found[..query.size.min(found.len())];
    let post_ids: Vec<i64> = shown.iter().map(|(post_id, _)| *post_id).collect();
    let posts = if post_ids.is_empty() {
        Default::default()
    } else {
        corpus.posts(&post_ids, seq)?
    };
    let images = shown
        .iter()
        .filter_map(|(post_id, image)| {
            // A post shown by the index but gone from the snapshot is left out.
            let post = posts.get(post_id)?.clone();
            Some(FoundImage {
                image: (*image).clone(),
                post,
            })
        })
        .collect();
    Ok(FoundImages {
        total: found.len(),
        images,
    })
}
