//! Image objects: originals (JPEG, PNG, GIF, WebP) encoded as AVIF ([`encode_avif`]) and kept
//! content-addressed by the SHA-256 of the AVIF bytes behind the [`ImageObjects`] seam
//! ([`LocalImageObjects`]: a folder, the data folder's own or a shared mount;
//! [`S3ImageObjects`]: a bucket of an S3-compatible store), chosen by the setting
//! `images_url` ([`ImagesLocation`]). The importer writes objects; `forumdex serve` reads them
//! as the CDN origin.

mod encode;
mod location;
mod objects;
mod s3;

pub use encode::{EncodeError, MAX_SIDE, QUALITY, SPEED, encode_avif};
pub use location::ImagesLocation;
pub use objects::{ImageObjects, LocalImageObjects, ObjectError, is_object_name, sha256_hex};
pub use s3::{S3Access, S3ImageObjects, S3Location};
