//! Redis servers for the tests of the Redis rate limiter and of several nodes: real servers,
//! never mocks.
//!
//! - [`redis_url`]: the server every test of a test binary shares. It is
//!   `FORUMDEX_TEST_REDIS_URL` when set; otherwise a private `redis-server` (Debian's
//!   `redis-server` package) this process starts in a temporary folder, on a free port of
//!   127.0.0.1, without persistence. It stops and its folder is removed when the test binary
//!   exits. Tests keep apart by key prefix.
//! - [`PrivateRedis`]: a server of the test's own, which it may stop and start again.
//!
//! With neither a URL nor the binary these panic, naming both ways out: a test that needs
//! Redis never passes by skipping.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::keeper::{self, Keeper};

/// The variable naming an existing server to test against instead of a private one.
pub const REDIS_URL_VARIABLE: &str = "FORUMDEX_TEST_REDIS_URL";

/// How long a private server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The URL of the server the tests of this process share (see the module's doc).
pub fn redis_url() -> String {
    static SHARED: OnceLock<Result<String, String>> = OnceLock::new();
    keeper::shared(
        &SHARED,
        REDIS_URL_VARIABLE,
        Ok,
        PrivateRedis::start,
        PrivateRedis::url,
        &format!(
            "these tests need Redis: set {REDIS_URL_VARIABLE}, or install redis-server \
             (Debian: apt-get install redis-server) so a private server can be started"
        ),
    )
}

/// A `redis-server` of the test's own, in a temporary folder, on a free port, keeping
/// nothing on disk. Dropping it stops the server and removes the folder.
pub struct PrivateRedis {
    root: PathBuf,
    port: u16,
    server: Mutex<Option<Child>>,
    keeper: Keeper,
}

impl PrivateRedis {
    /// Starts a server; waits until it accepts connections.
    pub fn start() -> Result<Self, String> {
        let root = tempfile::Builder::new()
            .prefix("forumdex-redis-")
            .tempdir()
            .map_err(|err| format!("temp folder: {err}"))?
            .keep();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|err| format!("free port: {err}"))?
            .port();
        let keeper = Keeper::start(&root, ":", &[])?;
        let server = Self {
            root,
            port,
            server: Mutex::new(None),
            keeper,
        };
        server.start_again()?;
        Ok(server)
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server at once (connections are cut, as when Redis goes away).
    pub fn stop(&self) {
        if let Some(mut server) = self.server.lock().expect("server lock").take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }

    /// Starts the stopped server again, on the same port (empty: it keeps nothing); waits
    /// until it accepts connections.
    pub fn start_again(&self) -> Result<(), String> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("starting redis-server: {err}"))?;
        self.keeper.watch(&child)?;
        *self.server.lock().expect("server lock") = Some(child);
        let deadline = Instant::now() + START_TIMEOUT;
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if Instant::now() > deadline {
                return Err("the private redis-server does not accept connections".to_owned());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        // The keeper (dropped next) removes the folder.
        self.stop();
    }
}
