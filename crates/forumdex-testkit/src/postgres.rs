//! PostgreSQL servers for the tests of the PostgreSQL backends: real servers, never mocks.
//!
//! - [`database_url`]: the server every test of a test binary shares. It is
//!   `FORUMDEX_TEST_DATABASE_URL` when set; otherwise a private server this process starts
//!   from the machine's PostgreSQL binaries (Debian's `/usr/lib/postgresql/<version>/bin`,
//!   or `initdb` on the `PATH`) in a temporary folder, on a free port of 127.0.0.1. It stops
//!   and its folder is removed when the test binary exits.
//! - [`fresh_schema_url`]: a URL whose connections see only a new, empty schema of that
//!   server, so each case starts from nothing without the cost of a database.
//! - [`PrivatePostgres`]: a server of the test's own, which it may stop and start again
//!   (connection loss and recovery).
//!
//! With neither a URL nor the binaries these panic, naming both ways out: a test that
//! needs PostgreSQL never passes by skipping. As root (CI), the server runs as the
//! `postgres` user through `runuser`, since PostgreSQL refuses to run as root.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::keeper::{self, Keeper};

/// The variable naming an existing server to test against instead of a private one.
pub const DATABASE_URL_VARIABLE: &str = "FORUMDEX_TEST_DATABASE_URL";

/// How long a private server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The URL of the server the tests of this process share (see the module's doc).
pub fn database_url() -> String {
    static SHARED: OnceLock<Result<String, String>> = OnceLock::new();
    keeper::shared(
        &SHARED,
        DATABASE_URL_VARIABLE,
        Ok,
        PrivatePostgres::start,
        PrivatePostgres::url,
        &format!(
            "these tests need PostgreSQL: set {DATABASE_URL_VARIABLE}, or install the \
             machine's PostgreSQL server binaries (Debian: apt-get install postgresql) so a \
             private server can be started"
        ),
    )
}

/// A URL of the shared server whose connections see only a new, empty schema.
pub fn fresh_schema_url() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = database_url();
    let schema = format!(
        "forumdex_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = ::postgres::Client::connect(&base, ::postgres::NoTls)
        .unwrap_or_else(|err| panic!("connecting to the test PostgreSQL server: {err}"));
    admin
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .unwrap_or_else(|err| panic!("creating schema {schema}: {err}"));
    with_search_path(&base, &schema)
}

/// `url` with connections set to use `schema` alone.
fn with_search_path(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}")
}

/// A PostgreSQL server of the test's own, in a temporary folder, on a free port. Dropping
/// it stops the server and removes the folder.
pub struct PrivatePostgres {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    run_as_postgres: bool,
    /// Stops the server and removes the folder when dropped or when the process exits.
    _keeper: Keeper,
}

impl PrivatePostgres {
    /// Creates a cluster with `initdb` and starts it; waits until it accepts connections.
    pub fn start() -> Result<Self, String> {
        let bin = server_binaries()?;
        let run_as_postgres = running_as_root();
        let root = tempfile::Builder::new()
            .prefix("forumdex-pg-")
            .tempdir()
            .map_err(|err| format!("temp folder: {err}"))?
            .keep();
        let data = root.join("data");
        if run_as_postgres {
            run(Command::new("chown").arg("postgres").arg(&root))?;
        }
        let initdb = bin.join("initdb");
        let mut init = command(run_as_postgres, &initdb);
        init.args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale"])
            .arg("--no-sync")
            .arg("-D")
            .arg(&data);
        run(&mut init)?;
        let port = free_port()?;
        // Stops the server when the test process goes (`pg_ctl`, as the server's user).
        let run_as = if run_as_postgres {
            "runuser -u postgres -- "
        } else {
            ""
        };
        let pg_ctl = bin.join("pg_ctl");
        let keeper = Keeper::start(
            &root,
            &format!(r#"{run_as}"$PG_CTL" -D "$DATA" stop -m immediate >/dev/null 2>&1"#),
            &[("PG_CTL", &pg_ctl), ("DATA", &data)],
        )?;
        let server = Self {
            bin,
            data,
            port,
            run_as_postgres,
            _keeper: keeper,
        };
        server.start_again()?;
        Ok(server)
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: connections are cut, as when
    /// the server goes away).
    pub fn stop(&self) -> Result<(), String> {
        let mut stop = command(self.run_as_postgres, &self.bin.join("pg_ctl"));
        stop.arg("-D")
            .arg(&self.data)
            .args(["stop", "-m", "immediate", "-w"]);
        run(&mut stop)
    }

    /// Starts the stopped server again, on the same port and data; waits until it accepts
    /// connections.
    pub fn start_again(&self) -> Result<(), String> {
        let log = self.data.join("server.log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
             -c full_page_writes=off -c max_connections=300",
            self.port,
            self.data.display()
        );
        let mut start = command(self.run_as_postgres, &self.bin.join("pg_ctl"));
        start
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&log)
            .args(["-o", &options, "-w", "start"]);
        run(&mut start)?;
        let url = self.url();
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match ::postgres::Client::connect(&url, ::postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(err) if Instant::now() > deadline => {
                    return Err(format!("the private server does not answer: {err}"));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

/// The folder of the newest installed PostgreSQL's server binaries.
fn server_binaries() -> Result<PathBuf, String> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    let on_path = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        .map_err(|err| format!("looking for initdb: {err}"))?;
    let path = String::from_utf8_lossy(&on_path.stdout).trim().to_owned();
    match Path::new(&path).parent() {
        Some(bin) if on_path.status.success() && !path.is_empty() => Ok(bin.to_owned()),
        _ => Err("no PostgreSQL server binaries (initdb) found".to_owned()),
    }
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}

/// `program` as a command, run as the `postgres` user when asked.
fn command(run_as_postgres: bool, program: &Path) -> Command {
    if run_as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Runs a command to its end; its output becomes the error when it fails.
fn run(command: &mut Command) -> Result<(), String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("running {command:?}: {err}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|err| format!("free port: {err}"))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(|err| format!("free port: {err}"))
}
