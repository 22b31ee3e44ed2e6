//! The storage factory: the one place that builds forumdex's backends from settings.
//!
//! The server and every CLI command ask [`Storage`] for the parts they need: the corpus
//! (split into its read, write and maintenance sides), the account store, the semantic
//! leg's post vectors, the image objects, the rate limiter (in the process, or on Redis for several nodes) and the cursor
//! secret. Which implementation each part gets is
//! decided here from [`StorageSettings`]; callers only ever see the traits. Two kinds:
//! [`StorageKind::Embedded`] (everything in the data folder, the default) and
//! [`StorageKind::Postgres`] (the corpus, accounts and ledger in one PostgreSQL database
//! shared by several nodes); a new backend is a new kind, built here (ARCHITECTURE.md
//! "Adding a backend").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use forumdex_accounts::{AccountStore, DeveloperStore, InMemoryRateLimiter, RateLimiter};
use forumdex_clock::{SharedClock, SystemClock};
use forumdex_corpus::{CorpusMaintenance, CorpusRead, CorpusWrite, VectorStore};
use forumdex_images::{ImageObjects, ImagesLocation, LocalImageObjects};
use forumdex_postgres::copy::{self, CopyCounts};
use forumdex_postgres::{PgAccountStore, PgCorpusStore, PgPool, PgVectorStore};
use forumdex_redis::{LocalFallback, RedisRateLimiter};
use forumdex_sqlite::{SqliteAccountStore, SqliteCorpusStore, SqliteVectorStore};

mod backup;
mod secret;

pub use backup::BackupReport;

/// The file holding the cursor signing secret inside the data folder, by default.
pub const CURSOR_SECRET_FILE: &str = "cursor-secret";

/// Where a deployment keeps its corpus, accounts and image objects (settings `storage`
/// and `database_url`).
#[derive(Clone, PartialEq, Eq, Default)]
pub enum StorageKind {
    /// Everything in the data folder: SQLite databases and an image folder.
    #[default]
    Embedded,
    /// The corpus, accounts and ledger in the PostgreSQL database at `url`, shared by every
    /// node; image objects and search indexes stay in each node's data folder.
    Postgres {
        /// `postgres://user:password@host:port/database`.
        url: String,
    },
}

impl std::fmt::Debug for StorageKind {
    // Not derived: the URL may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Embedded => f.write_str("Embedded"),
            Self::Postgres { .. } => f.write_str("Postgres { url: <redacted> }"),
        }
    }
}

/// What the Redis limiter's keys start with unless the setting `redis_prefix` says otherwise.
pub const DEFAULT_REDIS_PREFIX: &str = RedisRateLimiter::DEFAULT_PREFIX;

/// Which rate limiter the nodes use (setting `rate_limiter`, with `redis_url` and
/// `redis_prefix`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RateLimiterKind {
    /// In the process: exact per node (the embedded default).
    #[default]
    Local,
    /// On the Redis server at this URL: exact across every node that shares it.
    Redis {
        /// `redis://host:port/db`.
        url: String,
        /// What every key of the limiter starts with (setting `redis_prefix`), so that one
        /// Redis server can serve several deployments.
        prefix: String,
        /// While Redis cannot be reached, each node counts alone (setting
        /// `rate_limiter_fallback = "local"`) instead of answering 503.
        local_fallback: bool,
    },
}

/// The storage settings of a deployment, resolved against its data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageSettings {
    /// Which backends.
    pub kind: StorageKind,
    /// The data folder: the embedded backends' home, and every node's own files (search
    /// indexes).
    pub data_dir: PathBuf,
    /// The cursor HMAC key file (setting `cursor_secret_file`; default
    /// `{data_dir}/cursor-secret`). Every node of one deployment uses the same.
    pub cursor_secret_file: PathBuf,
    /// The rate limiter.
    pub rate_limiter: RateLimiterKind,
    /// Where the AVIF image objects live (setting `images_url`; default the folder
    /// `{data_dir}/images`). Several nodes share a mounted folder or an S3 bucket.
    pub images: ImagesLocation,
}

impl StorageSettings {
    /// The embedded defaults for `data_dir`.
    pub fn embedded(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            kind: StorageKind::Embedded,
            cursor_secret_file: data_dir.join(CURSOR_SECRET_FILE),
            rate_limiter: RateLimiterKind::Local,
            images: ImagesLocation::Folder(data_dir.join(LocalImageObjects::FOLDER)),
            data_dir,
        }
    }
}

/// The corpus, as the three sides of one store. Hand each caller only the side it may use.
#[derive(Clone)]
pub struct Corpus {
    /// What the API and the search sync read.
    pub read: Arc<dyn CorpusRead>,
    /// What imports write.
    pub write: Arc<dyn CorpusWrite>,
    /// Garbage collection.
    pub maintenance: Arc<dyn CorpusMaintenance>,
}

/// The factory. Opening a part creates what it needs (a missing data folder, an empty
/// database) and fails with a message naming what could not be opened; parts are opened
/// only when asked for, so a command touches only the files it uses.
#[derive(Debug, Clone)]
pub struct Storage {
    settings: StorageSettings,
    clock: SharedClock,
    reader_cache_kib: Option<u32>,
    writer_cache_kib: Option<u32>,
}

impl Storage {
    /// A factory for `settings`, on the system clock (the stores it opens date their
    /// writes by it).
    pub fn new(settings: StorageSettings) -> Self {
        Self {
            settings,
            clock: SystemClock::shared(),
            reader_cache_kib: None,
            writer_cache_kib: None,
        }
    }

    /// The factory whose embedded corpus gives each read connection a page cache of `kib`
    /// KiB (a server sizes it from its `memory_limit`); the store's default otherwise.
    pub fn with_reader_cache(self, kib: u32) -> Self {
        Self {
            reader_cache_kib: Some(kib),
            ..self
        }
    }

    /// The factory whose embedded corpus gives its writer connection a page cache of `kib`
    /// KiB (an import sizes it from `memory_limit`); the store's default otherwise.
    pub fn with_writer_cache(self, kib: u32) -> Self {
        Self {
            writer_cache_kib: Some(kib),
            ..self
        }
    }

    /// The clock of the stores it opens (and of the commands that use them).
    pub fn clock(&self) -> SharedClock {
        Arc::clone(&self.clock)
    }

    /// The settings it builds from.
    pub fn settings(&self) -> &StorageSettings {
        &self.settings
    }

    /// The data folder (node-local files such as the search indexes live there whatever the
    /// storage kind).
    pub fn data_dir(&self) -> &Path {
        &self.settings.data_dir
    }

    /// Opens the corpus: the embedded one is created and migrated when needed; the
    /// PostgreSQL one must be at this binary's schema (`forumdex db migrate`).
    pub fn corpus(&self) -> anyhow::Result<Corpus> {
        match &self.settings.kind {
            StorageKind::Embedded => {
                let mut store = SqliteCorpusStore::open(self.data_dir())
                    .with_context(|| format!("opening the corpus in {}", self.where_()))?
                    .with_clock(self.clock());
                if let Some(kib) = self.reader_cache_kib {
                    store = store.with_reader_cache(kib);
                }
                if let Some(kib) = self.writer_cache_kib {
                    store = store.with_writer_cache(kib).with_context(|| {
                        format!("sizing the corpus writer in {}", self.where_())
                    })?;
                }
                let store = Arc::new(store);
                Ok(Corpus {
                    read: store.clone(),
                    write: store.clone(),
                    maintenance: store,
                })
            }
            StorageKind::Postgres { url } => {
                let store = Arc::new(
                    PgCorpusStore::open(url)
                        .context("opening the corpus on PostgreSQL")?
                        .with_clock(self.clock()),
                );
                Ok(Corpus {
                    read: store.clone(),
                    write: store.clone(),
                    maintenance: store,
                })
            }
        }
    }

    /// Opens the post vectors of the semantic leg, kept with the corpus: the data folder's
    /// `vectors.sqlite` (created when needed), or the shared PostgreSQL database (whose
    /// schema must be this binary's), where every node reads what another embedded.
    pub fn vectors(&self) -> anyhow::Result<Arc<dyn VectorStore>> {
        match &self.settings.kind {
            StorageKind::Embedded => {
                let store = SqliteVectorStore::open_in(self.data_dir())
                    .with_context(|| format!("opening the post vectors in {}", self.where_()))?;
                Ok(Arc::new(store))
            }
            StorageKind::Postgres { url } => {
                let store =
                    PgVectorStore::open(url).context("opening the post vectors on PostgreSQL")?;
                Ok(Arc::new(store))
            }
        }
    }

    /// Opens (creating when needed) the accounts, keys and ledger.
    pub fn accounts(&self) -> anyhow::Result<Arc<dyn AccountStore>> {
        let store: Arc<dyn AccountStore> = self.developer_accounts()?;
        Ok(store)
    }

    /// Opens the accounts with what the developer dashboard keeps beside them (logins,
    /// sessions, usage, top-ups): the same store as [`Self::accounts`], seen through
    /// [`DeveloperStore`].
    pub fn developer_accounts(&self) -> anyhow::Result<Arc<dyn DeveloperStore>> {
        match &self.settings.kind {
            StorageKind::Embedded => {
                let store = SqliteAccountStore::open_in(self.data_dir()).with_context(|| {
                    format!("cannot open the accounts database in {}", self.where_())
                })?;
                Ok(Arc::new(store))
            }
            StorageKind::Postgres { url } => {
                let store =
                    PgAccountStore::open(url).context("opening the accounts on PostgreSQL")?;
                Ok(Arc::new(store))
            }
        }
    }

    /// `forumdex db migrate`: creates or upgrades the PostgreSQL schema; returns its
    /// version. The embedded databases need no command (they migrate when opened).
    pub fn migrate_database(&self) -> anyhow::Result<i32> {
        match &self.settings.kind {
            StorageKind::Embedded => bail!(
                "there is no database to migrate: storage is \"embedded\" (its databases \
                 upgrade themselves when opened); set storage = \"postgres\" and database_url"
            ),
            StorageKind::Postgres { url } => {
                let pool = PgPool::connect(url).context("connecting to PostgreSQL")?;
                Ok(forumdex_postgres::schema::migrate(&pool)
                    .context("migrating the PostgreSQL schema")?)
            }
        }
    }

    /// `forumdex db copy --from DIR`: copies the embedded data folder `from` (its corpus
    /// with the sequences, accounts, keys, ledger and the dashboard's tables, its post
    /// vectors, and the image objects its corpus records) into the PostgreSQL database and this
    /// deployment's image store. Safe to run again: what is there already is kept.
    /// Returns the rows or objects copied, by table (`image_files` for the objects).
    pub fn copy_from_embedded(&self, from: &Path) -> anyhow::Result<CopyCounts> {
        let StorageKind::Postgres { url } = &self.settings.kind else {
            bail!(
                "forumdex db copy copies into PostgreSQL: set storage = \"postgres\" and database_url"
            );
        };
        let databases = [SqliteCorpusStore::FILE_NAME, SqliteAccountStore::FILE_NAME];
        if !databases.iter().any(|file| from.join(file).is_file()) {
            bail!(
                "{} holds no embedded databases ({} or {})",
                from.display(),
                databases[0],
                databases[1]
            );
        }
        let pool = PgPool::connect(url).context("connecting to PostgreSQL")?;
        let mut counts = copy::copy_embedded(from, &pool)
            .with_context(|| format!("copying {} into PostgreSQL", from.display()))?;
        let names = copy::image_object_names(from)?;
        let mut copied = 0;
        if !names.is_empty() {
            let source = LocalImageObjects::open_in(from)
                .with_context(|| format!("opening the image objects in {}", from.display()))?;
            let target = self.image_objects()?;
            for name in &names {
                if target.get(name)?.is_some() {
                    continue;
                }
                let Some(bytes) = source.get(name)? else {
                    bail!(
                        "image object {name} is recorded in {} but missing",
                        from.display()
                    );
                };
                target.put(&bytes)?;
                copied += 1;
            }
        }
        counts.insert("image_files".to_owned(), copied);
        Ok(counts)
    }

    /// Opens the store of AVIF image objects of the setting `images_url`, whatever the
    /// storage kind: a folder (created when needed), or an S3 bucket (reached at its first
    /// use).
    pub fn image_objects(&self) -> anyhow::Result<Arc<dyn ImageObjects>> {
        let location = &self.settings.images;
        location
            .open()
            .with_context(|| format!("opening the image objects at {location}"))
    }

    /// The per-key rate limiter. A Redis one connects at its first check, so this fails
    /// only on a malformed URL; with `local_fallback` the node counts alone while Redis is
    /// away. A local one beside a shared database is allowed (the
    /// operator chose it) but warned about: each node then admits the full limit.
    pub fn rate_limiter(&self) -> anyhow::Result<Arc<dyn RateLimiter>> {
        Ok(match &self.settings.rate_limiter {
            RateLimiterKind::Local => {
                if let StorageKind::Postgres { .. } = self.settings.kind {
                    tracing::warn!(
                        "rate_limiter = \"local\" with storage = \"postgres\": each node \
                         counts its own requests, so a key gets the limit once per node"
                    );
                }
                Arc::new(InMemoryRateLimiter::new())
            }
            RateLimiterKind::Redis {
                url,
                prefix,
                local_fallback,
            } => {
                let redis =
                    RedisRateLimiter::new(url, prefix.as_str()).context("invalid redis_url")?;
                if *local_fallback {
                    Arc::new(LocalFallback::new(redis))
                } else {
                    Arc::new(redis)
                }
            }
        })
    }

    /// The 32-byte cursor secret from `cursor_secret_file`, created there (hex, owner-only)
    /// when the file does not exist yet, so cursors survive restarts.
    pub fn cursor_secret(&self) -> anyhow::Result<[u8; 32]> {
        secret::load_or_create(&self.settings.cursor_secret_file)
    }

    fn where_(&self) -> String {
        self.settings.data_dir.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_open_only_their_own_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = Storage::new(StorageSettings::embedded(dir.path().join("data")));
        storage.accounts().expect("accounts");
        let names = || -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir.path().join("data"))
                .expect("data folder")
                .map(|entry| entry.expect("entry").file_name().to_string_lossy().into())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(), ["accounts.sqlite"]);
        let corpus = storage.corpus().expect("corpus");
        assert_eq!(
            corpus
                .read
                .snapshot(forumdex_corpus::Millis(0))
                .expect("snapshot")
                .seq,
            0
        );
        assert!(names().contains(&"corpus.sqlite".to_owned()));
    }

    #[test]
    fn the_cursor_secret_is_created_once_where_the_setting_says() {
        let dir = tempfile::tempdir().expect("temp dir");
        let shared = dir.path().join("shared-secret");
        let settings = StorageSettings {
            cursor_secret_file: shared.clone(),
            ..StorageSettings::embedded(dir.path().join("node-a"))
        };
        let first = Storage::new(settings.clone())
            .cursor_secret()
            .expect("created");
        let other_node = StorageSettings {
            data_dir: dir.path().join("node-b"),
            ..settings
        };
        let second = Storage::new(other_node).cursor_secret().expect("read");
        assert_eq!(first, second);
        assert!(shared.is_file());
        assert!(!dir.path().join("node-a").join(CURSOR_SECRET_FILE).exists());
    }
}
