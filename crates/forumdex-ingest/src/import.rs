//! The import pipeline: this thread reads and validates lines (detecting languages), a
//! writer thread applies full batches to the store, so parsing and SQLite overlap.

use std::io::{self, BufRead, IsTerminal, Read};
use std::path::Path;
use std::sync::mpsc;

use anyhow::Context;
use forumdex_corpus::record::Record;
use forumdex_corpus::text::html_to_text;
use forumdex_corpus::{CorpusStore, Millis, Observation};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::language;
use crate::source::Source;

/// Longest accepted line; a longer one is rejected without being held in memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// Rejections kept in the summary (all are counted and reported as they happen).
const KEPT_REJECTIONS: usize = 100;

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Observations per batch (one sequence number, one transaction).
    pub batch_size: usize,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            batch_size: 5_000,
            progress: true,
        }
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

/// Imports `sources` in order into `store`. `on_reject` sees each rejected line as it is
/// found. Batches committed before a store failure stay committed; re-running the same
/// files is then safe (already known observations are skipped).
pub fn import_files(
    store: &dyn CorpusStore,
    sources: &[Source],
    options: &ImportOptions,
    mut on_reject: impl FnMut(&Rejection),
) -> anyhow::Result<ImportSummary> {
    let mut summary = ImportSummary::default();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let (batches, received) = mpsc::sync_channel::<Vec<Observation>>(2);
        let writer = scope.spawn(move || -> anyhow::Result<(u64, u64, Vec<i64>)> {
            let (mut new, mut known, mut sequences) = (0, 0, Vec::new());
            for batch in received {
                let outcome = store
                    .import_batch(&batch, Millis::now())
                    .context("writing a batch to the corpus")?;
                new += outcome.new_observations as u64;
                known += outcome.known_observations as u64;
                sequences.extend(outcome.seq);
            }
            Ok((new, known, sequences))
        });
        let read_result = (|| {
            for source in sources {
                read_source(source, options, &batches, &mut summary, &mut on_reject)?;
            }
            Ok::<_, anyhow::Error>(())
        })();
        drop(batches);
        let written = writer.join().expect("the batch writer does not panic");
        // A writer failure closes the channel, which the reader sees as a send error:
        // report the writer's error first, it is the cause.
        let (new, known, sequences) = written?;
        read_result?;
        summary.new_observations = new;
        summary.known_observations = known;
        summary.sequences = sequences;
        Ok(())
    })?;
    Ok(summary)
}

fn read_source(
    source: &Source,
    options: &ImportOptions,
    batches: &mpsc::SyncSender<Vec<Observation>>,
    summary: &mut ImportSummary,
    on_reject: &mut impl FnMut(&Rejection),
) -> anyhow::Result<()> {
    let progress = progress_bar(source, options);
    let bar = progress.clone();
    let mut reader =
        source.open(move |raw| Box::new(bar.wrap_read(raw)) as Box<dyn Read + Send>)?;
    let base_dir = source.base_dir();
    let name = source.display_name();
    let mut line = Vec::new();
    let mut line_number = 0u64;
    let mut batch = Vec::with_capacity(options.batch_size);
    loop {
        let read = read_line_capped(&mut reader, &mut line)
            .with_context(|| format!("reading {name} after line {line_number}"))?;
        let Some(too_long) = read else { break };
        line_number += 1;
        if too_long {
            let reason = format!("line longer than {MAX_LINE_BYTES} bytes");
            summary.reject(rejection(&name, line_number, reason), on_reject);
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Observation::parse_line(&line) {
            Ok(mut observation) => {
                complete(&mut observation.record, &base_dir);
                summary.count(&observation.record);
                batch.push(observation);
                if batch.len() >= options.batch_size {
                    let full =
                        std::mem::replace(&mut batch, Vec::with_capacity(options.batch_size));
                    batches
                        .send(full)
                        .map_err(|_| anyhow::anyhow!("the batch writer stopped"))?;
                }
            }
            Err(err) => summary.reject(rejection(&name, line_number, err.0), on_reject),
        }
    }
    if !batch.is_empty() {
        batches
            .send(batch)
            .map_err(|_| anyhow::anyhow!("the batch writer stopped"))?;
    }
    progress.finish_and_clear();
    Ok(())
}

fn rejection(file: &str, line: u64, reason: String) -> Rejection {
    Rejection {
        file: file.to_owned(),
        line,
        reason,
    }
}

/// Fills what the importer derives: a detected language for posts without one, and image
/// file paths resolved against the corpus file's folder.
fn complete(record: &mut Record, base_dir: &Path) {
    match record {
        Record::Post(post) if post.language.is_none() => {
            let text = html_to_text(&post.content_html);
            post.language = language::detect(&text).map(str::to_owned);
        }
        Record::Image(image) => {
            if let Some(file) = &image.file {
                image.file = Some(base_dir.join(file).display().to_string());
            }
        }
        _ => {}
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
