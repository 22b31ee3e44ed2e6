//! The pool of small images that posts embed, written beside the corpus file.

use std::io::Cursor;
use std::path::Path;

use anyhow::Context as _;
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};

use crate::rng::mix;

/// Number of distinct images in the pool.
pub const POOL_SIZE: usize = 36;

/// Image URLs that posts embed but no `image` record describes (dead hotlinks).
pub const UNBOUND_URLS: [&str; 2] = [
    "https://i.example-img.org/gone/banner-404.png",
    "https://i.example-img.org/gone/old-chart.jpg",
];

const SUBJECTS: [&str; 12] = [
    "chart",
    "logo",
    "meme",
    "avatar",
    "rig",
    "wallet",
    "banner",
    "qr",
    "screenshot",
    "coin",
    "ledger",
    "moon",
];

/// One image of the pool.
#[derive(Debug, Clone)]
pub struct PoolImage {
    /// URL as it appears in posts' `src` attributes.
    pub url: String,
    /// File name inside the images folder.
    pub file_name: String,
    /// Short description used as the `alt` text.
    pub alt: &'static str,
    /// Upstream NSFW classifier score, for the few images that have one.
    pub nsfw_score: Option<f64>,
}

/// Upstream classifier scores: a few clearly NSFW images, a few clearly safe, the rest unscored.
fn nsfw_score(index: usize) -> Option<f64> {
    match index {
        5 => Some(0.97),
        17 => Some(0.93),
        29 => Some(0.88),
        9 => Some(0.12),
        2 | 11 | 20 | 26 => Some(0.02),
        _ => None,
    }
}

/// Draws image `index` of the pool: a deterministic pattern of its own size and colours.
fn draw(seed: u64, index: usize) -> RgbaImage {
    const SIZES: [u32; 5] = [16, 24, 32, 48, 64];
    let key = mix(seed ^ 0x1a4e_5eed, index as u64);
    let width = SIZES[(key % 5) as usize];
    let height = SIZES[((key >> 8) % 5) as usize];
    let base = [(key >> 16) as u8, (key >> 24) as u8, (key >> 32) as u8];
    let pattern = index % 4;
    RgbaImage::from_fn(width, height, |x, y| {
        let noise = (mix(key, u64::from(y * width + x)) & 0x1f) as u8;
        let t = match pattern {
            0 => (x * 255 / width) as u8,
            1 => {
                if (x / 4 + y / 4) % 2 == 0 {
                    220
                } else {
                    30
                }
            }
            2 => {
                let dx = x as i64 - i64::from(width / 2);
                let dy = y as i64 - i64::from(height / 2);
                if dx * dx + dy * dy < i64::from(width * height / 6) {
                    240
                } else {
                    40
                }
            }
            _ => ((x ^ y) * 8) as u8,
        };
        Rgba([
            base[0].wrapping_add(t).wrapping_add(noise),
            base[1].wrapping_sub(t / 2),
            base[2] ^ t,
            255,
        ])
    })
}

/// Writes the pool's files into `dir` (created if missing) and describes them.
pub fn write_pool(seed: u64, dir: &Path) -> anyhow::Result<Vec<PoolImage>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create image folder {}", dir.display()))?;
    let mut pool = Vec::with_capacity(POOL_SIZE);
    for index in 0..POOL_SIZE {
        let (format, ext) = match index % 3 {
            0 => (ImageFormat::Png, "png"),
            1 => (ImageFormat::Gif, "gif"),
            _ => (ImageFormat::Jpeg, "jpg"),
        };
        let pixels = draw(seed, index);
        let picture = if format == ImageFormat::Jpeg {
            DynamicImage::ImageRgb8(DynamicImage::ImageRgba8(pixels).to_rgb8())
        } else {
            DynamicImage::ImageRgba8(pixels)
        };
        let mut bytes = Cursor::new(Vec::new());
        picture
            .write_to(&mut bytes, format)
            .with_context(|| format!("cannot encode image {index}"))?;
        let alt = SUBJECTS[index % SUBJECTS.len()];
        let file_name = format!("{alt}-{index:02}.{ext}");
        let path = dir.join(&file_name);
        std::fs::write(&path, bytes.get_ref())
            .with_context(|| format!("cannot write {}", path.display()))?;
        let url = format!(
            "https://i.example-img.org/{:08x}/{file_name}",
            mix(seed, 0x1_0000 + index as u64) as u32
        );
        pool.push(PoolImage {
            url,
            file_name,
            alt,
            nsfw_score: nsfw_score(index),
        });
    }
    Ok(pool)
}
