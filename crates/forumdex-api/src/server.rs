//! Startup and shutdown: [`Server::build`] opens the stores, loads the cursor secret and
//! binds (failing fast); [`Server::run_until_stopped`] serves until the shutdown future
//! resolves, then drains in-flight requests.

use std::future::Future;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use forumdex_accounts::{InMemoryRateLimiter, SqliteAccountStore};
use forumdex_corpus::{CorpusStore, Millis, SqliteCorpusStore};
use forumdex_images::LocalImageObjects;

use crate::app::{App, router};
use crate::metrics::Metrics;
use crate::settings::Settings;
use crate::wire::Links;

/// How long in-flight requests may finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(10);
/// How often superseded corpus versions are collected.
const GC_EVERY: Duration = Duration::from_secs(60);
/// How often the search indexes catch up with the corpus.
const SYNC_EVERY: Duration = Duration::from_secs(2);
/// The file holding the cursor signing secret, inside the data folder.
pub const CURSOR_SECRET_FILE: &str = "cursor-secret";

/// A bound, ready server.
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    tls: Option<RustlsConfig>,
}

impl Server {
    /// Opens the data folder's stores and binds `settings.listen` (port 0 picks a port).
    pub async fn build(settings: Settings, data_dir: &Path) -> anyhow::Result<Self> {
        let corpus = SqliteCorpusStore::open(data_dir).context("opening the corpus")?;
        let accounts =
            SqliteAccountStore::open_in(data_dir).context("opening the accounts database")?;
        let search =
            forumdex_search::SearchIndexes::open(data_dir).context("opening the search indexes")?;
        let cursor_secret = load_or_create_secret(&data_dir.join(CURSOR_SECRET_FILE))?;
        let tls = match settings.tls() {
            Some((cert, key)) => {
                let _ = rustls::crypto::ring::default_provider().install_default();
                Some(
                    RustlsConfig::from_pem_file(cert, key)
                        .await
                        .with_context(|| {
                            format!(
                                "loading TLS certificate {} and key {}",
                                cert.display(),
                                key.display()
                            )
                        })?,
                )
            }
            None => None,
        };
        let listener = TcpListener::bind(settings.listen)
            .with_context(|| format!("cannot listen on {}", settings.listen))?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr().context("reading the bound address")?;
        let settings = settings.with_bound_address(bound);
        let links = Links {
            forum_url: settings.forum_url.clone(),
            cdn_url: settings.cdn_url.clone(),
        };
        let app = Arc::new(App {
            settings,
            corpus: Arc::new(corpus),
            accounts: Arc::new(accounts),
            rate_limiter: Arc::new(InMemoryRateLimiter::new()),
            cursor_secret,
            metrics: Metrics::default(),
            links,
            search: Arc::new(search),
            images: Arc::new(LocalImageObjects::open_in(data_dir)?),
        });
        Ok(Self { listener, app, tls })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The shared state (for tests and the demo).
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// Serves until `shutdown` resolves, then stops accepting and drains in-flight
    /// requests for up to ten seconds.
    pub async fn run_until_stopped(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let handle = Handle::new();
        let stopper = handle.clone();
        tokio::spawn(async move {
            shutdown.await;
            tracing::info!("shutting down: draining in-flight requests");
            stopper.graceful_shutdown(Some(DRAIN));
        });
        let collector = tokio::spawn(collect_garbage(Arc::clone(&self.app)));
        let indexer = tokio::spawn(sync_search(Arc::clone(&self.app)));
        let service =
            router(Arc::clone(&self.app)).into_make_service_with_connect_info::<SocketAddr>();
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        tracing::info!(address = %self.local_addr(), scheme, "serving");
        let result = match self.tls {
            Some(tls) => {
                axum_server::from_tcp_rustls(self.listener, tls)
                    .handle(handle)
                    .serve(service)
                    .await
            }
            None => {
                axum_server::from_tcp(self.listener)
                    .handle(handle)
                    .serve(service)
                    .await
            }
        };
        collector.abort();
        indexer.abort();
        result.context("serving")
    }
}

/// Collects corpus versions no live snapshot can see, once a minute.
async fn collect_garbage(app: Arc<App>) {
    let lifetime_ms = app.settings.snapshot_seconds as i64 * 1000;
    loop {
        tokio::time::sleep(GC_EVERY).await;
        let corpus: Arc<dyn CorpusStore> = Arc::clone(&app.corpus);
        let horizon = Millis(Millis::now().0 - lifetime_ms);
        match tokio::task::spawn_blocking(move || corpus.collect_garbage(horizon)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(deleted)) => tracing::info!(deleted, "collected superseded corpus versions"),
            Ok(Err(err)) => tracing::warn!(error = %err, "corpus garbage collection failed"),
            Err(err) => tracing::warn!(error = %err, "corpus garbage collection task failed"),
        }
    }
}

/// Brings the search indexes up to the corpus at start and every [`SYNC_EVERY`], so an
/// import is searchable within seconds.
async fn sync_search(app: Arc<App>) {
    loop {
        let (search, corpus) = (Arc::clone(&app.search), Arc::clone(&app.corpus));
        match tokio::task::spawn_blocking(move || search.sync(corpus.as_ref())).await {
            Ok(Ok(report)) if report.posts_indexed > 0 => tracing::info!(
                posts = report.posts_indexed,
                synced_seq = report.synced_seq,
                "search indexes synced"
            ),
            Ok(Ok(_)) => {}
            Ok(Err(err)) => tracing::warn!(error = %err, "search index sync failed"),
            Err(err) => tracing::warn!(error = %err, "search index sync task failed"),
        }
        tokio::time::sleep(SYNC_EVERY).await;
    }
}

/// The 32-byte cursor secret of the data folder, created (hex, owner-only) on first use so
/// cursors survive restarts.
fn load_or_create_secret(path: &Path) -> anyhow::Result<[u8; 32]> {
    if let Ok(text) = std::fs::read_to_string(path) {
        let bytes = hex::decode(text.trim())
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .with_context(|| format!("{} does not hold 64 hex digits", path.display()))?;
        return Ok(bytes);
    }
    let secret: [u8; 32] = rand::random();
    write_private(path, &hex::encode(secret))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(secret)
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}
