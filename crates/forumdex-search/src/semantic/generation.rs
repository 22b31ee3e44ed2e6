//! One model and the tables of the segments embedded with it (a [`Generation`]), and what
//! a data folder records so that a model change keeps the earlier vectors serving.
//!
//! The model a folder's tables were made with is kept beside them
//! (`<data>/search/semantic-model.fdxsem`, [`recorded_model`]): when a node starts with
//! another model, the recorded one keeps embedding queries for the earlier tables while the
//! new model's are made, and the node switches to them once they cover every segment.
//! A table file is named by its segment and model (`<segment>.<model>.fdxvec`), so both
//! generations' tables live side by side on disk until the switch.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tantivy::index::SegmentId;

use super::model::SemanticModel;
use super::vectors::{Coverage, FOLDER, SegmentVectors};
use crate::SearchError;
use crate::index::SearchIndexes;

/// The file, under `<data>/search`, holding the model of the tables that serve.
pub const MODEL_FILE: &str = "semantic-model.fdxsem";
/// The extension of a table file.
const TABLE_EXTENSION: &str = "fdxvec";

/// A model and the tables of the segments it has embedded, by index key and segment.
pub struct Generation {
    model: Arc<SemanticModel>,
    tables: RwLock<HashMap<(String, SegmentId), Arc<SegmentVectors>>>,
}

impl std::fmt::Debug for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generation")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Generation {
    /// A generation of `model` with no tables yet.
    pub(super) fn new(model: Arc<SemanticModel>) -> Self {
        Self {
            model,
            tables: RwLock::new(HashMap::new()),
        }
    }

    /// The model: a query compared with this generation's tables is embedded with it.
    pub fn model(&self) -> &SemanticModel {
        &self.model
    }

    /// The table of segment `id` of index `key`, when it is embedded.
    pub fn table(&self, key: &str, id: SegmentId) -> Option<Arc<SegmentVectors>> {
        self.tables
            .read()
            .expect("not poisoned")
            .get(&(key.to_owned(), id))
            .cloned()
    }

    pub(super) fn has(&self, key: &(String, SegmentId)) -> bool {
        self.tables.read().expect("not poisoned").contains_key(key)
    }

    pub(super) fn insert(&self, key: (String, SegmentId), table: SegmentVectors) {
        self.tables
            .write()
            .expect("not poisoned")
            .insert(key, Arc::new(table));
    }

    /// Forgets the tables of index `index`'s segments that are not `live`; returns how many.
    pub(super) fn retain(&self, index: &str, live: &HashSet<(String, SegmentId)>) -> u64 {
        let mut tables = self.tables.write().expect("not poisoned");
        let before = tables.len();
        tables.retain(|key, _| key.0 != index || live.contains(key));
        (before - tables.len()) as u64
    }

    /// How much of what `indexes` can return has vectors of this generation.
    pub fn coverage(&self, indexes: &SearchIndexes) -> Coverage {
        let mut coverage = Coverage::default();
        for index in indexes.all() {
            for segment in index.reader.searcher().segment_readers() {
                let docs = u64::from(segment.num_docs());
                coverage.docs += docs;
                if self.table(&index.key, segment.segment_id()).is_some() {
                    coverage.embedded += docs;
                }
            }
        }
        coverage
    }

    /// Whether every segment of `indexes` has its table (those without live documents too).
    pub(super) fn covers(&self, indexes: &SearchIndexes) -> bool {
        indexes.all().iter().all(|index| {
            index
                .reader
                .searcher()
                .segment_readers()
                .iter()
                .all(|segment| self.has(&(index.key.clone(), segment.segment_id())))
        })
    }

    /// The file of this generation's table of segment `id` in `folder` (an index's
    /// `semantic` folder).
    pub(super) fn file_of(&self, folder: &Path, id: SegmentId) -> PathBuf {
        folder.join(format!(
            "{}.{}.{TABLE_EXTENSION}",
            id.uuid_string(),
            self.model.version()
        ))
    }
}

/// The model recorded in `root` (`<data>/search`) as the one its tables were made with,
/// when one is; a recorded file that cannot be read is warned about and ignored.
pub(super) fn recorded_model(root: &Path) -> Option<SemanticModel> {
    let path = root.join(MODEL_FILE);
    if !path.is_file() {
        return None;
    }
    match SemanticModel::open(&path) {
        Ok(model) => Some(model),
        Err(err) => {
            tracing::warn!(error = %err, "the recorded semantic model cannot be read: ignored");
            None
        }
    }
}

/// Records `model` in `root` as the one its serving tables are made with (a temporary
/// file, then a rename). A model whose bytes would not give back its version is not
/// recorded: one warning, and a later model change re-embeds without the earlier vectors
/// serving meanwhile.
pub(super) fn record_model(root: &Path, model: &SemanticModel) -> Result<(), SearchError> {
    let bytes = model.to_bytes();
    if SemanticModel::from_bytes(&bytes).map(|m| m.version().to_owned())
        != Ok(model.version().to_owned())
    {
        tracing::warn!(
            model = model.version(),
            "the semantic model cannot be recorded in the data folder (its file is not in \
             this build's layout): a later model change will not keep its vectors serving"
        );
        return Ok(());
    }
    super::vectors::save(&root.join(MODEL_FILE), &bytes)
}

/// Removes, from the `semantic` folder of every index under `root`, the table files of
/// models other than `keep` (and renames the tables of `keep`'s models written before
/// tables were named by model: `<segment>.fdxvec`).
pub(super) fn remove_other_models(root: &Path, keep: &[&SemanticModel]) -> Result<(), SearchError> {
    let Ok(indexes) = std::fs::read_dir(root) else {
        return Ok(());
    };
    for index in indexes.flatten() {
        let folder = index.path().join(FOLDER);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let parts: Vec<&str> = name.split('.').collect();
            match parts.as_slice() {
                [_, model, TABLE_EXTENSION] if !keep.iter().any(|k| k.version() == *model) => {
                    std::fs::remove_file(entry.path())?;
                }
                [segment, TABLE_EXTENSION] => {
                    let made_with = super::vectors::table_model(&entry.path());
                    match keep
                        .iter()
                        .find(|k| Some(k.version()) == made_with.as_deref())
                    {
                        Some(model) => std::fs::rename(
                            entry.path(),
                            folder.join(format!("{segment}.{}.{TABLE_EXTENSION}", model.version())),
                        )?,
                        None => std::fs::remove_file(entry.path())?,
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}
