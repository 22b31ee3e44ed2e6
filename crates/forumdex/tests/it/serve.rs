//! A `forumdex serve` child process and plain HTTP/1.1 requests to it (no client library:
//! the tests see the bytes the server sends).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `forumdex --data DATA` without the environment's data folder and log level.
pub fn forumdex_command(data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forumdex"));
    command
        .arg("--data")
        .arg(data)
        .env_remove("FORUMDEX_DATA")
        .env_remove("RUST_LOG");
    command
}

/// A `forumdex serve` child process and the address it announced.
pub struct ServeProcess {
    child: Child,
    /// The address it listens on.
    pub addr: SocketAddr,
}

impl ServeProcess {
    /// Starts `forumdex --data DATA serve` on a free port and waits for its address.
    pub fn start(data: &Path) -> Self {
        Self::start_with(data, &[])
    }

    /// [`Self::start`] with settings given as `FORUMDEX_*` variables (`env`), which may
    /// override the rate limit this sets very high.
    pub fn start_with(data: &Path, env: &[(&str, &str)]) -> Self {
        Self::start_command(data, "serve", env)
    }

    /// `forumdex --data DATA COMMAND --listen 127.0.0.1:0` (`serve` or `demo`), as
    /// [`Self::start_with`].
    pub fn start_command(data: &Path, command: &str, env: &[(&str, &str)]) -> Self {
        let mut child = forumdex_command(data)
            .args([command, "--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .env("FORUMDEX_RATE_LIMIT_PER_MINUTE", "100000000")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        // Reads the log until the process ends (so it never blocks on a full pipe) and
        // reports the address of the "serving" line.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let line = without_colors(&line);
                if line.contains("serving")
                    && let Some(rest) = line.split("address=").nth(1)
                {
                    let addr = rest.split_whitespace().next().unwrap_or_default();
                    let _ = tx.send(addr.to_owned());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server announces its address")
            .parse()
            .expect("a socket address");
        Self { child, addr }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Asks it to stop (SIGTERM, as a service manager does) and waits for its exit.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.expect("run kill").success(), "SIGTERM sent");
        self.child.wait().expect("reap the server")
    }

    /// SIGKILLs it and reaps it.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("reap the server");
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `line` without ANSI escape sequences (the log is colored even into a pipe).
fn without_colors(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte (a letter).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One answer of [`get_response`].
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `X-Request-Id`.
    pub request_id: Option<String>,
    /// The body (the server sends lengths, not chunks, for its JSON bodies).
    pub body: String,
}

/// `GET path` on a new connection: the status and `X-Request-Id`.
pub fn get(addr: SocketAddr, path: &str, key: &str) -> std::io::Result<(u16, Option<String>)> {
    get_response(addr, path, key).map(|r| (r.status, r.request_id))
}

/// `GET path` with the key on a new connection (`Connection: close`), read to the end.
pub fn get_response(addr: SocketAddr, path: &str, key: &str) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .filter(|(head, _)| head.starts_with("HTTP/1.1 "))
        .ok_or_else(|| std::io::Error::other("incomplete response"))?;
    let status = head[9..12]
        .parse()
        .map_err(|_| std::io::Error::other("no status"))?;
    let request_id = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("x-request-id"))
        .map(|(_, value)| value.trim().to_owned());
    Ok(Response {
        status,
        request_id,
        body: body.to_owned(),
    })
}
