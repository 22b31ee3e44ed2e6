//! [`VectorStore`]: where a deployment keeps the semantic leg's post vectors, with the corpus
//! (the embedded `vectors.sqlite` of the data folder, or the shared PostgreSQL database), so
//! that each post is embedded once per deployment and model, not once per node or per index
//! segment: a node that needs a post's vector asks the store first and embeds only what no
//! node has embedded yet.

use std::collections::HashMap;

use crate::error::StoreError;

/// Bytes of [`VectorKey::text_digest`].
pub const TEXT_DIGEST_BYTES: usize = 16;

/// What a vector was made from: a post, and the version of it the model read, named by the
/// digest of the text embedded (an edit that changes the text is a new key; one that does
/// not keeps the vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VectorKey {
    /// Forum post ID.
    pub post_id: i64,
    /// The first [`TEXT_DIGEST_BYTES`] bytes of the SHA-256 of the text embedded.
    pub text_digest: [u8; TEXT_DIGEST_BYTES],
}

/// The post vectors of a deployment, by model version and [`VectorKey`]. A vector is opaque
/// bytes here (the search crate encodes and decodes it). Blocking, like every store seam.
pub trait VectorStore: Send + Sync {
    /// The vectors made by `model` for those of `keys` that have one, by key.
    fn vectors(
        &self,
        model: &str,
        keys: &[VectorKey],
    ) -> Result<HashMap<VectorKey, Vec<u8>>, StoreError>;

    /// Keeps `vectors` made by `model`; a key that has a vector already keeps the one it has
    /// (the model is deterministic: another node made the same). Returns how many were new.
    fn put_vectors(&self, model: &str, vectors: &[(VectorKey, Vec<u8>)])
    -> Result<u64, StoreError>;

    /// Deletes the vectors of every model but those of `keep` (a retired model's: once no
    /// node of the deployment serves it, nothing reads them); returns how many.
    fn prune_vectors(&self, keep: &[&str]) -> Result<u64, StoreError>;

    /// Where the vectors are, for messages (a file, or PostgreSQL).
    fn location(&self) -> String;
}
