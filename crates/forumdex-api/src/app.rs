//! Shared state: [`App`], one `Arc` for every request, built by [`App::build`] from the
//! settings, the storage factory and a clock. The router lives in [`crate::router`], the
//! middleware in [`crate::pipeline`].

use std::sync::Arc;

use anyhow::Context;
use forumdex_accounts::{AccountStore, DeveloperStore, RateLimiter};
use forumdex_corpus::{CorpusMaintenance, CorpusRead};
use forumdex_dashboard::Dashboard;
use forumdex_images::ImageObjects;
use forumdex_search::SearchIndexes;
use forumdex_search::semantic::Semantic;
use forumdex_settings::{SemanticModelSetting, Settings};
use forumdex_storage::Storage;

use crate::clock::Clock;
use crate::metrics::Metrics;
use crate::request_log::RequestLog;
use crate::search_sync::SearchSync;
use crate::usage::UsageRecorder;
use crate::wire::Links;

/// Everything a request may need. The corpus is held by its read side only: the HTTP layer
/// cannot write it.
pub struct App {
    /// The resolved settings.
    pub settings: Settings,
    /// The corpus, read side.
    pub corpus: Arc<dyn CorpusRead>,
    /// Accounts, keys and credits.
    pub accounts: Arc<dyn AccountStore>,
    /// The same store with what the dashboard keeps (usage counts are written through it).
    pub developers: Arc<dyn DeveloperStore>,
    /// The developer dashboard (its own routes, beside the API's).
    pub dashboard: Arc<Dashboard>,
    /// Per-key request counts waiting to be written.
    pub usage: UsageRecorder,
    /// Requests for the dashboard's request log waiting to be written.
    pub request_log: RequestLog,
    /// Per-key rate limits.
    pub rate_limiter: Arc<dyn RateLimiter>,
    /// Secret that signs collection cursors.
    pub cursor_secret: [u8; 32],
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// How forum and CDN URLs are built.
    pub links: Links,
    /// The language indexes of post search (kept in sync by the server).
    pub search: Arc<SearchIndexes>,
    /// Where the search indexes stand (the sync task publishes each pass).
    pub search_sync: SearchSync,
    /// The AVIF objects the CDN origin serves.
    pub images: Arc<dyn ImageObjects>,
    /// What time it is.
    pub clock: Arc<dyn Clock>,
}

impl App {
    /// Opens every part `storage` builds, and the search indexes of its data folder. Also
    /// returns the corpus's maintenance side, which only the server's background collector
    /// holds. Blocks: call it off async threads (like every store call).
    pub fn build(
        settings: Settings,
        storage: &Storage,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<(Self, Arc<dyn CorpusMaintenance>)> {
        let corpus = storage.corpus()?;
        let developers = storage.developer_accounts()?;
        let accounts: Arc<dyn AccountStore> = developers.clone();
        let cursor_secret = storage.cursor_secret()?;
        let dashboard = crate::dashboard::build(
            &settings,
            storage.data_dir(),
            &cursor_secret,
            Arc::clone(&developers),
            Arc::clone(&clock),
        )?;
        let search = SearchIndexes::open(storage.data_dir())
            .context("opening the search indexes")?
            .with_writer_bytes(settings.server.index_writer_bytes());
        if let Some(semantic) = semantic_leg(&settings, storage) {
            search.attach_semantic(semantic);
        }
        let start_seq = corpus
            .read
            .latest_seq()
            .context("reading the corpus's newest sequence")?;
        seal_plain_two_factor_secrets(&dashboard)?;
        let images = storage.image_objects()?;
        let links = Links {
            forum_url: settings.server.forum_url.clone(),
            cdn_url: settings.server.cdn_url.clone(),
        };
        let app = Self {
            settings,
            corpus: corpus.read,
            accounts,
            developers,
            dashboard: Arc::new(dashboard),
            usage: UsageRecorder::default(),
            request_log: RequestLog::default(),
            rate_limiter: storage.rate_limiter()?,
            cursor_secret,
            metrics: Metrics::default(),
            links,
            search: Arc::new(search),
            search_sync: SearchSync::new(start_seq),
            images,
            clock,
        };
        Ok((app, corpus.maintenance))
    }
}

/// Seals the two-factor secrets an earlier version stored plain (`second_factor::
/// seal_plain_secrets`), and says so; a secret this node's cursor secret does not open is
/// warned about, since its owner cannot finish signing in here.
fn seal_plain_two_factor_secrets(dashboard: &Dashboard) -> anyhow::Result<()> {
    let pass = forumdex_dashboard::second_factor::seal_plain_secrets(
        dashboard.store.as_ref(),
        &dashboard.config.two_factor_seal,
    )
    .context("sealing two-factor secrets stored plain")?;
    if pass.sealed > 0 {
        tracing::info!(
            sealed = pass.sealed,
            "two-factor secrets stored plain are sealed now"
        );
    }
    if pass.unopenable > 0 {
        tracing::warn!(
            unopenable = pass.unopenable,
            "two-factor secrets that this node's cursor_secret_file does not open: their owners \
             cannot finish signing in (is it the deployment's? `forumdex accounts \
             two-factor-off ACCOUNT_ID` lets an owner sign in with the password alone)"
        );
    }
    Ok(())
}

/// The semantic leg the `semantic_model` setting asks for, over the indexes of `storage`'s
/// data folder, keeping its post vectors with the corpus (`Storage::vectors`): `None` when
/// it is `off` or the model cannot be read (then one warning says why, and search stays
/// lexical). A vector store that cannot be opened is warned about, and the node embeds
/// every post itself.
pub fn semantic_leg(settings: &Settings, storage: &Storage) -> Option<Arc<Semantic>> {
    let path = match settings.search.semantic_model() {
        SemanticModelSetting::Bundled => forumdex_search::semantic::bundled_model_path(),
        SemanticModelSetting::File(path) => path,
        SemanticModelSetting::Off => {
            tracing::info!("semantic_model is off: search is lexical only");
            return None;
        }
    };
    let store = storage
        .vectors()
        .inspect_err(|err| {
            tracing::warn!(
                error = format!("{err:#}"),
                "no vector store: this node embeds every post itself, and shares none"
            );
        })
        .ok();
    forumdex_search::semantic::load(&path, storage.data_dir(), store)
}
