//! The developer dashboard end to end in a real browser: headless Chromium, driven over
//! WebDriver (a `chromedriver` started here), against a `forumdex serve` child process. One
//! developer's story from sign-up to sign-out, with the API called from the test between the
//! pages, as the developer's own program would.
//!
//! Without a browser the test says why and passes, unless `CI` is set: there it fails (CI
//! installs `chromium` and `chromium-driver`). Every page it visits is checked with axe-core
//! (vendored, `tests/fixtures/axe/`) at a desktop and a phone size, failing on any violation,
//! and saved as `target/screenshots/<nn>-<page>-<width>.png` (or under
//! `FORUMDEX_SCREENSHOTS=DIR`).

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use super::helpers::json_ok;
use super::serve::forumdex_command;

const EMAIL: &str = "dev@example.com";
const PASSWORD: &str = "correct horse battery";
/// Credits granted at verification (`signup_credits`): two calls, then 402.
const SIGNUP_CREDITS: u64 = 2;
/// The one pack on sale (`credit_packs`).
const PACK: &str = "5:1.00 USD";
const PACK_CREDITS: u64 = 5;
/// The viewport of the story, and the sizes of the screenshots (desktop, then phone).
const DESKTOP: (u32, u32) = (1280, 900);
const PHONE: (u32, u32) = (390, 844);
/// Longest wait for a page or a process (generous: CI runs other tests beside this one).
const PATIENCE: Duration = Duration::from_secs(30);
/// Longest wait for the usage page to show calls (the recorder flushes every second).
const USAGE_FLUSH: Duration = Duration::from_secs(10);

/// A port nobody listens on now (bound, then released for the child to take).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("bind a free port")
        .port()
}

/// Polls `url` until it answers `200` or `deadline` passes.
async fn wait_until_answers(url: &str, deadline: Duration) -> bool {
    let http = reqwest::Client::new();
    let start = Instant::now();
    while start.elapsed() < deadline {
        if let Ok(response) = http.get(url).send().await
            && response.status() == 200
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// A `chromedriver` child process; dropping it ends it and the browsers it started.
struct ChromeDriver {
    child: Child,
    url: String,
}

impl ChromeDriver {
    /// Starts `chromedriver` on a free port and waits until it is ready; `Err` says why not.
    async fn start() -> Result<Self, String> {
        let port = free_port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            // Its own process group, so that Drop can end the browsers with it.
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| {
                format!("cannot run chromedriver ({err}); install chromium and chromium-driver")
            })?;
        let driver = Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        if wait_until_answers(&format!("{}/status", driver.url), PATIENCE).await {
            Ok(driver)
        } else {
            Err(format!("chromedriver did not answer on port {port}"))
        }
    }

    /// A headless Chromium session at the desktop size.
    async fn session(&self) -> Result<Client, String> {
        let (width, height) = DESKTOP;
        let mut capabilities = Capabilities::new();
        capabilities.insert(
            "goog:chromeOptions".to_owned(),
            json!({"args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                format!("--window-size={width},{height}"),
            ]}),
        );
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .map_err(|err| format!("chromedriver could not start Chromium: {err}"))
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The whole group (chromedriver and its Chromium processes), even when a failed step
        // left the session open.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `forumdex serve` child process on a seeded data folder, with the test payment provider,
/// few sign-up credits and one small pack; its log goes to a file, printed if the test fails.
struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`, also the dashboard's `base_url`.
    base: String,
    data: PathBuf,
    log: PathBuf,
}

impl Server {
    async fn start(dir: &Path) -> Result<Self> {
        let data = dir.join("data");
        let seed = dir.join("seed.jsonl");
        std::fs::write(&seed, seed_lines()).context("write the seed corpus")?;
        let seed = seed.to_str().context("a utf-8 path")?;
        let imported = json_ok(&data, &["import", seed]);
        ensure!(imported["accepted"] == 5, "seed import: {imported}");

        let port = free_port();
        let log = dir.join("serve.log");
        let child = forumdex_command(&data)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .env("FORUMDEX_PAYMENT_PROVIDER", "test")
            .env("FORUMDEX_SIGNUP_CREDITS", SIGNUP_CREDITS.to_string())
            .env("FORUMDEX_CREDIT_PACKS", PACK)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).context("create the server log")?)
            .spawn()
            .context("start forumdex serve")?;
        let mut server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            data,
            log,
        };
        let healthz = format!("{}/healthz", server.base);
        if !wait_until_answers(&healthz, Duration::from_secs(120)).await {
            let exited = server.child.try_wait().ok().flatten();
            let log = std::fs::read_to_string(&server.log).unwrap_or_default();
            bail!("the server did not become healthy (exit: {exited:?}); its log:\n{log}");
        }
        Ok(server)
    }

    /// The verification link of the newest mail in the outbox.
    fn verify_link(&self) -> Result<String> {
        let outbox = self.data.join("outbox");
        let newest = std::fs::read_dir(&outbox)
            .with_context(|| format!("read {}", outbox.display()))?
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "eml"))
            .max()
            .context("no mail in the outbox")?;
        let mail = std::fs::read_to_string(&newest).context("read the mail")?;
        let prefix = format!("{}/verify?token=", self.base);
        let link = mail
            .lines()
            .map(str::trim_end)
            .find(|line| line.starts_with(&prefix))
            .with_context(|| format!("no verification link in {mail}"))?;
        let token = &link[prefix.len()..];
        ensure!(
            token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "the token is 64 hex digits: {link}"
        );
        Ok(link.to_owned())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            eprintln!("--- forumdex serve log ---\n{log}");
        }
    }
}

/// Board 1, topic 5, profile 3, posts 28 and 29 (as `forumdex-api`'s harness seeds them).
fn seed_lines() -> String {
    let at = "2024-03-01T12:00:00Z";
    [
        json!({"kind": "board", "board_id": 1, "name": "Bitcoin Discussion", "observed_at": at}),
        json!({"kind": "topic", "topic_id": 5, "board_id": 1, "title": "Welcome", "views": 18235, "observed_at": at}),
        json!({"kind": "profile", "profile_id": 3, "username": "satoshi", "observed_at": at}),
        json!({"kind": "post", "post_id": 28, "topic_id": 5, "post_number": 0, "title": "Welcome",
            "author": {"profile_id": 3, "username": "satoshi"}, "posted_at": "2009-11-22T18:51:31Z",
            "content_html": "Welcome to the forum.", "language": "en", "observed_at": at}),
        json!({"kind": "post", "post_id": 29, "topic_id": 5, "post_number": 1, "title": "Re: Welcome",
            "author": {"profile_id": 4, "username": "hal"}, "posted_at": "2009-11-22T19:00:00Z",
            "content_html": "Thanks.", "language": "en", "observed_at": at}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect()
}

/// Where screenshots go (`FORUMDEX_SCREENSHOTS`, else `target/screenshots`) and how many
/// pages so far.
struct Screenshots {
    dir: PathBuf,
    pages: u32,
}

impl Screenshots {
    fn from_env() -> Result<Self> {
        let dir = std::env::var_os("FORUMDEX_SCREENSHOTS")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                std::env::var_os("CARGO_TARGET_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
                    .join("screenshots")
            });
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("create the screenshot folder {}", dir.display()))?;
        Ok(Self { dir, pages: 0 })
    }
}

/// axe-core, run on every page the story visits (`tests/fixtures/axe/README.md`).
const AXE: &str = include_str!("../fixtures/axe/axe.min.js");

/// The browser on the server: navigation, forms and checks by CSS selector.
struct Browser {
    client: Client,
    base: String,
    shots: Screenshots,
}

impl Browser {
    /// Opens `path` (on the server) or an absolute address.
    async fn open(&self, path_or_url: &str) -> Result<()> {
        let url = if path_or_url.starts_with('/') {
            format!("{}{path_or_url}", self.base)
        } else {
            path_or_url.to_owned()
        };
        self.client
            .goto(&url)
            .await
            .with_context(|| format!("open {url}"))
    }

    /// The current path and query (`/dashboard/billing?topup=1`).
    async fn at(&self) -> Result<String> {
        let url = self.client.current_url().await.context("current url")?;
        let url = url.as_str();
        Ok(url.strip_prefix(&self.base).unwrap_or(url).to_owned())
    }

    /// Waits until the path and query satisfy `arrived` (a form's redirect, a link);
    /// returns them. Fails with the page's text otherwise, at once when the page shows an
    /// error (no page of the story is left from one).
    async fn wait_until_at(&self, what: &str, arrived: impl Fn(&str) -> bool) -> Result<String> {
        let start = Instant::now();
        loop {
            let at = self.at().await?;
            if arrived(&at) {
                return Ok(at);
            }
            let refused = self
                .client
                .find(Locator::Css("p.flash.error"))
                .await
                .is_ok();
            if refused || start.elapsed() > PATIENCE {
                let page = self.text("main").await.unwrap_or_default();
                bail!("not at {what} but at {at}; the page says: {page}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn click(&self, css: &str) -> Result<()> {
        self.client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("find {css}"))?
            .click()
            .await
            .with_context(|| format!("click {css}"))
    }

    async fn fill(&self, css: &str, text: &str) -> Result<()> {
        let field = self
            .client
            .find(Locator::Css(css))
            .await
            .with_context(|| format!("find {css}"))?;
        field
            .clear()
            .await
            .with_context(|| format!("clear {css}"))?;
        field
            .send_keys(text)
            .await
            .with_context(|| format!("type into {css}"))
    }

    async fn select(&self, css: &str, value: &str) -> Result<()> {
        self.client
            .find(Locator::Css(css))
            .await
            .with_context(|| format!("find {css}"))?
            .select_by_value(value)
            .await
            .with_context(|| format!("select {value} in {css}"))
    }

    /// The visible text of the first element matching `css` (waiting for it to appear).
    async fn text(&self, css: &str) -> Result<String> {
        let element = self
            .client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("find {css}"))?;
        Ok(element.text().await.context("read text")?.trim().to_owned())
    }

    /// The cells' texts of each row of the table body `css`.
    async fn rows(&self, css: &str) -> Result<Vec<Vec<String>>> {
        let mut rows = Vec::new();
        for row in self
            .client
            .find_all(Locator::Css(&format!("{css} tbody tr")))
            .await?
        {
            let mut cells = Vec::new();
            for cell in row.find_all(Locator::Css("td")).await? {
                cells.push(cell.text().await?.trim().to_owned());
            }
            rows.push(cells);
        }
        Ok(rows)
    }

    /// Checks the page at both sizes with axe-core (any violation fails) and saves its
    /// screenshots, then goes back to the desktop size.
    async fn screenshot(&mut self, page: &str) -> Result<()> {
        self.shots.pages += 1;
        let dir = self.shots.dir.clone();
        for (width, height) in [DESKTOP, PHONE] {
            self.set_viewport(width, height).await?;
            let violations = self.accessibility_violations().await?;
            ensure!(
                violations.is_empty(),
                "axe-core on {page} at {width} px:\n{}",
                violations.join("\n")
            );
            let png = self.client.screenshot().await.context("screenshot")?;
            let file = dir.join(format!("{:02}-{page}-{width}.png", self.shots.pages));
            std::fs::write(&file, png).with_context(|| format!("write {}", file.display()))?;
        }
        let (width, height) = DESKTOP;
        self.set_viewport(width, height).await
    }

    /// What axe-core finds wrong on the page (every rule it runs by default): one line per
    /// rule, with the elements at fault.
    async fn accessibility_violations(&self) -> Result<Vec<String>> {
        let loaded = self
            .client
            .execute("return typeof window.axe === 'object';", vec![])
            .await?;
        if loaded != Value::Bool(true) {
            self.client
                .execute(&format!("{AXE}\nreturn true;"), vec![])
                .await
                .context("load axe-core")?;
        }
        let found = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document).then(
                     (result) => done(result.violations.map((v) => v.id + ' (' + v.impact + '): '
                         + v.help + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '))),
                     (err) => done(['axe-core failed: ' + err]));",
                vec![],
            )
            .await
            .context("run axe-core")?;
        Ok(found
            .as_array()
            .context("axe-core's violations")?
            .iter()
            .map(|line| line.as_str().unwrap_or_default().to_owned())
            .collect())
    }

    /// Sizes the window so that the page's viewport is `width` x `height` (the window's
    /// frame takes some of its height, even headless).
    async fn set_viewport(&self, width: u32, height: u32) -> Result<()> {
        self.client.set_window_size(width, height).await?;
        let inner = self
            .client
            .execute("return [window.innerWidth, window.innerHeight];", vec![])
            .await
            .context("read the viewport size")?;
        let inner = |i: usize| {
            inner[i]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .context("a viewport dimension")
        };
        let frame_width = width.saturating_sub(inner(0)?);
        let frame_height = height.saturating_sub(inner(1)?);
        self.client
            .set_window_size(width + frame_width, height + frame_height)
            .await
            .context("resize the window")
    }
}

/// `GET /api/v1/posts/28` with `key`, as the developer's program calls it: status and body.
async fn call_api(base: &str, key: &str) -> Result<(u16, Value)> {
    let response = reqwest::Client::new()
        .get(format!("{base}/api/v1/posts/28"))
        .bearer_auth(key)
        .send()
        .await
        .context("call the API")?;
    let status = response.status().as_u16();
    let body = response.json().await.context("a JSON body")?;
    Ok((status, body))
}

/// Reports a browser that cannot be had: a failure on CI, else a skip.
fn no_browser(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs the browser test: {why}"
    );
    eprintln!("skipped dashboard_browser: {why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_developer_signs_up_calls_the_api_tops_up_and_revokes_in_a_browser() {
    let started = Instant::now();
    let driver = match ChromeDriver::start().await {
        Ok(driver) => driver,
        Err(why) => return no_browser(&why),
    };
    let client = match driver.session().await {
        Ok(client) => client,
        Err(why) => return no_browser(&why),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start(dir.path()).await.expect("start the server");
    let mut browser = Browser {
        client,
        base: server.base.clone(),
        shots: Screenshots::from_env().expect("screenshot folder"),
    };
    let (width, height) = DESKTOP;
    browser
        .set_viewport(width, height)
        .await
        .expect("size the window");
    if let Err(err) = story(&mut browser, &server).await {
        let at = browser.at().await.unwrap_or_default();
        panic!("{err:#}\n(the browser is at {at})");
    }
    browser.client.close().await.expect("close the browser");
    drop(driver);
    eprintln!(
        "dashboard_browser: the story took {} ms",
        started.elapsed().as_millis()
    );
}

/// Every step; the first that goes wrong says what and where.
async fn story(browser: &mut Browser, server: &Server) -> Result<()> {
    sign_up_and_verify(browser, server).await?;
    let key = create_key(browser).await?;
    spend_the_free_credits(browser, &server.base, &key).await?;
    top_up(browser, &server.base, &key).await?;
    revoke(browser, &server.base, &key).await?;
    sign_out(browser).await
}

/// Steps 1 and 2: the sign-up form, the emailed link, the sign-in form, the overview.
async fn sign_up_and_verify(browser: &mut Browser, server: &Server) -> Result<()> {
    browser.open("/").await?;
    browser.screenshot("home").await?;
    browser.click("header a[href='/docs']").await?;
    browser.wait_until_at("/docs", |at| at == "/docs").await?;
    browser.screenshot("docs").await?;
    browser.open("/").await?;

    browser.click("a#signup").await?;
    browser
        .wait_until_at("/signup", |at| at == "/signup")
        .await?;
    browser.screenshot("signup").await?;
    browser
        .fill("form#signup-form input[name=email]", EMAIL)
        .await?;
    browser
        .fill("form#signup-form input[name=password]", PASSWORD)
        .await?;
    browser
        .click("form#signup-form button[type=submit]")
        .await?;
    browser
        .wait_until_at("/signup/sent", |at| at == "/signup/sent")
        .await?;
    ensure!(browser.text("main h1").await? == "Check your email");
    browser.screenshot("signup-sent").await?;

    browser.open(&server.verify_link()?).await?;
    browser
        .wait_until_at("/login?verified=1", |at| at == "/login?verified=1")
        .await?;
    let flash = browser.text("p.flash.success").await?;
    ensure!(flash.contains("confirmed"), "verified flash: {flash}");
    browser.screenshot("login-verified").await?;
    sign_in_with_the_form(browser).await?;
    browser
        .wait_until_at("/dashboard", |at| at == "/dashboard")
        .await?;
    let balance = browser.text("#balance").await?;
    ensure!(
        balance == SIGNUP_CREDITS.to_string(),
        "overview balance after verification: {balance}"
    );
    browser.screenshot("overview").await
}

/// Step 3: a key from the keys page; returns its secret.
async fn create_key(browser: &mut Browser) -> Result<String> {
    browser.click("header a[href='/dashboard/keys']").await?;
    browser
        .wait_until_at("/dashboard/keys", |at| at == "/dashboard/keys")
        .await?;
    browser.screenshot("keys-empty").await?;
    browser
        .fill("form#create-key input[name=name]", "e2e")
        .await?;
    browser
        .select("form#create-key select[name=lifetime]", "30d")
        .await?;
    browser.click("form#create-key button[type=submit]").await?;
    let secret = browser.text("#secret").await?;
    ensure!(secret.starts_with("fdx_live_"), "the new key: {secret}");
    browser.screenshot("new-key").await?;
    Ok(secret)
}

/// Steps 4 and 5: two paid calls, a 402, and the usage page counting all three.
async fn spend_the_free_credits(browser: &mut Browser, base: &str, key: &str) -> Result<()> {
    for call in 1..=SIGNUP_CREDITS {
        let (status, body) = call_api(base, key).await?;
        ensure!(status == 200, "paid call {call}: {status} {body}");
        ensure!(body["post_id"] == 28, "paid call {call}: {body}");
    }
    let (status, body) = call_api(base, key).await?;
    ensure!(status == 402, "with no credits left: {status} {body}");
    let topup_url = body["topupUrl"].as_str().context("402 has topupUrl")?;
    ensure!(
        topup_url == format!("{base}/dashboard/billing"),
        "topupUrl: {topup_url}"
    );

    browser.open("/dashboard/usage").await?;
    let posts = "/api/v1/posts/{id}";
    let wanted = [
        vec![
            posts.to_owned(),
            "200".to_owned(),
            SIGNUP_CREDITS.to_string(),
        ],
        vec![posts.to_owned(), "402".to_owned(), "1".to_owned()],
    ];
    let start = Instant::now();
    loop {
        let rows = browser.rows("#by-endpoint").await?;
        if wanted.iter().all(|row| rows.contains(row)) {
            break;
        }
        if start.elapsed() > USAGE_FLUSH {
            bail!("the usage page does not show {wanted:?}, only {rows:?}");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        browser.client.refresh().await?;
    }
    browser.screenshot("usage").await?;
    browser.open("/dashboard/usage?by=hour").await?;
    browser.text("#by-hour").await?;
    browser.screenshot("usage-hourly").await?;
    browser
        .click("header a[href='/dashboard/requests']")
        .await?;
    browser
        .wait_until_at("/dashboard/requests", |at| at == "/dashboard/requests")
        .await?;
    let start = Instant::now();
    loop {
        let rows = browser.rows("#requests").await.unwrap_or_default();
        if rows.iter().any(|row| row.iter().any(|cell| cell == "402")) {
            break;
        }
        if start.elapsed() > USAGE_FLUSH {
            bail!("the request log does not show the 402, only {rows:?}");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        browser.client.refresh().await?;
    }
    browser.screenshot("requests").await?;
    browser.click("header a.who").await?;
    browser
        .wait_until_at("/dashboard/account", |at| at == "/dashboard/account")
        .await?;
    let sessions = browser.rows("#sessions").await?;
    ensure!(
        sessions.len() == 1,
        "one session on the account page: {sessions:?}"
    );
    browser.screenshot("account").await?;
    turn_on_two_factor(browser).await?;
    browser
        .click("header a[href='/dashboard/activity']")
        .await?;
    browser
        .wait_until_at("/dashboard/activity", |at| at == "/dashboard/activity")
        .await?;
    browser.screenshot("activity").await?;

    // The 402's link, as the developer would follow it.
    browser.open(topup_url).await?;
    browser
        .wait_until_at("/dashboard/billing", |at| at == "/dashboard/billing")
        .await?;
    let balance = browser.text("#balance").await?;
    ensure!(balance == "0", "billing balance after the 402: {balance}");
    browser.screenshot("billing").await
}

/// Steps 6 and 7: buy the pack through the test checkout; the key works again.
async fn top_up(browser: &mut Browser, base: &str, key: &str) -> Result<()> {
    browser.click("form.pack button").await?;
    let checkout = browser
        .wait_until_at("the test checkout", |at| {
            at.starts_with("/dashboard/test-checkout/")
        })
        .await?;
    let topup_id = checkout
        .strip_prefix("/dashboard/test-checkout/")
        .unwrap_or_default()
        .to_owned();
    browser.screenshot("test-checkout").await?;
    browser.click("#pay").await?;
    let paid = format!("/dashboard/billing?topup={topup_id}");
    browser.wait_until_at(&paid, |at| at == paid).await?;
    let balance = browser.text("#balance").await?;
    ensure!(
        balance == PACK_CREDITS.to_string(),
        "balance after paying: {balance}"
    );
    let flash = browser.text("p.flash.success").await?;
    ensure!(
        flash.contains(&format!("{PACK_CREDITS} credits were added")),
        "flash after paying: {flash}"
    );
    browser.screenshot("billing-paid").await?;
    browser
        .click("#topups a[href^='/dashboard/billing/receipts/']")
        .await?;
    browser
        .wait_until_at("a receipt", |at| {
            at.starts_with("/dashboard/billing/receipts/")
        })
        .await?;
    browser.screenshot("receipt").await?;

    let (status, body) = call_api(base, key).await?;
    ensure!(status == 200, "after the top-up: {status} {body}");

    // The explorer on /docs: the same call from the page, with the key typed there.
    browser.open("/docs").await?;
    browser.fill("#try-key", key).await?;
    let form = "#op-getForumPost form.try";
    browser
        .fill(&format!("{form} input[name=id]"), "28")
        .await?;
    browser
        .click(&format!("{form} button[type=submit]"))
        .await?;
    let start = Instant::now();
    let status = loop {
        let status = browser.text(&format!("{form} .try-status")).await?;
        if status != "Sending…" && !status.is_empty() {
            break status;
        }
        ensure!(
            start.elapsed() < PATIENCE,
            "the explorer's call did not finish"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    ensure!(status.starts_with("200"), "the explorer's call: {status}");
    let headers = browser.text(&format!("{form} .try-headers")).await?;
    ensure!(
        headers.contains("x-credits-charged: 1"),
        "charged as usual: {headers}"
    );
    let answer = browser.text(&format!("{form} .try-body")).await?;
    ensure!(answer.contains("\"post_id\": 28"), "the post: {answer}");
    let curl = browser.text(&format!("{form} .try-curl")).await?;
    ensure!(
        curl.ends_with("/api/v1/posts/28\"") && !curl.contains(key),
        "the curl line, without the key: {curl}"
    );
    browser.screenshot("docs-explorer").await?;
    Ok(())
}

/// Step 8: revoke the key from its page; the API refuses it.
async fn revoke(browser: &mut Browser, base: &str, key: &str) -> Result<()> {
    browser.click("header a[href='/dashboard/keys']").await?;
    browser
        .wait_until_at("/dashboard/keys", |at| at == "/dashboard/keys")
        .await?;
    let rows = browser
        .client
        .find_all(Locator::Css("#keys tr[data-key-id]"))
        .await?;
    ensure!(rows.len() == 1, "one key listed, not {}", rows.len());
    let key_id = rows[0]
        .attr("data-key-id")
        .await?
        .context("the row names its key")?;
    browser.screenshot("keys").await?;
    browser
        .click(&format!("tr[data-key-id='{key_id}'] a"))
        .await?;
    let page = format!("/dashboard/keys/{key_id}");
    browser.wait_until_at(&page, |at| at == page).await?;
    ensure!(browser.text("main h1 .badge").await? == "active");
    browser.screenshot("key").await?;
    browser.click("#revoke-confirm").await?;
    browser.click("form#revoke button[type=submit]").await?;
    // The revocation redirects to the key's page again (with `?revoked=1` for its notice):
    // wait for its new badge (reading the old page while it is replaced may fail; that is
    // "not yet").
    let start = Instant::now();
    while browser.text("main h1 .badge").await.ok().as_deref() != Some("revoked") {
        ensure!(
            start.elapsed() < PATIENCE,
            "the key page never says revoked"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let revoked = format!("{page}?revoked=1");
    browser.wait_until_at(&revoked, |at| at == revoked).await?;
    ensure!(
        browser
            .text("p.flash.success")
            .await?
            .starts_with("Revoked")
    );
    browser.screenshot("key-revoked").await?;

    let (status, body) = call_api(base, key).await?;
    ensure!(status == 401, "a revoked key: {status} {body}");
    Ok(())
}

/// Fills the sign-in form with the developer's address and password and sends it.
async fn sign_in_with_the_form(browser: &Browser) -> Result<()> {
    browser
        .fill("form#login-form input[name=email]", EMAIL)
        .await?;
    browser
        .fill("form#login-form input[name=password]", PASSWORD)
        .await?;
    browser.click("form#login-form button[type=submit]").await
}

/// The code an authenticator app holding `secret` (base 32) shows now.
fn app_code(secret: &str) -> Result<String> {
    let bytes = totp_rs::Secret::Encoded(secret.to_owned())
        .to_bytes()
        .map_err(|err| anyhow::anyhow!("the page's key {secret:?}: {err:?}"))?;
    let totp = totp_rs::TOTP::new_unchecked(
        totp_rs::Algorithm::SHA1,
        6,
        1,
        30,
        bytes,
        None,
        String::new(),
    );
    Ok(totp.generate(u64::try_from(chrono::Utc::now().timestamp())?))
}

/// From the account page: turns two-factor sign-in on with the key the page shows, and sees
/// the recovery codes once.
async fn turn_on_two_factor(browser: &mut Browser) -> Result<()> {
    browser
        .click("a[href='/dashboard/account/two-factor']")
        .await?;
    browser
        .wait_until_at("/dashboard/account/two-factor", |at| {
            at == "/dashboard/account/two-factor"
        })
        .await?;
    browser.screenshot("two-factor").await?;
    let secret = browser.text("#secret").await?;
    browser.fill("#enable-code", &app_code(&secret)?).await?;
    browser.fill("#enable-password", PASSWORD).await?;
    browser
        .click("form#enable-form button[type=submit]")
        .await?;
    let codes = browser.text("#recovery-codes").await?;
    ensure!(
        codes.lines().filter(|line| !line.trim().is_empty()).count() == 10,
        "ten recovery codes: {codes:?}"
    );
    browser.screenshot("recovery-codes").await
}

/// Step 9: sign out from the header; the dashboard asks to sign in again.
async fn sign_out(browser: &mut Browser) -> Result<()> {
    browser.click("form#logout button[type=submit]").await?;
    browser.wait_until_at("/", |at| at == "/").await?;
    ensure!(
        browser.client.find(Locator::Css("a#signup")).await.is_ok(),
        "the header offers sign-up again"
    );
    browser.open("/dashboard").await?;
    browser
        .wait_until_at("/login", |at| at.starts_with("/login?"))
        .await?;
    browser.screenshot("login-again").await?;
    sign_in_with_the_form(browser).await?;
    browser.text("form#code-form").await?;
    browser.screenshot("login-code").await?;
    browser.open("/password/forgot").await?;
    browser.screenshot("password-forgot").await
}
