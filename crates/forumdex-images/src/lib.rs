//! Image objects: originals (JPEG, PNG, GIF, WebP) encoded as AVIF ([`encode_avif`]) and kept
//! content-addressed by the SHA-256 of the AVIF bytes behind the [`ImageObjects`] seam
//! ([`LocalImageObjects`]: a folder of the data directory now, an object store later).
//! The importer writes objects; `forumdex serve` reads them as the CDN origin.

mod encode;
mod objects;

pub use encode::{EncodeError, MAX_SIDE, QUALITY, SPEED, encode_avif};
pub use objects::{ImageObjects, LocalImageObjects, ObjectError, is_object_name, sha256_hex};
