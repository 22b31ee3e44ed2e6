//! Seeding a node's indexes with a copy of another node's (`forumdex reindex --from DIR`),
//! so a new node of a deployment starts from them instead of rebuilding from the corpus.
//!
//! The source may be serving while it is copied. Its `state.json` is read first: a sync
//! records a sequence only after every index committed it, so the files copied afterwards
//! hold at least that sequence, and the next sync, replaying from it, is idempotent. A
//! merge that deletes a segment file between reading an index's `meta.json` and copying
//! the file shows when the copy is opened; the copy then starts over.

use std::path::Path;

use tantivy::Index;

use super::{STATE_FILE, VERSION, io_error, read_state};
use crate::SearchError;

/// How many times a copy that a concurrent merge spoiled starts over.
const ATTEMPTS: u32 = 5;

/// Copies `<source>/search` into `<data_dir>/search`, which must hold no indexes yet;
/// returns the corpus sequence the copy reflects (the next sync continues from it).
pub fn seed_from(source: &Path, data_dir: &Path) -> Result<i64, SearchError> {
    let from = source.join("search");
    let to = data_dir.join("search");
    if read_state(&to)?.is_some() {
        return Err(SearchError::Index(format!(
            "{} already holds search indexes; seed only a new node (or remove that folder)",
            to.display()
        )));
    }
    let staging = data_dir.join("search.seeding");
    for attempt in 1..=ATTEMPTS {
        match copy_once(&from, &staging)? {
            Ok(synced_seq) => {
                if to.exists() {
                    std::fs::remove_dir_all(&to).map_err(|e| io_error(&to, e))?;
                }
                std::fs::rename(&staging, &to).map_err(|e| io_error(&to, e))?;
                return Ok(synced_seq);
            }
            Err(why) => {
                tracing::info!(attempt, %why, "the source changed while it was copied");
            }
        }
    }
    Err(SearchError::Index(format!(
        "{} kept changing while it was copied ({ATTEMPTS} attempts); try again",
        from.display()
    )))
}

/// One attempt: the state, then every index's files, then a check that each copy opens.
/// `Ok(Err(why))`: a copy that does not open (the source changed under it).
fn copy_once(from: &Path, staging: &Path) -> Result<Result<i64, String>, SearchError> {
    let state = read_state(from)?
        .ok_or_else(|| SearchError::Index(format!("{} holds no search indexes", from.display())))?;
    if state.version != VERSION {
        return Err(SearchError::Index(format!(
            "the indexes in {} are of version {}, this binary's are {VERSION}: rebuild them \
             with `forumdex reindex`",
            from.display(),
            state.version
        )));
    }
    if staging.exists() {
        std::fs::remove_dir_all(staging).map_err(|e| io_error(staging, e))?;
    }
    std::fs::create_dir_all(staging).map_err(|e| io_error(staging, e))?;
    std::fs::copy(from.join(STATE_FILE), staging.join(STATE_FILE))
        .map_err(|e| io_error(&from.join(STATE_FILE), e))?;
    // The model the source's vectors were made with, so they serve here too when this
    // node runs another model, until that model's vectors are made.
    let model = from.join(crate::semantic::generation::MODEL_FILE);
    if model.is_file()
        && let Err(err) = std::fs::copy(
            &model,
            staging.join(crate::semantic::generation::MODEL_FILE),
        )
        && err.kind() != std::io::ErrorKind::NotFound
    {
        return Err(io_error(&model, err));
    }
    let entries = std::fs::read_dir(from).map_err(|e| io_error(from, e))?;
    for entry in entries {
        let index = entry.map_err(|e| io_error(from, e))?.path();
        if !index.is_dir() {
            continue;
        }
        let name = index.file_name().expect("a folder entry has a name");
        let copy = staging.join(name);
        copy_index_files(&index, &copy)?;
        // The post vectors of its segments (the semantic leg), so they are not made again.
        let vectors = index.join(crate::semantic::vectors::FOLDER);
        if vectors.is_dir() {
            copy_index_files(&vectors, &copy.join(crate::semantic::vectors::FOLDER))?;
        }
        let opened = Index::open_in_dir(&copy)
            .and_then(|index| index.reader())
            .map(|reader| reader.searcher().num_docs());
        if let Err(err) = opened {
            return Ok(Err(format!(
                "the copy of {} does not open: {err}",
                index.display()
            )));
        }
    }
    Ok(Ok(state.synced_seq))
}

/// Copies an index folder's files, not tantivy's lock files (they belong to the source's
/// writer) nor files being written (`.tmp`).
fn copy_index_files(index: &Path, copy: &Path) -> Result<(), SearchError> {
    std::fs::create_dir_all(copy).map_err(|e| io_error(copy, e))?;
    let files = std::fs::read_dir(index).map_err(|e| io_error(index, e))?;
    for file in files {
        let file = file.map_err(|e| io_error(index, e))?;
        let name = file.file_name();
        let text = name.to_string_lossy();
        if text.starts_with(".tantivy-") || text.ends_with(".tmp") || !file.path().is_file() {
            continue;
        }
        // A file a merge deleted after the listing is missing from the copy, which then
        // does not open: the attempt starts over.
        if let Err(err) = std::fs::copy(file.path(), copy.join(&name))
            && err.kind() != std::io::ErrorKind::NotFound
        {
            return Err(io_error(&file.path(), err));
        }
    }
    Ok(())
}
