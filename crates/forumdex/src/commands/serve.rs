//! `forumdex serve`: the API and the CDN origin on the data folder.

use anyhow::Context;
use clap::Args;
use forumdex_api::Server;
use forumdex_settings::Settings;

use crate::commands;
use crate::global::GlobalArgs;

/// Arguments of `forumdex serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to serve on (setting `listen`; default 127.0.0.1:8080).
    #[arg(long)]
    pub listen: Option<String>,
}

/// Runs `forumdex serve`.
pub fn run(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<()> {
    let settings = load_settings(global, args.listen)?;
    serve(global, settings, |_| {})
}

/// Settings from defaults, the `--config` file, `FORUMDEX_*` variables and the `--listen`
/// flag.
pub fn load_settings(global: &GlobalArgs, listen: Option<String>) -> anyhow::Result<Settings> {
    let flags: Vec<(&str, String)> = listen.into_iter().map(|l| ("listen", l)).collect();
    commands::settings(global, &flags)
}

/// Builds the server, calls `ready` with it once bound, and serves until Ctrl-C or SIGTERM.
pub fn serve(
    global: &GlobalArgs,
    settings: Settings,
    ready: impl FnOnce(&Server),
) -> anyhow::Result<()> {
    tracing::info!(
        memory_limit_mib = settings.server.memory_limit >> 20,
        blocking_threads = settings.server.blocking_threads(),
        read_cache_kib_per_connection = settings.server.reader_cache_kib(),
        write_cache_kib = settings.server.writer_cache_kib(),
        index_writer_mib = settings.server.index_writer_bytes() >> 20,
        "sized from memory_limit"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(settings.server.blocking_threads())
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let server = Server::build(settings, &global.data).await?;
        ready(&server);
        server.run_until_stopped(shutdown_signal()).await
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
