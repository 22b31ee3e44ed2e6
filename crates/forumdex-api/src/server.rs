//! Startup and shutdown: [`Server::build`] asks the storage factory for every backend,
//! loads the cursor secret and binds (failing fast); [`Server::run_until_stopped`] serves
//! (with the [`Background`] tasks) until the shutdown future resolves, then drains
//! in-flight requests.

use std::future::Future;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use forumdex_corpus::CorpusMaintenance;
use forumdex_settings::Settings;

use crate::app::App;
use crate::background::Background;
use crate::clock::{Clock, SystemClock};
use crate::router::router;

/// How long in-flight requests may finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(10);

/// A bound, ready server.
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    maintenance: Arc<dyn CorpusMaintenance>,
    tls: Option<RustlsConfig>,
}

impl Server {
    /// Opens the backends the settings name for the data folder `data_dir` and binds
    /// `settings.server.listen` (port 0 picks a port), on the system clock.
    pub async fn build(settings: Settings, data_dir: &Path) -> anyhow::Result<Self> {
        Self::build_with_clock(settings, data_dir, Arc::new(SystemClock)).await
    }

    /// [`Server::build`] on `clock` (tests move time instead of sleeping).
    pub async fn build_with_clock(
        settings: Settings,
        data_dir: &Path,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Self> {
        let storage = settings
            .storage
            .factory(data_dir)
            .with_reader_cache(settings.server.reader_cache_kib())
            .with_writer_cache(settings.server.writer_cache_kib());
        let tls = match settings.server.tls() {
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
        let listener = TcpListener::bind(settings.server.listen)
            .with_context(|| format!("cannot listen on {}", settings.server.listen))?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr().context("reading the bound address")?;
        let settings = settings.with_bound_address(bound);
        // Opening the stores blocks (connections, migrations), and a PostgreSQL client may
        // not block an async thread at all: open them on the blocking pool.
        let (app, maintenance) =
            tokio::task::spawn_blocking(move || App::build(settings, &storage, clock))
                .await
                .context("opening the stores")??;
        Ok(Self {
            listener,
            app: Arc::new(app),
            maintenance,
            tls,
        })
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
        let address = self.local_addr();
        let background = Background::spawn(&self.app, self.maintenance);
        let service =
            router(Arc::clone(&self.app)).into_make_service_with_connect_info::<SocketAddr>();
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        tracing::info!(address = %address, scheme, "serving");
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
        drop(background);
        // What the last second counted, so a clean stop loses no usage.
        self.app.usage.flush(&self.app.developers).await;
        result.context("serving")
    }
}
