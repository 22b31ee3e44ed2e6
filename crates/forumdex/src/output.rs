//! How the binary talks to people and scripts: logs on stderr, `--json` objects on stdout.

use serde::Serialize;

/// Sets up logging on stderr; `RUST_LOG` overrides the default level (`info`, or `warn`
/// with `--json` so scripts see only the JSON object).
pub fn init_logging(json: bool) {
    let default = if json { "warn" } else { "info" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

/// Prints `value` as one JSON object on stdout.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}

/// Prints a failed command's error chain on stderr.
pub fn report_error(err: &anyhow::Error) {
    eprintln!("error: {err:#}");
}
