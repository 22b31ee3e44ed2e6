//! Image search (`/api/v1/images/search`): [`ImageSearchResponse`] and its [`Image`]s.

use serde::{Deserialize, Serialize};

use crate::resources::PostSummary;
use crate::search::BoardScope;

/// The `object` of an [`ImageSearchResponse`]: always `"image_search"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImageSearchObject {
    /// `"image_search"`.
    #[serde(rename = "image_search")]
    ImageSearch,
}

/// ImageSearchResponse: the cached images of the posts matching a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageSearchResponse {
    /// Always "image_search".
    pub object: ImageSearchObject,
    /// The query as sent.
    pub query: String,
    /// The query whose matches were used, when a spelling correction was applied.
    pub corrected_query: Option<String>,
    /// The requested language, or `all`.
    pub lang: String,
    /// The boards searched: always all.
    pub board_scope: BoardScope,
    /// Whether high-confidence NSFW images were hidden.
    pub hide_nsfw: bool,
    /// Matching posts walked for images.
    pub post_matches_considered: u64,
    /// Distinct (visible) images found in those posts.
    pub total: u64,
    /// The first `size` of them, in the rank order of their posts.
    pub images: Vec<Image>,
}

/// The `object` of an [`Image`]: always `"image"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImageObject {
    /// `"image"`.
    #[serde(rename = "image")]
    Image,
}

/// The media type of image objects: always `"image/avif"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MimeType {
    /// `"image/avif"`.
    #[serde(rename = "image/avif")]
    Avif,
}

/// Image: a cached image object and the post it was found in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// Always "image".
    pub object: ImageObject,
    /// SHA-256 of the AVIF bytes (lowercase hex).
    pub sha256: String,
    /// `{cdn_url}/{sha256}.avif`: the stable CDN URL.
    pub url: String,
    /// Always "image/avif".
    pub mime_type: MimeType,
    /// Size of the AVIF object.
    pub bytes: u64,
    /// Upstream NSFW score, or null.
    pub nsfw_score: Option<f64>,
    /// The post the image was found in.
    pub post: PostSummary,
}
