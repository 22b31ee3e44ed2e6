//! [`SqliteVectorStore`] (`vectors.sqlite`): the embedded deployment's post vectors, behind
//! `forumdex_corpus::VectorStore`, with the statements `forumdex_sql::post_vectors` shares
//! with PostgreSQL. A database of its own beside the corpus: vectors are derived (a copy of
//! the data folder without them embeds again), so corpus backups leave them out, and the
//! embedding job never waits for an import's write lock.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use forumdex_corpus::{StoreError, VectorKey, VectorStore};
use forumdex_sql::post_vectors::{post_vectors_table, prune_vectors, put_vectors, vectors};
use forumdex_sql::{Dialect, Failure};
use rusqlite::{Connection, TransactionBehavior};

use crate::corpus::map_err;
use crate::{Lite, Pool, Setup};

/// Idle connections kept for reuse (the embedding job and the sync use one each).
const MAX_IDLE_CONNECTIONS: usize = 2;

const SETUP: Setup = Setup {
    name: "vectors",
    busy_timeout: Duration::from_secs(30),
    cache_kib: None,
    temp_in_memory: true,
    foreign_keys: false,
    manual_checkpoints: false,
    refuse_read_only: false,
};

/// The post vectors of a data folder, in `<data>/vectors.sqlite`.
#[derive(Debug)]
pub struct SqliteVectorStore {
    pool: Pool<StoreError>,
}

impl SqliteVectorStore {
    /// The database's file name inside a data folder.
    pub const FILE_NAME: &'static str = "vectors.sqlite";

    /// Opens `<data_dir>/vectors.sqlite`, creating it (and the folder) when missing.
    pub fn open_in(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|err| {
            StoreError::Unavailable(format!("creating {}: {err}", data_dir.display()))
        })?;
        let store = Self {
            pool: Pool::new(
                data_dir.join(Self::FILE_NAME),
                MAX_IDLE_CONNECTIONS,
                connect,
            ),
        };
        store.pool.with(|conn| {
            conn.execute_batch(&post_vectors_table(Dialect::Sqlite))
                .map_err(map_err)
        })?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> PathBuf {
        self.pool.path().to_path_buf()
    }
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    crate::connect(path, &SETUP).map_err(map_err)
}

/// A failure of the shared statements as the store reports it.
fn failure(failure: Failure<forumdex_sql::CellError, rusqlite::Error>) -> StoreError {
    match failure {
        Failure::Db(err) => map_err(err),
        Failure::Refused(err) => StoreError::Unavailable(format!("vectors.sqlite: {err}")),
    }
}

impl VectorStore for SqliteVectorStore {
    fn vectors(
        &self,
        model: &str,
        keys: &[VectorKey],
    ) -> Result<HashMap<VectorKey, Vec<u8>>, StoreError> {
        self.pool
            .with(|conn| vectors(&mut Lite(conn), model, keys).map_err(failure))
    }

    fn put_vectors(&self, model: &str, new: &[(VectorKey, Vec<u8>)]) -> Result<u64, StoreError> {
        self.pool.with(|conn| {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(map_err)?;
            let added = put_vectors(&mut Lite(&tx), model, new).map_err(failure)?;
            tx.commit().map_err(map_err)?;
            Ok(added)
        })
    }

    fn prune_vectors(&self, keep: &[&str]) -> Result<u64, StoreError> {
        self.pool
            .with(|conn| prune_vectors(&mut Lite(conn), keep).map_err(failure))
    }

    fn location(&self) -> String {
        self.pool.path().display().to_string()
    }
}
