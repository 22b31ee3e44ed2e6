//! The semantic leg of search: a static word-vector model distilled from
//! multilingual-e5-small (`semantic-model/README.md` says how it was made, measured and
//! licensed), post vectors per index segment, and the nearest posts to a query.
//!
//! - [`tokenizer`]: the words a text is embedded from (tokenizer v1).
//! - [`model`]: the model file and the embedding of a text.
//! - [`generation`]: a model and the tables made with it; the model a data folder's
//!   tables were made with is recorded there, so a model change keeps them serving until
//!   the new model's are made.
//! - [`vectors`]: the vectors of every segment, kept beside the index and, post by post,
//!   with the corpus (`forumdex_corpus::VectorStore`: each post embedded once per
//!   deployment); [`Semantic::embed_missing`] is the embedding job.

pub mod generation;
pub mod model;
pub mod tokenizer;
pub mod vectors;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use forumdex_corpus::VectorStore;

pub use generation::Generation;
pub use model::{Embedding, SemanticModel};
pub use vectors::{Coverage, EmbedReport, ModelChange, Semantic};

/// The model this source tree ships (`semantic-model/fdxsem1.bin`), used when the
/// `semantic_model` setting names no other file.
pub fn bundled_model_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("semantic-model/fdxsem1.bin")
}

/// The semantic leg of the indexes under `data_dir`, with the model at `path`, keeping its
/// post vectors in `store` when one is given ([`Semantic::with_store`]); when the model
/// cannot be read, one warning says why and search stays lexical (`None`). A model file is
/// read once per process, however many data folders use it.
pub fn load(
    path: &Path,
    data_dir: &Path,
    store: Option<Arc<dyn VectorStore>>,
) -> Option<Arc<Semantic>> {
    static LOADED: Mutex<BTreeMap<PathBuf, Arc<SemanticModel>>> = Mutex::new(BTreeMap::new());
    let mut loaded = LOADED.lock().expect("not poisoned");
    let model = match loaded.get(path) {
        Some(model) => Arc::clone(model),
        None => match SemanticModel::open(path) {
            Ok(model) => {
                tracing::info!(
                    model = model.version(),
                    file = %path.display(),
                    "semantic search model loaded"
                );
                let model = Arc::new(model);
                loaded.insert(path.to_owned(), Arc::clone(&model));
                model
            }
            Err(err) => {
                tracing::warn!(
                    error = %err,
                    "no semantic model: search is lexical only (hybrid: false)"
                );
                return None;
            }
        },
    };
    let semantic = Semantic::new(model, data_dir);
    Some(Arc::new(match store {
        Some(store) => semantic.with_store(store),
        None => semantic,
    }))
}
