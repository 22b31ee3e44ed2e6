//! [`PgVectorStore`]: the post vectors of a deployment on PostgreSQL (table `post_vectors`,
//! schema version 5 of [`crate::schema`]), shared by every node: a post embedded by one node
//! is read by the others, not embedded again. The statements are
//! `forumdex_sql::post_vectors`, shared with the embedded store.

use std::collections::HashMap;

use forumdex_corpus::{StoreError, VectorKey, VectorStore};
use forumdex_sql::post_vectors::{prune_vectors, put_vectors, vectors};
use forumdex_sql::{AnyDb, CellError, Failure};

use crate::pool::{FromDb, PgError, PgPool};
use crate::schema;

/// The PostgreSQL vector store. Cheap to share behind an `Arc`; safe from many threads and
/// many nodes at once (a vector two nodes write at once is kept once).
#[derive(Debug)]
pub struct PgVectorStore {
    pool: PgPool,
}

impl PgVectorStore {
    /// Connects to the database at `url`, whose schema must be this binary's.
    pub fn open(url: &str) -> Result<Self, PgError> {
        let pool = PgPool::connect(url)?;
        schema::check(&pool)?;
        Ok(Self { pool })
    }
}

/// A failure of the shared statements as the store reports it.
fn failure(failure: Failure<CellError, AnyDb>) -> StoreError {
    match failure {
        Failure::Db(err) => match err.downcast::<postgres::Error>() {
            Ok(err) => StoreError::from_db(err),
            Err(err) => StoreError::Unavailable(err.to_string()),
        },
        Failure::Refused(err) => StoreError::Unavailable(format!("post_vectors: {err}")),
    }
}

impl VectorStore for PgVectorStore {
    fn vectors(
        &self,
        model: &str,
        keys: &[VectorKey],
    ) -> Result<HashMap<VectorKey, Vec<u8>>, StoreError> {
        self.pool
            .with_sql(|db| vectors(db, model, keys))
            .map_err(failure)
    }

    fn put_vectors(&self, model: &str, new: &[(VectorKey, Vec<u8>)]) -> Result<u64, StoreError> {
        self.pool
            .with_sql(|db| put_vectors(db, model, new))
            .map_err(failure)
    }

    fn prune_vectors(&self, keep: &[&str]) -> Result<u64, StoreError> {
        self.pool
            .with_sql(|db| prune_vectors(db, keep))
            .map_err(failure)
    }

    fn location(&self) -> String {
        "in PostgreSQL (storage = \"postgres\")".to_owned()
    }
}
