//! The import pipeline: a reader thread splits the inputs into lines, parse workers validate
//! them and detect languages, this thread routes languages by board in line order and cuts
//! batches, and a writer thread applies them to the store, so parsing and SQLite overlap.

use std::io::{self, BufRead, IsTerminal, Read};
use std::path::Path;
use std::sync::{Arc, mpsc};

use anyhow::Context;
use forumdex_clock::{SharedClock, SystemClock};
use forumdex_corpus::record::Record;
use forumdex_corpus::text::html_to_text;
use forumdex_corpus::{CorpusWrite, Millis, Observation};
use forumdex_images::ImageObjects;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::boards::BoardLanguages;
use crate::images::{self, ImageFailure};
use crate::language::{self, Detection};
use crate::source::Source;

/// Longest accepted line; a longer one is rejected without being held in memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// Rejections kept in the summary (all are counted and reported as they happen).
const KEPT_REJECTIONS: usize = 100;

/// How to import.
#[derive(Clone)]
pub struct ImportOptions {
    /// Observations per batch (one sequence number, one transaction).
    pub batch_size: usize,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Where the image stage stores AVIF objects; without it image records are kept but
    /// their files wait for an import that has one (see [`crate::images`]).
    pub images: Option<Arc<dyn ImageObjects>>,
    /// Dates the batches (their versions' `indexed_at`); the system clock by default.
    pub clock: SharedClock,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            batch_size: 5_000,
            progress: true,
            images: None,
            clock: SystemClock::shared(),
        }
    }
}

impl std::fmt::Debug for ImportOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportOptions")
            .field("batch_size", &self.batch_size)
            .field("progress", &self.progress)
            .field("images", &self.images.is_some())
            .finish()
    }
}

/// A rejected line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// The input's name (`-` for stdin).
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// What was wrong.
    pub reason: String,
}

/// What an import did: the operator interface's `--json` fields, then more detail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Valid lines (new or already known).
    pub accepted: u64,
    /// Rejected lines.
    pub rejected: u64,
    /// Accepted post lines.
    pub posts: u64,
    /// Accepted topic lines.
    pub topics: u64,
    /// Accepted profile lines.
    pub profiles: u64,
    /// Accepted board lines.
    pub boards: u64,
    /// Accepted image lines.
    pub images: u64,
    /// Observations the corpus did not have before.
    pub new_observations: u64,
    /// Observations it already had (a re-import adds nothing).
    pub known_observations: u64,
    /// Sequence numbers the import's batches got (none for a no-op re-import).
    pub sequences: Vec<i64>,
    /// The first rejections, in order.
    pub rejections: Vec<Rejection>,
    /// Image records whose file became an AVIF object in this import.
    pub images_cached: u64,
    /// Image records whose file was missing or undecodable (left out; retried next import).
    pub images_failed: u64,
    /// The first image failures, in order.
    pub image_failures: Vec<ImageFailure>,
}

impl ImportSummary {
    fn count(&mut self, record: &Record) {
        self.accepted += 1;
        match record {
            Record::Board(_) => self.boards += 1,
            Record::Profile(_) => self.profiles += 1,
            Record::Topic(_) => self.topics += 1,
            Record::Post(_) => self.posts += 1,
            Record::Image(_) => self.images += 1,
        }
    }

    fn reject(&mut self, rejection: Rejection, on_reject: &mut impl FnMut(&Rejection)) {
        self.rejected += 1;
        on_reject(&rejection);
        if self.rejections.len() < KEPT_REJECTIONS {
            self.rejections.push(rejection);
        }
    }
}

/// Lines per parse chunk handed to a worker.
const CHUNK_LINES: usize = 512;

/// A run of raw lines of one source, in order.
struct Chunk {
    source: usize,
    /// (line number, bytes, whether the line was too long and dropped).
    lines: Vec<(u64, Vec<u8>, bool)>,
}

/// What the reader sends the parse workers.
enum ReadMsg {
    Lines(Chunk),
    Failed(String),
}

/// A parsed chunk: one result per non-blank line, in order.
enum ParsedMsg {
    Lines(usize, Vec<(u64, Result<Parsed, String>)>),
    Failed(String),
}

/// A valid line, with what detection found when it is a post without a language (routed
/// by its board in line order, see [`language::route`]).
struct Parsed {
    observation: Observation,
    detection: Option<Detection>,
}

/// Imports `sources` in order into `store`. `on_reject` sees each rejected line as it is
/// found. Batches committed before a store failure stay committed; re-running the same
/// files is then safe (already known observations are skipped).
///
/// Four stages overlap: a reader thread splits the inputs into chunks of lines, parse
/// workers (one per core) validate them and detect languages, this thread puts the results
/// back in order, gives posts without a language their board's or their text's
/// ([`language::route`], with the boards read so far or already in `store`), counts and
/// reports them and cuts batches, and a writer thread applies the batches to the store.
/// Every channel is bounded, so memory stays flat.
pub fn import_files(
    store: &dyn CorpusWrite,
    sources: &[Source],
    options: &ImportOptions,
    mut on_reject: impl FnMut(&Rejection),
) -> anyhow::Result<ImportSummary> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = cores.clamp(1, 4);
    let names: Vec<String> = sources.iter().map(Source::display_name).collect();
    let base_dirs: Vec<std::path::PathBuf> = sources.iter().map(Source::base_dir).collect();
    let mut summary = ImportSummary::default();
    let before = store
        .snapshot(Millis::now(&*options.clock))
        .context("reading the corpus's newest sequence")?;
    let mut boards = BoardLanguages::over_store(store, before.seq);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let (batches, received) = mpsc::sync_channel::<Vec<Observation>>(2);
        // Told after every commit (a full channel already holds the news).
        let (committed, batches_committed) = mpsc::sync_channel::<()>(1);
        let image_stage = options.images.as_deref().map(|objects| {
            scope.spawn(move || {
                images::run(store, objects, cores, batches_committed, |failure| {
                    tracing::warn!(
                        source_url = %failure.source_url,
                        file = %failure.file,
                        reason = %failure.reason,
                        "image left out"
                    );
                })
            })
        });
        let clock = &*options.clock;
        let writer = scope.spawn(move || -> anyhow::Result<(u64, u64, Vec<i64>)> {
            let (mut new, mut known, mut sequences) = (0, 0, Vec::new());
            for batch in received {
                let outcome = store
                    .import_batch(&batch, Millis::now(clock))
                    .context("writing a batch to the corpus")?;
                new += outcome.new_observations as u64;
                known += outcome.known_observations as u64;
                sequences.extend(outcome.seq);
                let _ = committed.try_send(());
            }
            Ok((new, known, sequences))
        });
        let mut to_workers = Vec::with_capacity(workers);
        let mut from_workers = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (chunks, chunk_rx) = mpsc::sync_channel::<ReadMsg>(2);
            let (parsed_tx, parsed) = mpsc::sync_channel::<ParsedMsg>(2);
            let base_dirs = &base_dirs;
            scope.spawn(move || parse_worker(chunk_rx, parsed_tx, base_dirs));
            to_workers.push(chunks);
            from_workers.push(parsed);
        }
        scope.spawn(move || read_sources(sources, options, to_workers));
        let collected = collect(
            &from_workers,
            &names,
            options.batch_size,
            &batches,
            &mut boards,
            &mut summary,
            &mut on_reject,
        );
        drop(batches);
        drop(from_workers);
        let written = writer.join().expect("the batch writer does not panic");
        // A writer failure closes the batch channel, which the collector sees as a send
        // error: report the writer's error first, it is the cause.
        let (new, known, sequences) = written?;
        collected?;
        summary.new_observations = new;
        summary.known_observations = known;
        summary.sequences = sequences;
        if let Some(stage) = image_stage {
            let report = stage.join().expect("the image stage does not panic")?;
            summary.images_cached = report.cached;
            summary.images_failed = report.failed;
            summary.image_failures = report.failures;
            summary.image_failures.truncate(KEPT_REJECTIONS);
        }
        Ok(())
    })?;
    Ok(summary)
}

/// The reader stage: chunks of lines, dealt to the workers in turn.
fn read_sources(
    sources: &[Source],
    options: &ImportOptions,
    workers: Vec<mpsc::SyncSender<ReadMsg>>,
) {
    let mut turn = 0usize;
    let mut send = |message: ReadMsg| -> bool {
        let sent = workers[turn % workers.len()].send(message).is_ok();
        turn += 1;
        sent
    };
    for (index, source) in sources.iter().enumerate() {
        if let Err(err) = read_source(index, source, options, &mut send) {
            send(ReadMsg::Failed(format!("{err:#}")));
            return;
        }
    }
}

fn read_source(
    index: usize,
    source: &Source,
    options: &ImportOptions,
    send: &mut impl FnMut(ReadMsg) -> bool,
) -> anyhow::Result<()> {
    let progress = progress_bar(source, options);
    let bar = progress.clone();
    let mut reader =
        source.open(move |raw| Box::new(bar.wrap_read(raw)) as Box<dyn Read + Send>)?;
    let name = source.display_name();
    let mut line_number = 0u64;
    let mut chunk = Vec::with_capacity(CHUNK_LINES);
    let mut line = Vec::new();
    loop {
        let read = read_line_capped(&mut reader, &mut line)
            .with_context(|| format!("reading {name} after line {line_number}"))?;
        let Some(too_long) = read else { break };
        line_number += 1;
        if !too_long && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        chunk.push((line_number, std::mem::take(&mut line), too_long));
        if chunk.len() == CHUNK_LINES {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_LINES));
            if !send(ReadMsg::Lines(Chunk {
                source: index,
                lines: full,
            })) {
                return Ok(());
            }
        }
    }
    if !chunk.is_empty() {
        send(ReadMsg::Lines(Chunk {
            source: index,
            lines: chunk,
        }));
    }
    progress.finish_and_clear();
    Ok(())
}

/// The parse stage: validates lines and completes what the importer derives.
fn parse_worker(
    chunks: mpsc::Receiver<ReadMsg>,
    parsed: mpsc::SyncSender<ParsedMsg>,
    base_dirs: &[std::path::PathBuf],
) {
    for message in chunks {
        let out = match message {
            ReadMsg::Failed(err) => ParsedMsg::Failed(err),
            ReadMsg::Lines(chunk) => {
                let results = chunk
                    .lines
                    .into_iter()
                    .map(|(number, line, too_long)| {
                        if too_long {
                            return (
                                number,
                                Err(format!("line longer than {MAX_LINE_BYTES} bytes")),
                            );
                        }
                        let result = Observation::parse_line(&line)
                            .map(|mut observation| {
                                let detection =
                                    complete(&mut observation.record, &base_dirs[chunk.source]);
                                Parsed {
                                    observation,
                                    detection,
                                }
                            })
                            .map_err(|err| err.0);
                        (number, result)
                    })
                    .collect();
                ParsedMsg::Lines(chunk.source, results)
            }
        };
        if parsed.send(out).is_err() {
            return;
        }
    }
}

/// The ordering stage: takes parsed chunks back in the order they were dealt, routes the
/// languages of posts without one by their board, counts and reports them, and sends full
/// batches to the writer.
fn collect(
    workers: &[mpsc::Receiver<ParsedMsg>],
    names: &[String],
    batch_size: usize,
    batches: &mpsc::SyncSender<Vec<Observation>>,
    boards: &mut BoardLanguages<'_>,
    summary: &mut ImportSummary,
    on_reject: &mut impl FnMut(&Rejection),
) -> anyhow::Result<()> {
    let mut batch = Vec::with_capacity(batch_size);
    let send = |batch: Vec<Observation>| {
        batches
            .send(batch)
            .map_err(|_| anyhow::anyhow!("the batch writer stopped"))
    };
    for turn in 0.. {
        let Ok(message) = workers[turn % workers.len()].recv() else {
            break;
        };
        let (source, results) = match message {
            ParsedMsg::Lines(source, results) => (source, results),
            ParsedMsg::Failed(err) => anyhow::bail!(err),
        };
        for (line, result) in results {
            match result {
                Ok(Parsed {
                    mut observation,
                    detection,
                }) => {
                    boards.observe(&observation.record);
                    if let (Record::Post(post), Some(detection)) =
                        (&mut observation.record, detection)
                    {
                        let prior = boards
                            .of_post(post)
                            .context("reading a board's name from the corpus")?;
                        post.language = language::route(prior, &detection).map(str::to_owned);
                    }
                    summary.count(&observation.record);
                    batch.push(observation);
                    if batch.len() >= batch_size {
                        send(std::mem::replace(
                            &mut batch,
                            Vec::with_capacity(batch_size),
                        ))?;
                    }
                }
                Err(reason) => summary.reject(rejection(&names[source], line, reason), on_reject),
            }
        }
    }
    if !batch.is_empty() {
        send(batch)?;
    }
    Ok(())
}

fn rejection(file: &str, line: u64, reason: String) -> Rejection {
    Rejection {
        file: file.to_owned(),
        line,
        reason,
    }
}

/// Resolves image file paths against the corpus file's folder, and detects the language of
/// a post without one (routed later, in order, where its board is known).
fn complete(record: &mut Record, base_dir: &Path) -> Option<Detection> {
    match record {
        Record::Post(post) if post.language.is_none() => {
            Some(Detection::of(&html_to_text(&post.content_html)))
        }
        Record::Image(image) => {
            if let Some(file) = &image.file {
                image.file = Some(base_dir.join(file).display().to_string());
            }
            None
        }
        _ => None,
    }
}

fn progress_bar(source: &Source, options: &ImportOptions) -> ProgressBar {
    if !options.progress || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match source.size_on_disk() {
        Some(len) => ProgressBar::new(len),
        None => ProgressBar::new_spinner(),
    };
    let style = ProgressStyle::with_template(
        "{msg} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
    .expect("the progress template is valid");
    bar.set_style(style);
    bar.set_message(source.display_name());
    bar
}

/// Reads one line into `line` without its `\n` (and a `\r` before it). `None` at the end;
/// `Some(true)` when the line exceeded [`MAX_LINE_BYTES`] (it is skipped, not buffered).
fn read_line_capped(reader: &mut dyn BufRead, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    line.clear();
    let mut too_long = false;
    let mut saw_any = false;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        saw_any = true;
        let (chunk, done) = match memchr(available) {
            Some(at) => (&available[..at], at + 1),
            None => (available, available.len()),
        };
        if !too_long && line.len() + chunk.len() > MAX_LINE_BYTES {
            too_long = true;
            line.clear();
        }
        if !too_long {
            line.extend_from_slice(chunk);
        }
        let found_newline = done > chunk.len();
        reader.consume(done);
        if found_newline {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(too_long));
        }
    }
    if !saw_any {
        return Ok(None);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(too_long))
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_on_newline_and_drop_crlf() {
        let mut input: &[u8] = b"a\r\nbb\n\nlast";
        let mut line = Vec::new();
        let mut seen = Vec::new();
        while let Some(too_long) = read_line_capped(&mut input, &mut line).unwrap() {
            assert!(!too_long);
            seen.push(String::from_utf8(line.clone()).unwrap());
        }
        assert_eq!(seen, ["a", "bb", "", "last"]);
    }
}
