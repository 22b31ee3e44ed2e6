//! Decoding originals and encoding them as AVIF.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};
use ravif::{Encoder, Img, RGBA8};

/// AVIF quality (0-100) of every object.
pub const QUALITY: f32 = 80.0;
/// rav1e speed (1 slow .. 10 fast): forum images are small; favour import throughput.
pub const SPEED: u8 = 8;
/// The longest accepted side of an original, in pixels.
pub const MAX_SIDE: u32 = 8192;
/// The most memory one decode may allocate.
const MAX_DECODE_BYTES: u64 = 512 << 20;

/// Why an original could not become an AVIF object.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// The bytes are not a JPEG, PNG, GIF or WebP file.
    #[error("not a JPEG, PNG, GIF or WebP image")]
    UnsupportedFormat,
    /// The file claims a supported format but does not decode.
    #[error("cannot decode the {format} image: {reason}")]
    Undecodable {
        /// The format the file claimed.
        format: &'static str,
        /// What the decoder said.
        reason: String,
    },
    /// The encoder failed.
    #[error("AVIF encoding failed: {0}")]
    Encode(String),
}

/// Decodes `original` (JPEG, PNG, GIF: its first frame, or WebP; the format is read from the
/// bytes, not a file name) and encodes it as AVIF at [`QUALITY`] and [`SPEED`] on the calling
/// thread. The same input always gives the same bytes, so equal originals share one object.
pub fn encode_avif(original: &[u8]) -> Result<Vec<u8>, EncodeError> {
    let format = image::guess_format(original).map_err(|_| EncodeError::UnsupportedFormat)?;
    let name = match format {
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Png => "PNG",
        ImageFormat::Gif => "GIF",
        ImageFormat::WebP => "WebP",
        _ => return Err(EncodeError::UnsupportedFormat),
    };
    let undecodable = |reason: String| EncodeError::Undecodable {
        format: name,
        reason,
    };
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    let mut reader = ImageReader::with_format(Cursor::new(original), format);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| undecodable(e.to_string()))?;
    let rgba = decoded.to_rgba8();
    let (width, height) = (rgba.width() as usize, rgba.height() as usize);
    let pixels: Vec<RGBA8> = rgba
        .as_raw()
        .chunks_exact(4)
        .map(|p| RGBA8::new(p[0], p[1], p[2], p[3]))
        .collect();
    let encoded = Encoder::new()
        .with_quality(QUALITY)
        .with_speed(SPEED)
        .with_num_threads(Some(1))
        .encode_rgba(Img::new(&pixels[..], width, height))
        .map_err(|e| EncodeError::Encode(e.to_string()))?;
    Ok(encoded.avif_file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageEncoder, RgbaImage};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = RgbaImage::from_fn(width, height, |x, y| {
            image::Rgba([(x * 7) as u8, (y * 5) as u8, 90, 255])
        });
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(
                image.as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgba8,
            )
            .unwrap();
        out
    }

    #[test]
    fn encodes_deterministically_as_avif() {
        let original = png(20, 12);
        let first = encode_avif(&original).unwrap();
        assert_eq!(&first[4..12], b"ftypavif");
        assert_eq!(first, encode_avif(&original).unwrap());
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(matches!(
            encode_avif(b"plain text, not an image"),
            Err(EncodeError::UnsupportedFormat)
        ));
        let mut truncated = png(20, 12);
        truncated.truncate(40);
        assert!(matches!(
            encode_avif(&truncated),
            Err(EncodeError::Undecodable { format: "PNG", .. })
        ));
    }
}
