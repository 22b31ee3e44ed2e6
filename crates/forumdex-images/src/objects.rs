//! Where AVIF objects live: the [`ImageObjects`] seam and its local-folder implementation.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use forumdex_corpus::ImageObject;
use sha2::{Digest, Sha256};

/// A failure of the object storage (I/O, or the object store's service); the caller reports
/// it and leaves the image out.
#[derive(Debug, thiserror::Error)]
#[error("image objects at {place}: {source}")]
pub struct ObjectError {
    /// The file, folder or object concerned.
    pub place: String,
    /// What failed.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl ObjectError {
    /// `source` at `place`.
    pub fn new(
        place: impl std::fmt::Display,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            place: place.to_string(),
            source: source.into(),
        }
    }
}

/// Content-addressed AVIF objects. Objects are immutable: the same bytes always have the
/// same address, so writers never conflict and readers may cache forever.
pub trait ImageObjects: Send + Sync {
    /// Stores `avif` under its SHA-256 (nothing is written when it is already there) and
    /// returns its address and size.
    fn put(&self, avif: &[u8]) -> Result<ImageObject, ObjectError>;

    /// The bytes of object `sha256` (lowercase hex), `None` when there is no such object
    /// (a malformed name included).
    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, ObjectError>;
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether `name` is an object address: 64 lowercase hex digits.
pub fn is_object_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Where object `sha256` lives below a folder or a key prefix: `<first two hex digits>/<sha256>.avif`.
pub(crate) fn object_key(sha256: &str) -> String {
    format!("{}/{sha256}.avif", &sha256[..2])
}

/// Objects as files `<root>/<first two hex digits>/<sha256>.avif`, written to a temporary
/// file and renamed into place, so a reader never sees a partial object.
#[derive(Debug, Clone)]
pub struct LocalImageObjects {
    root: PathBuf,
}

impl LocalImageObjects {
    /// The folder of image objects inside a data folder.
    pub const FOLDER: &'static str = "images";

    /// The objects of data folder `data_dir` (`<data_dir>/images`, created when missing).
    pub fn open_in(data_dir: &Path) -> Result<Self, ObjectError> {
        Self::open(&data_dir.join(Self::FOLDER))
    }

    /// The objects in folder `root` (created when missing): a data folder's `images`, or a
    /// folder every node mounts (setting `images_url`).
    pub fn open(root: &Path) -> Result<Self, ObjectError> {
        std::fs::create_dir_all(root).map_err(|err| ObjectError::new(root.display(), err))?;
        Ok(Self {
            root: root.to_owned(),
        })
    }

    fn path_of(&self, sha256: &str) -> PathBuf {
        self.root.join(object_key(sha256))
    }
}

impl ImageObjects for LocalImageObjects {
    fn put(&self, avif: &[u8]) -> Result<ImageObject, ObjectError> {
        let sha256 = sha256_hex(avif);
        let path = self.path_of(&sha256);
        let object = ImageObject {
            sha256,
            bytes: avif.len() as u64,
        };
        if std::fs::metadata(&path).is_ok_and(|m| m.len() == object.bytes) {
            return Ok(object);
        }
        let folder = path.parent().expect("an object path has a folder");
        let failed = |err: io::Error| ObjectError::new(path.display(), err);
        std::fs::create_dir_all(folder).map_err(failed)?;
        let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
        file.write_all(avif).map_err(failed)?;
        file.as_file().sync_all().map_err(failed)?;
        file.persist(&path).map_err(|e| failed(e.error))?;
        Ok(object)
    }

    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, ObjectError> {
        if !is_object_name(sha256) {
            return Ok(None);
        }
        let path = self.path_of(sha256);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(ObjectError::new(path.display(), err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // What every `ImageObjects` must do is checked by forumdex-testkit's suite
    // (`tests/it/main.rs`); here, what only the folder layout shows.

    #[test]
    fn one_file_per_object_named_by_its_address() {
        let dir = tempfile::tempdir().unwrap();
        let objects = LocalImageObjects::open_in(dir.path()).unwrap();
        let stored = objects.put(b"avif bytes").unwrap();
        assert_eq!(objects.put(b"avif bytes").unwrap(), stored);
        let files: Vec<_> = walk(&dir.path().join("images"));
        assert_eq!(
            files,
            [dir.path()
                .join("images")
                .join(&stored.sha256[..2])
                .join(format!("{}.avif", stored.sha256))],
            "one file for two puts of the same bytes"
        );
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.path().is_dir() {
                found.extend(walk(&entry.path()));
            } else {
                found.push(entry.path());
            }
        }
        found
    }
}
