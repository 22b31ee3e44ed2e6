//! Property tests over a real socket with generated requests (a seeded ChaCha generator, so
//! every run sends the same cases and a failure names the case that broke):
//!
//! - arbitrary query strings: unknown, repeated, empty, overlong, percent-encoded and
//!   invalid-UTF-8 parameters on every paid route;
//! - arbitrary paths: IDs such as 0, -1, 2^53, 2^63, hundreds of digits, non-ASCII digits,
//!   encoded slashes and dots, odd prefixes and suffixes;
//! - arbitrary headers: `Authorization` and `X-API-Key` variants (valid, revoked, expired,
//!   allowlisted, out-of-credit, mangled, non-ASCII, conflicting), `X-Forwarded-For` garbage
//!   from a trusted proxy, conditional and range headers, large headers;
//! - arbitrary and mutated collection cursors.
//!
//! The requests are written by hand on a TCP socket, so what is sent is exactly what was
//! generated (no client normalizes the path or the query). The properties, checked for every
//! case: never a 5xx; never a 304 or 206; every 200 of a paid route is JSON valid against
//! the document and carries `X-Credits-Charged: 1`; every other answer is the contract's
//! error body (`requestId` = `X-Request-Id`, `creditsCharged` 0) without a charge header;
//! and, over the whole run, the ledger's new rows are exactly one charge per 200 (same
//! request ids), so the balances dropped by exactly the number of 200s; and at least
//! [`MIN_OK_PERCENT`] of the answers are 200s, so that check cannot pass on a run refused
//! throughout.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::net::SocketAddr;

use chrono::Duration;
use forumdex_accounts::{AccountId, LedgerEntry};
use forumdex_clock::{Clock as _, SystemClock};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::checks::{assert_documented_response, assert_matches_schema, assert_uuid};
use crate::harness::TestApp;

/// The server's settings for fuzzing: no rate limit in the way, and the client (127.0.0.1)
/// is a trusted proxy, so `X-Forwarded-For` is parsed (and its garbage exercised).
const CONFIG: &str = "rate_limit_per_minute = 1000000\ntrusted_proxies = \"127.0.0.1\"\n";

/// One answer, as read off the socket.
struct Answer {
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| std::str::from_utf8(v).ok())
    }
}

/// Sends `GET target HTTP/1.1` with `headers` on a new connection and reads the answer.
async fn send(addr: SocketAddr, target: &str, headers: &[(String, Vec<u8>)]) -> Answer {
    let mut request =
        format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n").into_bytes();
    for (name, value) in headers {
        request.extend_from_slice(name.as_bytes());
        request.extend_from_slice(b": ");
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(&request).await.expect("send request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read answer");
    parse_answer(&raw).unwrap_or_else(|| {
        panic!(
            "GET {target}: unparseable answer {:?}",
            String::from_utf8_lossy(&raw)
        )
    })
}

fn parse_answer(raw: &[u8]) -> Option<Answer> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, Vec<u8>)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            (name.to_ascii_lowercase(), value.trim().as_bytes().to_vec())
        })
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case(b"chunked"));
    if chunked {
        body = dechunk(&body)?;
    }
    // As a client that sent `Accept-Encoding` reads it: the body the encoding names, decoded.
    match headers
        .iter()
        .find(|(name, _)| name == "content-encoding")
        .map(|(_, value)| value.as_slice())
    {
        None => {}
        Some(b"gzip") => {
            let mut decoded = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut decoded)
                .ok()?;
            body = decoded;
        }
        Some(b"zstd") => body = zstd::decode_all(&body[..]).ok()?,
        Some(_) => return None,
    }
    Some(Answer {
        status,
        headers,
        body,
    })
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// The keys a fuzz run uses, over three accounts.
struct Keys {
    /// Rich account A.
    main: String,
    /// Rich account B (another account: its cursors are not A's).
    other: String,
    /// Account C with 3 credits (402 once spent).
    poor: String,
    /// A's key allowed only from 10.0.0.0/8 (a forwarded address may satisfy it).
    allowlisted: String,
    /// A's revoked key.
    revoked: String,
    /// A's expired key.
    expired: String,
}

/// A server, its keys, and the tally of what it answered.
struct Fuzz {
    server: TestApp,
    keys: Keys,
    accounts: Vec<AccountId>,
    before: Vec<(u64, Vec<LedgerEntry>)>,
    rng: ChaCha8Rng,
    cases: usize,
    statuses: BTreeMap<u16, usize>,
    charged_ids: Vec<String>,
}

impl Fuzz {
    async fn start(seed: u64) -> Self {
        let server = TestApp::builder().config(CONFIG).socket().start().await;
        let a = server.account(1_000_000);
        let b = server.account(1_000_000);
        let c = server.account(3);
        let (_, main) = server.key(a, &[]);
        let (_, other) = server.key(b, &[]);
        let (_, poor) = server.key(c, &[]);
        let (_, allowlisted) = server.key(a, &["10.0.0.0/8"]);
        let (revoked_id, revoked) = server.key(a, &[]);
        server
            .store(|accounts| accounts.revoke_key(&revoked_id, SystemClock.now()))
            .expect("revoke");
        let (expired_id, expired) = server.key(a, &[]);
        server
            .store(|accounts| {
                accounts.set_key_expiry(&expired_id, Some(SystemClock.now() - Duration::hours(1)))
            })
            .expect("expire");
        let accounts = vec![a, b, c];
        let before = accounts.iter().map(|&id| server.money(id)).collect();
        Self {
            server,
            keys: Keys {
                main,
                other,
                poor,
                allowlisted,
                revoked,
                expired,
            },
            accounts,
            before,
            rng: ChaCha8Rng::seed_from_u64(seed),
            cases: 0,
            statuses: BTreeMap::new(),
            charged_ids: Vec::new(),
        }
    }

    fn bearer_main(&self) -> Vec<(String, Vec<u8>)> {
        vec![(
            "authorization".to_owned(),
            format!("Bearer {}", self.keys.main).into_bytes(),
        )]
    }

    /// Sends one generated case and checks the per-response properties.
    async fn case(&mut self, target: &str, headers: &[(String, Vec<u8>)]) -> Answer {
        self.cases += 1;
        let answer = send(self.server.addr, target, headers).await;
        let what = format!(
            "case {}: GET {target} with {:?}",
            self.cases,
            shown(headers)
        );
        self.check(&what, target, &answer);
        answer
    }

    fn check(&mut self, what: &str, target: &str, answer: &Answer) {
        let status = answer.status;
        *self.statuses.entry(status).or_default() += 1;
        assert!(status < 500, "{what}: answered {status}");
        assert!(
            status != 304 && status != 206,
            "{what}: {status} on an API route"
        );
        let path = target.split('?').next().unwrap_or(target);
        let paid = path.starts_with("/api/v1/") && path != "/api/v1/openapi.json";
        let request_id = answer
            .header("x-request-id")
            .unwrap_or_else(|| panic!("{what}: no X-Request-Id"))
            .to_owned();
        assert_uuid(&request_id);
        if status == 200 && !paid {
            assert!(answer.header("x-credits-charged").is_none(), "{what}: free");
            return;
        }
        let content_type = answer.header("content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("application/json"),
            "{what}: {status} with content type {content_type:?}"
        );
        let body: Value = serde_json::from_slice(&answer.body).unwrap_or_else(|err| {
            panic!(
                "{what}: {status} body is not JSON ({err}): {:?}",
                String::from_utf8_lossy(&answer.body)
            )
        });
        if status == 200 {
            assert_eq!(
                answer.header("x-credits-charged"),
                Some("1"),
                "{what}: a 200 is charged one credit"
            );
            assert_documented_response(target, status, &body);
            self.charged_ids.push(request_id);
        } else {
            assert_matches_schema(&body, "Error");
            assert_eq!(body["requestId"], request_id.as_str(), "{what}: requestId");
            assert_eq!(body["creditsCharged"], 0, "{what}: creditsCharged");
            assert!(
                answer.header("x-credits-charged").is_none(),
                "{what}: an error carries no X-Credits-Charged"
            );
        }
    }

    /// The run-wide properties: exactly one charge per 200, none for anything else, and at
    /// least `min_ok_percent` of the answers are 200s, so that "one charge per 200" is not
    /// met by a run that was refused throughout.
    fn finish(self, name: &str, min_ok_percent: usize) {
        let mut charged = Vec::new();
        let mut dropped = 0;
        for (account, before) in self.accounts.iter().zip(&self.before) {
            let (balance, ledger) = self.server.money(*account);
            assert_eq!(
                ledger[..before.1.len()],
                before.1[..],
                "earlier ledger rows changed"
            );
            let new_rows = &ledger[before.1.len()..];
            assert!(
                new_rows.iter().all(|row| row.amount == -1),
                "{name}: only charges were added: {new_rows:?}"
            );
            charged.extend(new_rows.iter().filter_map(|row| row.request_id.clone()));
            assert_eq!(
                u64::try_from(new_rows.len()).expect("count"),
                before.0 - balance,
                "{name}: the balance dropped by the number of charge rows"
            );
            dropped += before.0 - balance;
        }
        let answered: BTreeSet<&String> = self.charged_ids.iter().collect();
        let charged_set: BTreeSet<&String> = charged.iter().collect();
        assert_eq!(
            answered.len(),
            self.charged_ids.len(),
            "{name}: request ids are unique"
        );
        assert_eq!(
            charged_set, answered,
            "{name}: the charged requests are exactly the ones answered 200"
        );
        assert_eq!(
            dropped,
            u64::try_from(self.charged_ids.len()).expect("count"),
            "{name}: balances dropped by the number of 200s"
        );
        let answers: usize = self.statuses.values().sum();
        let ok = self.statuses.get(&200).copied().unwrap_or(0);
        // Straight to the process's stderr: the test harness captures `eprintln!`, and the
        // number of cases belongs in every run's log.
        let _ = writeln!(
            std::io::stderr(),
            "fuzz {name}: {} generated cases, statuses {:?}, {} charged, {ok} of {answers} \
             answers 200 (at least {min_ok_percent}% required)",
            self.cases,
            self.statuses,
            self.charged_ids.len()
        );
        assert!(
            ok * 100 >= min_ok_percent * answers,
            "{name}: {ok} of {answers} answers were 200s, under {min_ok_percent}%: the \
             generator no longer exercises the charges"
        );
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items.choose(&mut self.rng).expect("a non-empty list")
    }
}

/// Headers for a failure message, with long values cut.
fn shown(headers: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let text = String::from_utf8_lossy(value);
            let cut: String = text.chars().take(80).collect();
            (name.clone(), cut)
        })
        .collect()
}

/// The least share of 200s (in percent) a generated run must reach. The generators below
/// give (seeded, so every run): query strings 25%, paths 21%, headers 15%, cursors 18% (the
/// header run's mangled keys vary with the random secrets, by a few cases); 10% leaves a
/// margin of half or more and still fails a run refused throughout.
const MIN_OK_PERCENT: usize = 10;

/// Percent-encodes every byte outside the unreserved set, so any text is a valid target.
fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &byte in bytes {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Random bytes of length `0..max`, percent-encoded (often invalid UTF-8).
fn random_encoded(rng: &mut ChaCha8Rng, max: usize) -> String {
    let len = rng.gen_range(0..max);
    let bytes: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
    encode(&bytes)
}

/// The paid routes, concretely, over the seeded corpus (plus image search, which may not be
/// routed on this build: then a 404 error body).
const ROUTES: &[&str] = &[
    "/api/v1/search",
    "/api/v1/images/search",
    "/api/v1/posts/28",
    "/api/v1/topics/5",
    "/api/v1/profiles/3",
    "/api/v1/topics/5/posts",
    "/api/v1/profiles/3/posts",
];

const NAMES: &[&str] = &[
    "q",
    "lang",
    "freshness",
    "include_low_quality",
    "size",
    "hide_nsfw",
    "limit",
    "order",
    "date_from",
    "date_to",
    "board_id",
    "author_uid",
    "topic_id",
    "cursor",
    "foo",
    "LIMIT",
    "limit%5B%5D",
    "q%00",
    "%FF%FE",
    "%C3%28",
    "l%69mit",
    "q+",
    "",
];

const VALUES: &[&str] = &[
    "bitcoin",
    "1",
    "0",
    "-1",
    "50",
    "100",
    "101",
    "256",
    "1e2",
    "1.0",
    "+1",
    "%2B1",
    "01",
    "asc",
    "desc",
    "DESC",
    "en",
    "pt-BR",
    "EN",
    "e",
    "2024-01-01",
    "2024-02-30",
    "2024-01-01T00:00:00Z",
    "2024-01-01T00:00:00.1234Z",
    "2024-01-01T00%3A00%3A00%2B02%3A00",
    "9007199254740991",
    "9007199254740992",
    "18446744073709551616",
    "%FF",
    "%00",
    "%C3%A9",
    "%E6%97%A5%E6%9C%AC",
    "%F0%9F%92%A9",
    "+",
    "%20",
    "%",
    "%%",
    "%G1",
    "a=b",
    "a%26b%3Dc",
    "",
];

/// A query string of 0 to 5 generated pairs.
fn query(rng: &mut ChaCha8Rng) -> String {
    let pairs = rng.gen_range(0..6);
    let mut out = Vec::new();
    for _ in 0..pairs {
        let name = if rng.gen_bool(0.1) {
            random_encoded(rng, 12)
        } else {
            (*NAMES.choose(rng).expect("names")).to_owned()
        };
        let value = match rng.gen_range(0..10) {
            0 => random_encoded(rng, 40),
            1 => "a".repeat(rng.gen_range(500..6000)),
            2 => encode("é".repeat(rng.gen_range(1..600)).as_bytes()),
            _ => (*VALUES.choose(rng).expect("values")).to_owned(),
        };
        out.push(if rng.gen_bool(0.1) {
            name
        } else {
            format!("{name}={value}")
        });
    }
    let separator = *["&", "&", "&", ";", "&&"].choose(rng).expect("separators");
    out.join(separator)
}

#[tokio::test(flavor = "multi_thread")]
async fn arbitrary_query_strings_never_fail_the_contract() {
    let mut fuzz = Fuzz::start(1).await;
    let auth = fuzz.bearer_main();
    for _ in 0..700 {
        let route = fuzz.pick(ROUTES);
        let generated = query(&mut fuzz.rng);
        let target = match fuzz.rng.gen_range(0..8) {
            0 => route.to_owned(),
            1 => format!("{route}?"),
            _ => format!("{route}?{generated}"),
        };
        fuzz.case(&target, &auth).await;
    }
    fuzz.finish("query strings", MIN_OK_PERCENT);
}

const IDS: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "5",
    "28",
    "29",
    "9007199254740991",
    "9007199254740992",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "1.0",
    "1e3",
    "+1",
    "028",
    "%2028",
    "28%20",
    "%32%38",
    "%D9%A3",
    "%EF%BC%91",
    "%FF",
    "%C0%AF",
    "1%2F2",
    "28%2Fposts",
    "%2E%2E",
    "..",
    ".",
    "abc",
    "0x1c",
    "28;x=1",
    "28%00",
    "%E2%80%8B28",
];

const PREFIXES: &[&str] = &[
    "/api/v1/posts/",
    "/api/v1/posts/",
    "/api/v1/posts/",
    "/api/v1/topics/",
    "/api/v1/topics/",
    "/api/v1/topics/",
    "/api/v1/profiles/",
    "/api/v1/profiles/",
    "/api/v1/profiles/",
    "/api/v1/images/",
    "/api/v1/",
    "/api/v1//posts/",
    "/API/V1/POSTS/",
    "/api/v2/posts/",
    "/",
    "/cdn/",
    "/healthz/",
];

/// Paths of seeded resources (answered 200).
const FOUND: &[&str] = &[
    "/api/v1/posts/28",
    "/api/v1/posts/29",
    "/api/v1/topics/5",
    "/api/v1/topics/5/posts",
    "/api/v1/profiles/3",
    "/api/v1/profiles/3/posts",
];

const SUFFIXES: &[&str] = &[
    "", "", "", "/posts", "/posts", "/", "/posts/", "//", "/posts/1", "/search", "/%2E%2E",
];

fn id(rng: &mut ChaCha8Rng) -> String {
    match rng.gen_range(0..10) {
        0 => rng.r#gen::<u64>().to_string(),
        1 => rng.gen_range(-1000i64..1000).to_string(),
        2 => "9".repeat(rng.gen_range(20..400)),
        3 => random_encoded(rng, 10),
        _ => (*IDS.choose(rng).expect("ids")).to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn arbitrary_paths_never_fail_the_contract() {
    let mut fuzz = Fuzz::start(2).await;
    let auth = fuzz.bearer_main();
    for _ in 0..700 {
        // Generated prefix + id + suffix paths are nearly all refused (about 1% found
        // something), so a fifth of the cases name a seeded resource: enough 200s for the
        // one-charge-per-200 check to mean something.
        let target = match fuzz.rng.gen_range(0..10) {
            0 => format!("/{}", random_encoded(&mut fuzz.rng, 30)),
            1 | 2 => fuzz.pick(FOUND).to_owned(),
            _ => {
                let prefix = fuzz.pick(PREFIXES);
                let suffix = fuzz.pick(SUFFIXES);
                format!("{prefix}{}{suffix}", id(&mut fuzz.rng))
            }
        };
        fuzz.case(&target, &auth).await;
    }
    fuzz.finish("paths", MIN_OK_PERCENT);
}

/// Generated headers: an `Authorization` variant, maybe `X-API-Key`, maybe forwarding,
/// conditional, range and large headers.
fn headers(rng: &mut ChaCha8Rng, keys: &Keys) -> Vec<(String, Vec<u8>)> {
    let valid = [
        &keys.main,
        &keys.other,
        &keys.poor,
        &keys.allowlisted,
        &keys.revoked,
        &keys.expired,
    ];
    let key = (*valid.choose(rng).expect("keys")).clone();
    let mut mangled = key.clone().into_bytes();
    let at = rng.gen_range(0..mangled.len());
    match rng.gen_range(0..4) {
        0 => mangled[at] = if mangled[at] == b'a' { b'b' } else { b'a' },
        1 => mangled.truncate(at),
        2 => mangled.insert(at, b'x'),
        _ => mangled[at] = rng.gen_range(0x80..=0xff),
    }
    let mut out = Vec::new();
    let authorization: Option<Vec<u8>> = match rng.gen_range(0..16) {
        0 => None,
        1 => Some(format!("bearer {key}").into_bytes()),
        2 => Some(format!("BEARER  {key} ").into_bytes()),
        3 => Some(b"Bearer".to_vec()),
        4 => Some(b"Bearer ".to_vec()),
        5 => Some(b"Basic dXNlcjpwYXNz".to_vec()),
        6 => Some(format!("Token {key}").into_bytes()),
        7 => Some([b"Bearer ".as_slice(), &mangled].concat()),
        8 => Some(b"Bearer fdx_live_".to_vec()),
        9 => Some(b"Bearer \xff\xfe\xfd".to_vec()),
        10 => Some(format!("Bearer {}", "k".repeat(rng.gen_range(1000..30000))).into_bytes()),
        11 => Some(format!("Bearer\t{key}").into_bytes()),
        _ => Some(format!("Bearer {key}").into_bytes()),
    };
    if let Some(value) = authorization {
        out.push(("authorization".to_owned(), value));
    }
    match rng.gen_range(0..8) {
        0 => out.push(("x-api-key".to_owned(), key.clone().into_bytes())),
        1 => out.push(("x-api-key".to_owned(), keys.other.clone().into_bytes())),
        2 => out.push(("x-api-key".to_owned(), Vec::new())),
        3 => out.push(("X-API-KEY".to_owned(), mangled.clone())),
        4 => out.push((
            "authorization".to_owned(),
            format!("Bearer {}", keys.other).into_bytes(),
        )),
        _ => {}
    }
    let forwarded: &[&[u8]] = &[
        b"garbage",
        b"10.1.2.3",
        b"10.1.2.3, 127.0.0.1",
        b"127.0.0.1, 10.9.9.9",
        b"::ffff:10.0.0.1",
        b"999.1.1.1",
        b"",
        b",,,",
        b"[::1]:80",
        b"10.0.0.1\xff",
        b"unknown, 10.0.0.2",
    ];
    if rng.gen_bool(0.4) {
        let value = if rng.gen_bool(0.1) {
            vec!["1.2.3.4"; rng.gen_range(100..3000)]
                .join(",")
                .into_bytes()
        } else {
            forwarded.choose(rng).expect("forwarded").to_vec()
        };
        out.push(("x-forwarded-for".to_owned(), value));
    }
    let extras: &[(&str, &[u8])] = &[
        ("if-none-match", b"*"),
        ("if-none-match", b"\"abc\""),
        ("if-modified-since", b"Thu, 01 Jan 1970 00:00:00 GMT"),
        ("range", b"bytes=0-10"),
        ("range", b"bytes=-1"),
        ("x-request-id", b"not-a-uuid"),
        ("accept", b"text/html"),
        ("accept-encoding", b"gzip, br"),
        ("forwarded", b"for=10.0.0.1"),
        ("x-real-ip", b"10.0.0.1"),
        ("cookie", b"session=1"),
    ];
    for _ in 0..rng.gen_range(0..3) {
        let (name, value) = extras.choose(rng).expect("extras");
        out.push(((*name).to_owned(), value.to_vec()));
    }
    if rng.gen_bool(0.05) {
        out.push((
            "x-padding".to_owned(),
            vec![b'p'; rng.gen_range(1000..60000)],
        ));
    }
    out.shuffle(rng);
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn arbitrary_headers_never_fail_the_contract() {
    let mut fuzz = Fuzz::start(3).await;
    for _ in 0..700 {
        let route = fuzz.pick(ROUTES);
        let target = if route.ends_with("/search") {
            format!("{route}?q=welcome")
        } else {
            route.to_owned()
        };
        let headers = headers(&mut fuzz.rng, &fuzz.keys);
        fuzz.case(&target, &headers).await;
    }
    fuzz.finish("headers", MIN_OK_PERCENT);
}

/// A cursor mutated in one of many ways (never equal to the original).
fn mutate(rng: &mut ChaCha8Rng, cursor: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bytes = cursor.as_bytes().to_vec();
    let at = rng.gen_range(0..bytes.len());
    let mutated = match rng.gen_range(0..12) {
        0 => {
            let mut replacement = *ALPHABET.choose(rng).expect("alphabet");
            while replacement == bytes[at] {
                replacement = *ALPHABET.choose(rng).expect("alphabet");
            }
            bytes[at] = replacement;
            String::from_utf8(bytes).expect("ASCII")
        }
        1 => {
            bytes.remove(at);
            String::from_utf8(bytes).expect("ASCII")
        }
        2 => {
            bytes.insert(at, *ALPHABET.choose(rng).expect("alphabet"));
            String::from_utf8(bytes).expect("ASCII")
        }
        3 => cursor[..at].to_owned(),
        4 => format!("{cursor}{cursor}"),
        5 => cursor.to_ascii_uppercase(),
        6 => format!("{cursor}="),
        7 => cursor.replace('-', "+").replace('_', "/") + "+/",
        8 => random_encoded(rng, 400),
        9 => "A".repeat(rng.gen_range(4000..4200)),
        10 => encode(cursor.as_bytes()).replace("%", "%25"),
        _ => {
            let mut flipped = bytes;
            flipped.swap(at, (at + 1) % cursor.len());
            String::from_utf8(flipped).expect("ASCII")
        }
    };
    if mutated == cursor {
        format!("{cursor}A")
    } else {
        mutated
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn arbitrary_and_mutated_cursors_are_never_accepted_or_charged() {
    let mut fuzz = Fuzz::start(4).await;
    let auth = fuzz.bearer_main();
    let other_auth = vec![(
        "authorization".to_owned(),
        format!("Bearer {}", fuzz.keys.other).into_bytes(),
    )];
    let mut cursors = Vec::new();
    for (path, headers) in [
        ("/api/v1/topics/5/posts?limit=1", &auth),
        ("/api/v1/topics/5/posts?limit=1&order=desc", &auth),
        ("/api/v1/topics/5/posts?limit=1", &other_auth),
    ] {
        let answer = fuzz.case(path, headers).await;
        assert_eq!(answer.status, 200, "{path}");
        let body: Value = serde_json::from_slice(&answer.body).expect("JSON");
        let cursor = body["next_cursor"]
            .as_str()
            .expect("a next_cursor")
            .to_owned();
        cursors.push((path.split('?').next().expect("path").to_owned(), cursor));
    }
    let (topic_path, main_cursor) = cursors[0].clone();
    for _ in 0..500 {
        let (target, headers, accepted) = match fuzz.rng.gen_range(0..10) {
            // The cursor as issued, alone or with its own options: a page.
            0 => (format!("{topic_path}?cursor={main_cursor}"), &auth, true),
            1 => (
                format!("{topic_path}?limit=1&cursor={main_cursor}"),
                &auth,
                true,
            ),
            // Different options, another scope, another account: refused.
            2 => (
                format!("{topic_path}?limit=2&cursor={main_cursor}"),
                &auth,
                false,
            ),
            3 => (
                format!("/api/v1/profiles/3/posts?cursor={main_cursor}"),
                &auth,
                false,
            ),
            4 => (
                format!("{topic_path}?cursor={}", cursors[2].1),
                &auth,
                false,
            ),
            5 => (
                format!("{topic_path}?cursor={main_cursor}&cursor={main_cursor}"),
                &auth,
                false,
            ),
            _ => {
                let (path, cursor) = cursors.choose(&mut fuzz.rng).expect("cursors").clone();
                let mutated = mutate(&mut fuzz.rng, &cursor);
                (format!("{path}?cursor={mutated}"), &auth, false)
            }
        };
        let headers = headers.clone();
        let answer = fuzz.case(&target, &headers).await;
        if accepted {
            assert_eq!(answer.status, 200, "{target}");
        } else {
            assert_eq!(answer.status, 400, "{target}: a foreign or tampered cursor");
        }
    }
    fuzz.finish("cursors", MIN_OK_PERCENT);
}

/// Sends `request` as is on a new connection and reads the answer. The server may answer
/// and close before a request of a megabyte is all sent (a 431 after its header limit): the
/// write then fails with a broken pipe, and the read may end in a reset after the answer.
/// So the request is written while the answer is read, and what arrived before an error
/// is the answer.
async fn send_bytes(addr: SocketAddr, request: &[u8]) -> Answer {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut reader, mut writer) = stream.into_split();
    let request_bytes = request.to_vec();
    let sending = tokio::spawn(async move {
        // An error here means the server stopped reading: its answer says why.
        let _ = writer.write_all(&request_bytes).await;
    });
    let mut raw = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
            Err(_) if !raw.is_empty() => break,
            Err(e) => panic!("read answer: {e}"),
        }
    }
    sending.abort();
    parse_answer(&raw).unwrap_or_else(|| {
        panic!(
            "{:?}: unparseable answer {:?}",
            String::from_utf8_lossy(&request[..request.len().min(80)]),
            String::from_utf8_lossy(&raw)
        )
    })
}

/// Requests that are not valid HTTP/1.1 (raw non-ASCII or spaces in the target, control
/// characters in a header, a bad `Content-Length`, more than 100 headers, a megabyte of
/// headers, a target over 64 KB) never reach the service: hyper's parser
/// answers them 400, 414 or 431 with an empty body and closes the connection. There is no
/// request then, so no request id and no JSON body; the property left is: a 4xx, free.
#[tokio::test(flavor = "multi_thread")]
async fn malformed_http_is_refused_by_the_parser_with_a_4xx_and_free() {
    let mut fuzz = Fuzz::start(5).await;
    let key = fuzz.keys.main.clone();
    let head = |target: &[u8]| {
        [
            b"GET ".as_slice(),
            target,
            b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ",
            key.as_bytes(),
            b"\r\n",
        ]
        .concat()
    };
    for _ in 0..100 {
        let target = b"/api/v1/posts/28".as_slice();
        let variant = fuzz.rng.gen_range(0..7);
        let request: Vec<u8> = match variant {
            0 => {
                let byte = fuzz.rng.gen_range(0x80..=0xffu8);
                [head(&[target, &[byte]].concat()), b"\r\n".to_vec()].concat()
            }
            1 => [head(b"/api/v1/search?q=a b"), b"\r\n".to_vec()].concat(),
            2 => {
                let control = fuzz.rng.gen_range(1..0x20u8);
                let control = if control == b'\t' { 1 } else { control };
                [
                    head(target),
                    b"X-A: a".to_vec(),
                    vec![control],
                    b"b\r\n\r\n".to_vec(),
                ]
                .concat()
            }
            3 => [head(target), b"Content-Length: x\r\n\r\n".to_vec()].concat(),
            4 => {
                let headers: Vec<u8> = (0..fuzz.rng.gen_range(101..300))
                    .flat_map(|i| format!("X-H{i}: 1\r\n").into_bytes())
                    .collect();
                [head(target), headers, b"\r\n".to_vec()].concat()
            }
            5 => {
                let padding = vec![b'p'; fuzz.rng.gen_range(1_000_000..1_500_000)];
                [
                    head(target),
                    b"X-Pad: ".to_vec(),
                    padding,
                    b"\r\n\r\n".to_vec(),
                ]
                .concat()
            }
            _ => {
                let long = [b"/api/v1/search?q=".as_slice(), &vec![b'a'; 70_000]].concat();
                [head(&long), b"\r\n".to_vec()].concat()
            }
        };
        fuzz.cases += 1;
        let answer = send_bytes(fuzz.server.addr, &request).await;
        *fuzz.statuses.entry(answer.status).or_default() += 1;
        assert!(
            [400, 414, 431].contains(&answer.status),
            "case {} (variant {variant}): {}",
            fuzz.cases,
            answer.status
        );
        assert!(answer.header("x-credits-charged").is_none());
    }
    // No request reaches the service here, so there is no 200 to expect: the property is
    // "a 4xx, free", and the ledger check above holds with no charge at all.
    fuzz.finish("malformed http", 0);
}
