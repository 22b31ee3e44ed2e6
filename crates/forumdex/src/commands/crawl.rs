//! `forumdex crawl`: reads an SMF 1.x forum politely (forumdex-crawl) and imports what it
//! reads through the same path as `forumdex import`, or writes it to `--out`.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Utc};
use clap::Args;
use forumdex_corpus::{CorpusWrite, ForumId};
use forumdex_crawl::crawl::{Crawler, Scope, Sink, Summary};
use forumdex_crawl::fetch::{CrawlPolicy, Fetcher};
use forumdex_crawl::state::CrawlState;
use forumdex_ingest::source::Source;
use forumdex_postgres::PgPool;
use forumdex_search::{Indexer, SearchIndexes};
use forumdex_storage::{Storage, StorageKind};

use crate::commands::{import, settings};
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Imported raw pages older than this many days are purged after a crawl (kept that long
/// for `--reparse`).
pub const RAW_PAGE_DAYS: u32 = 30;
/// The file one page's lines are written to before they are imported, under
/// `{data}/crawl/`.
const PAGE_FILE: &str = "page.jsonl";

/// Arguments of `forumdex crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// The forum's root URL. Default: the `forum_url` setting.
    #[arg(long)]
    pub forum_url: Option<String>,
    /// A board whose listing pages and topics are crawled (repeatable).
    #[arg(long = "board", value_parser = parse_id)]
    pub boards: Vec<ForumId>,
    /// A topic whose pages are crawled (repeatable).
    #[arg(long = "topic", value_parser = parse_id)]
    pub topics: Vec<ForumId>,
    /// Also crawl the profiles of the posts' authors.
    #[arg(long)]
    pub profiles: bool,
    /// Only follow topics whose last post is at or after this time (RFC 3339).
    #[arg(long, value_parser = parse_time)]
    pub since: Option<DateTime<Utc>>,
    /// Write the corpus-format lines to FILE instead of importing them.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Send at most N requests in this run.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_requests: Option<u64>,
    /// Re-crawl what changed: the named pages again, topics whose last post moved, posts
    /// due on the re-check schedule (edits and deletions).
    #[arg(long, conflicts_with = "reparse")]
    pub refresh: bool,
    /// Read every stored raw page again with the current parser and import it (no fetching).
    #[arg(long)]
    pub reparse: bool,
}

fn parse_id(text: &str) -> Result<ForumId, String> {
    ForumId::parse(text).ok_or_else(|| format!("{text:?} is not a forum ID"))
}

fn parse_time(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.to_utc())
        .map_err(|err| format!("{text:?} is not an RFC 3339 time: {err}"))
}

/// Runs `forumdex crawl`.
pub fn run(global: &GlobalArgs, args: CrawlArgs) -> anyhow::Result<()> {
    let settings = settings(global, &[])?;
    let forum_url = args
        .forum_url
        .clone()
        .unwrap_or(settings.server.forum_url.clone());
    // `--reparse` sends nothing, so it needs no user agent.
    let policy = if args.reparse {
        None
    } else {
        Some(policy(&settings.crawl, args.max_requests)?)
    };
    let storage = settings.storage.factory(&global.data);
    let state = Arc::new(crawl_state(&storage)?);
    let _lock = state.lock()?;
    let scope = Scope {
        boards: args.boards.clone(),
        topics: args.topics.clone(),
        profiles: args.profiles,
        since: args.since,
    };
    let clock = storage.clock();
    let mut crawler = Crawler::new(
        Arc::clone(&state),
        &forum_url,
        scope,
        args.refresh,
        Arc::clone(&clock),
    );
    let outcome = match &args.out {
        Some(path) => {
            let mut sink = OutSink::create(path)?;
            let outcome = crawl(&mut crawler, &state, &forum_url, policy, &mut sink);
            sink.finish()?;
            outcome
        }
        None => {
            let corpus = storage.corpus()?;
            let folder = global.data.join("crawl");
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
            let mut sink = ImportSink {
                storage: &storage,
                corpus: corpus.write.as_ref(),
                file: folder.join(PAGE_FILE),
            };
            let outcome = crawl(&mut crawler, &state, &forum_url, policy, &mut sink);
            sync_indexes(&storage, &corpus.read);
            outcome
        }
    };
    let purged = state.purge_raw_older_than(RAW_PAGE_DAYS, clock.now())?;
    if purged > 0 {
        tracing::info!(purged, days = RAW_PAGE_DAYS, "old raw pages purged");
    }
    let summary = crawler.summary().clone();
    for notice in notices(&summary) {
        eprintln!("{notice}");
    }
    match outcome {
        Ok(()) => report(global, &summary),
        Err(err) => {
            eprintln!("{}", describe(&summary));
            Err(err.into())
        }
    }
}

/// The crawl settings as a policy, with `--max-requests`; an invalid one names its setting.
fn policy(
    crawl: &forumdex_settings::CrawlSection,
    max_requests: Option<u64>,
) -> anyhow::Result<CrawlPolicy> {
    let policy = CrawlPolicy::new(
        crawl.crawl_user_agent.as_deref().unwrap_or_default(),
        crawl.crawl_interval_ms,
    )
    .and_then(|p| p.with_daily_budget(crawl.crawl_daily_budget))
    .map_err(|err| {
        anyhow::anyhow!(
            "{err} (set it in the --config file or as FORUMDEX_{})",
            setting_of(&err.to_string()).to_uppercase()
        )
    })?;
    Ok(policy.with_max_requests(max_requests))
}

/// The setting a policy error is about.
fn setting_of(message: &str) -> &'static str {
    [
        "crawl_user_agent",
        "crawl_interval_ms",
        "crawl_daily_budget",
    ]
    .into_iter()
    .find(|name| message.contains(name))
    .unwrap_or("crawl_user_agent")
}

/// Replays, then reparses (no `policy`: `--reparse`) or seeds and fetches with `policy`
/// (on the crawler's clock).
fn crawl(
    crawler: &mut Crawler,
    state: &Arc<CrawlState>,
    forum_url: &str,
    policy: Option<CrawlPolicy>,
    sink: &mut dyn Sink,
) -> Result<(), forumdex_crawl::crawl::CrawlError> {
    crawler.replay(sink)?;
    let Some(policy) = policy else {
        return crawler.reparse(sink);
    };
    crawler.seed()?;
    let mut fetcher =
        Fetcher::new(policy, forum_url, Arc::clone(state), crawler.clock()).map_err(|source| {
            forumdex_crawl::crawl::CrawlError::Fetch {
                url: forum_url.to_owned(),
                source,
            }
        })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| forumdex_crawl::crawl::CrawlError::Sink {
            url: forum_url.to_owned(),
            source: anyhow::Error::new(err).context("starting the async runtime"),
        })?;
    runtime.block_on(crawler.run(&mut fetcher, sink))
}

/// The crawl state where the deployment keeps its data: `{data}/crawl/state.sqlite` on the
/// embedded default, the shared PostgreSQL database with `storage = "postgres"` (so that its
/// lock and politeness clock are the whole deployment's).
fn crawl_state(storage: &Storage) -> anyhow::Result<CrawlState> {
    match &storage.settings().kind {
        StorageKind::Embedded => Ok(CrawlState::open_in(storage.data_dir())?),
        StorageKind::Postgres { url } => {
            let pool = PgPool::connect(url).context("opening the crawl state on PostgreSQL")?;
            Ok(CrawlState::open_shared(pool)?)
        }
    }
}

/// The summary: JSON with `--json`, else one line.
fn report(global: &GlobalArgs, summary: &Summary) -> anyhow::Result<()> {
    if global.json {
        return print_json(summary);
    }
    println!("{}", describe(summary));
    Ok(())
}

/// The summary in one line, for people.
fn describe(summary: &Summary) -> String {
    let pages: Vec<String> = summary
        .pages
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    format!(
        "crawled: {} requests, pages: {}; {} posts, {} topics, {} profiles, {} boards; {} new observations; {} errors",
        summary.requests,
        if pages.is_empty() {
            "none".to_owned()
        } else {
            pages.join(", ")
        },
        summary.posts,
        summary.topics,
        summary.profiles,
        summary.boards,
        summary.new_observations,
        summary.errors
    )
}

/// What an operator must hear about a crawl beyond its counts, one line each (on stderr,
/// also with `--json`, whose fields say the same).
fn notices(summary: &Summary) -> Vec<String> {
    let mut lines = Vec::new();
    if summary.dropped > 0 {
        lines.push(format!(
            "{} pending page(s) queued by a crawl of another forum URL were dropped: the frontier follows this run's --forum-url (a crawl of that forum queues them again)",
            summary.dropped
        ));
    }
    if summary.other_scopes > 0 {
        lines.push(format!(
            "{} page(s) queued by an unfinished crawl of another scope were left for it: run that crawl again (same --board/--topic/--profiles/--since) to finish them",
            summary.other_scopes
        ));
    }
    if summary.gone > 0 {
        lines.push(format!(
            "{} topic page(s) gone from the forum (HTTP 404/410 or its error box): the posts seen on them before are recorded as deleted, nothing else was read",
            summary.gone
        ));
    }
    if summary.disallowed > 0 {
        lines.push(format!(
            "{} page(s) skipped: the forum's robots.txt disallows them for this crawler's user agent (crawl_user_agent's product token)",
            summary.disallowed
        ));
    }
    if let Some(delay) = summary.crawl_delay_ms {
        lines.push(format!(
            "the forum's robots.txt asks for a Crawl-delay of {:.1} s, longer than crawl_interval_ms: requests were that far apart ({:.1} s spent waiting)",
            Duration::from_millis(delay).as_secs_f64(),
            Duration::from_millis(summary.waited_ms).as_secs_f64()
        ));
    }
    lines
}

/// Makes the crawled pages searchable now; a failure is only a warning (the running
/// server's own sync, or `forumdex reindex`, picks them up).
fn sync_indexes(storage: &Storage, corpus: &Arc<dyn forumdex_corpus::CorpusRead>) {
    let synced = SearchIndexes::open(storage.data_dir())
        .and_then(|indexes| Indexer::new(Arc::new(indexes), Arc::clone(corpus)).catch_up());
    if let Err(err) = synced {
        eprintln!(
            "warning: the search indexes were not updated ({err}); `forumdex serve` or `forumdex reindex` will do it"
        );
    }
}

/// Imports each page's lines through `forumdex import`'s path: written to a file under
/// `{data}/crawl/`, then imported from it.
struct ImportSink<'a> {
    storage: &'a Storage,
    corpus: &'a dyn CorpusWrite,
    file: PathBuf,
}

impl Sink for ImportSink<'_> {
    fn write(&mut self, lines: &[String]) -> anyhow::Result<u64> {
        if lines.is_empty() {
            return Ok(0);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(&self.file, text)
            .with_context(|| format!("cannot write {}", self.file.display()))?;
        let summary = import::import(
            self.storage,
            self.corpus,
            &[Source::File(self.file.clone())],
            lines.len(),
            false,
        )?;
        if summary.rejected > 0 {
            tracing::warn!(
                rejected = summary.rejected,
                "observations rejected by the import"
            );
        }
        Ok(summary.new_observations)
    }
}

/// Appends the lines to `--out`.
struct OutSink {
    path: PathBuf,
    out: BufWriter<File>,
}

impl OutSink {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.out
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

impl Sink for OutSink {
    fn write(&mut self, lines: &[String]) -> anyhow::Result<u64> {
        for line in lines {
            writeln!(self.out, "{line}")
                .with_context(|| format!("cannot write {}", self.path.display()))?;
        }
        self.out
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(lines.len() as u64)
    }
}
