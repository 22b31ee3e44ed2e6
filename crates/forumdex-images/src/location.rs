//! Where a deployment keeps its image objects: the setting `images_url`, parsed
//! ([`ImagesLocation`]) and opened as an [`ImageObjects`].

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::objects::{ImageObjects, LocalImageObjects, ObjectError};
use crate::s3::{S3ImageObjects, S3Location};

/// Where the image objects live (setting `images_url`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImagesLocation {
    /// A folder: a data folder's `images`, or a mount every node shares.
    Folder(PathBuf),
    /// A bucket of an S3-compatible object store, below a key prefix.
    S3(S3Location),
}

impl ImagesLocation {
    /// Parses the setting: `s3://bucket/prefix`, or a folder. Any other `scheme://` is
    /// refused, as is an empty text.
    pub fn parse(text: &str) -> Result<Self, String> {
        if let Some(rest) = text.strip_prefix("s3://") {
            return S3Location::parse(rest).map(Self::S3);
        }
        if text.is_empty() {
            return Err("images_url must name a folder or an s3://bucket/prefix".to_owned());
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "images_url {text:?}: {scheme}:// is not an image store; name a folder or an \
                 s3://bucket/prefix"
            ));
        }
        Ok(Self::Folder(PathBuf::from(text)))
    }

    /// Opens the objects: a folder is created when missing; an object store is only
    /// configured here (from the usual AWS variables, see [`S3ImageObjects::open`]) and
    /// first reached by the first `put` or `get`.
    pub fn open(&self) -> Result<Arc<dyn ImageObjects>, ObjectError> {
        Ok(match self {
            Self::Folder(folder) => Arc::new(LocalImageObjects::open(folder)?),
            Self::S3(location) => Arc::new(S3ImageObjects::open(location)?),
        })
    }
}

impl fmt::Display for ImagesLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Folder(folder) => write!(f, "{}", folder.display()),
            Self::S3(location) => location.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_buckets_are_told_apart() {
        assert_eq!(
            ImagesLocation::parse("/mnt/images"),
            Ok(ImagesLocation::Folder("/mnt/images".into()))
        );
        assert_eq!(
            ImagesLocation::parse("s3://forumdex-images/prod/avif/"),
            Ok(ImagesLocation::S3(S3Location {
                bucket: "forumdex-images".into(),
                prefix: "prod/avif".into(),
            }))
        );
        let root = ImagesLocation::parse("s3://bucket.example").unwrap();
        assert_eq!(root.to_string(), "s3://bucket.example");
        let ImagesLocation::S3(root) = root else {
            panic!("a bucket")
        };
        let sha = "ab".repeat(32);
        assert_eq!(root.key_of(&sha), format!("ab/{sha}.avif"));
        let prefixed = S3Location::parse("b3k/p/q").unwrap();
        assert_eq!(prefixed.key_of(&sha), format!("p/q/ab/{sha}.avif"));
        assert_eq!(prefixed.to_string(), "s3://b3k/p/q");
    }

    #[test]
    fn bad_locations_are_refused_with_the_reason() {
        for (text, says) in [
            ("", "must name"),
            ("https://example.com/x", "https:// is not an image store"),
            ("s3://", "is not a bucket name"),
            ("s3://ab", "is not a bucket name"),
            ("s3://Upper", "is not a bucket name"),
            ("s3://-dash", "is not a bucket name"),
            ("s3://bucket/a//b", "empty, '.' or '..'"),
            ("s3://bucket/../b", "empty, '.' or '..'"),
        ] {
            let err = ImagesLocation::parse(text).expect_err(text);
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }
}
