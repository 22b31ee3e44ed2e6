//! The image stage of an import: turns the files of image records into AVIF objects while the
//! rest of the import goes on.
//!
//! After each committed batch the stage lists the current image records that have a file but
//! no object yet ([`CorpusWrite::pending_images`]), encodes them on one thread per core,
//! stores the objects ([`ImageObjects`]) and records them in the corpus. Until then a post
//! keeps the image's original URL. A missing or undecodable file is reported and left out;
//! since nothing is recorded for it, the next import tries it again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::Context;
use forumdex_corpus::{CorpusWrite, ImageObject, PendingImage};
use forumdex_images::{ImageObjects, encode_avif};
use serde::Serialize;

/// Pending images taken from the store at a time.
const PAGE: usize = 256;

/// An image record whose file could not become an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageFailure {
    /// The record's `source_url`.
    pub source_url: String,
    /// The file that was read.
    pub file: String,
    /// Why it failed.
    pub reason: String,
}

/// What the image stage did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageReport {
    /// Image records that got an object (an object shared by several records counts for each).
    pub cached: u64,
    /// Image records whose file was missing or undecodable.
    pub failed: u64,
    /// Every failure, in record order.
    pub failures: Vec<ImageFailure>,
}

/// Runs the stage until `batches_committed` closes: a sweep after every message and a last
/// one at the end, each starting after the last record already handled. `on_failure` sees
/// each failure as it happens.
pub fn run(
    store: &dyn CorpusWrite,
    objects: &dyn ImageObjects,
    workers: usize,
    batches_committed: mpsc::Receiver<()>,
    mut on_failure: impl FnMut(&ImageFailure),
) -> anyhow::Result<ImageReport> {
    let mut report = ImageReport::default();
    let mut after_vid = 0;
    let mut sweep = |report: &mut ImageReport| -> anyhow::Result<()> {
        loop {
            let pending = store
                .pending_images(after_vid, PAGE)
                .context("listing pending images")?;
            let Some(last) = pending.last() else {
                return Ok(());
            };
            after_vid = last.vid;
            let encoded = encode_all(&pending, objects, workers);
            let mut stored = Vec::with_capacity(encoded.len());
            for (image, outcome) in pending.iter().zip(encoded) {
                match outcome {
                    Ok(object) => stored.push((image.line_sha256.clone(), object)),
                    Err(reason) => {
                        let failure = ImageFailure {
                            source_url: image.source_url.clone(),
                            file: image.file.clone(),
                            reason,
                        };
                        on_failure(&failure);
                        report.failed += 1;
                        report.failures.push(failure);
                    }
                }
            }
            report.cached += stored.len() as u64;
            store
                .record_image_objects(&stored)
                .context("recording image objects")?;
        }
    };
    for () in batches_committed {
        sweep(&mut report)?;
    }
    sweep(&mut report)?;
    Ok(report)
}

/// Encodes and stores `pending` on `workers` threads; one outcome per image, in order.
fn encode_all(
    pending: &[PendingImage],
    objects: &dyn ImageObjects,
    workers: usize,
) -> Vec<Result<ImageObject, String>> {
    let next = AtomicUsize::new(0);
    let mut outcomes: Vec<Option<Result<ImageObject, String>>> = vec![None; pending.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.clamp(1, pending.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(image) = pending.get(at) else {
                            return done;
                        };
                        done.push((at, encode_one(image, objects)));
                    }
                })
            })
            .collect();
        for handle in handles {
            for (at, outcome) in handle.join().expect("an image worker does not panic") {
                outcomes[at] = Some(outcome);
            }
        }
    });
    outcomes
        .into_iter()
        .map(|o| o.expect("every image was handled"))
        .collect()
}

fn encode_one(image: &PendingImage, objects: &dyn ImageObjects) -> Result<ImageObject, String> {
    let original = std::fs::read(&image.file).map_err(|e| format!("cannot read the file: {e}"))?;
    let avif = encode_avif(&original).map_err(|e| e.to_string())?;
    objects.put(&avif).map_err(|e| e.to_string())
}
