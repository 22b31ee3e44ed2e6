//! Post vectors, one table per index segment: tantivy segments never change once written,
//! so a segment is embedded once (from its stored title and text) and its table is valid
//! for as long as the segment lives; deletions and takedowns are applied at search time as
//! for lexical hits (the segment's alive bitset, [`crate::search`]'s filters).
//!
//! A table is kept in memory and in `<data>/search/<key>/semantic/<segment>.<model>.fdxvec`,
//! so a restart, or a node seeded with a copy of another's indexes, loads it instead of
//! embedding again. When the model changes, the earlier model's tables keep serving until
//! the new model's cover every segment ([`super::generation`]). Tables of segments a merge
//! removed are dropped from memory and disk by the next [`Semantic::embed_missing`].
//!
//! Each post's vector is also kept with the corpus ([`VectorStore`], by model version, post
//! and digest of the text embedded: [`Semantic::with_store`]). A segment's table is made
//! from the vectors the store has (another node's, or those of the segments a merge
//! joined), and only the posts it lacks are embedded, then written to it: each post is
//! embedded once per deployment and model. A store that fails is warned about and the
//! segment embedded here (the model is deterministic: the vectors are the same).
//!
//! File layout (little-endian): magic `FDXVEC1\0`, u32 dim, u32 documents, u32 length of
//! the model version, the model version, then `documents x dim` i8 codes and `documents`
//! f32 scales (0 for a post without a vector: no word of it is known to the model).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use forumdex_corpus::vectors::TEXT_DIGEST_BYTES;
use forumdex_corpus::{VectorKey, VectorStore};
use sha2::{Digest, Sha256};
use tantivy::index::SegmentId;
use tantivy::schema::Value;
use tantivy::{SegmentReader, TantivyDocument};

use super::generation::{self, Generation};
use super::model::SemanticModel;
use crate::SearchError;
use crate::index::{Fields, LangIndex, SearchIndexes};

const MAGIC: &[u8; 8] = b"FDXVEC1\0";
/// The folder of an index that holds its segments' tables.
pub const FOLDER: &str = "semantic";
/// Segments up to this many documents are embedded by the sync itself
/// ([`Semantic::embed_small_segments`]): about a second of CPU at most.
pub const SMALL_SEGMENT_DOCS: u32 = 20_000;
/// Posts whose vectors are asked of the store, and written to it, at once.
const STORE_BATCH: usize = 2_000;

/// The vectors of one segment's documents, by document ID.
#[derive(Debug)]
pub struct SegmentVectors {
    dim: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// The sign of every component, 64 to a word: the first, coarse pass of a search
    /// compares these (a sixth of the codes' bytes).
    signs: Vec<u64>,
}

impl SegmentVectors {
    /// Documents in the table (the segment's `max_doc`).
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Words of [`SegmentVectors::signs`] per document.
    pub fn sign_words(&self) -> usize {
        self.dim.div_ceil(64)
    }

    /// The sign bits of document `doc` (bit `i % 64` of word `i / 64` is set when
    /// component `i` is positive).
    pub fn signs(&self, doc: u32) -> &[u64] {
        let words = self.sign_words();
        let at = doc as usize * words;
        &self.signs[at..at + words]
    }

    /// The codes and scale of document `doc`; a scale of 0 means it has no vector.
    pub fn get(&self, doc: u32) -> (&[i8], f32) {
        let at = doc as usize;
        (
            &self.codes[at * self.dim..(at + 1) * self.dim],
            self.scales[at],
        )
    }

    fn encode(&self, model_version: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + self.codes.len() + self.scales.len() * 4);
        out.extend(MAGIC);
        out.extend((self.dim as u32).to_le_bytes());
        out.extend((self.scales.len() as u32).to_le_bytes());
        out.extend((model_version.len() as u32).to_le_bytes());
        out.extend(model_version.as_bytes());
        out.extend(self.codes.iter().map(|&c| c as u8));
        for scale in &self.scales {
            out.extend(scale.to_le_bytes());
        }
        out
    }

    /// The table in `bytes` when it was made by `model_version` for `docs` documents.
    fn decode(bytes: &[u8], model_version: &str, dim: usize, docs: usize) -> Option<Self> {
        let word = |at: usize| -> Option<usize> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
        };
        if bytes.get(..8)? != MAGIC || word(8)? != dim || word(12)? != docs {
            return None;
        }
        let version_len = word(16)?;
        let codes_at = 20 + version_len;
        if bytes.get(20..codes_at)? != model_version.as_bytes() {
            return None;
        }
        let scales_at = codes_at + docs * dim;
        if bytes.len() != scales_at + docs * 4 {
            return None;
        }
        Some(Self::new(
            dim,
            bytes[codes_at..scales_at]
                .iter()
                .map(|&b| b as i8)
                .collect(),
            bytes[scales_at..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ))
    }

    fn new(dim: usize, codes: Vec<i8>, scales: Vec<f32>) -> Self {
        let signs = codes
            .chunks(dim)
            .flat_map(|vector| vector.chunks(64).map(sign_bits))
            .collect();
        Self {
            dim,
            codes,
            scales,
            signs,
        }
    }
}

/// What one [`Semantic::embed_missing`] pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct EmbedReport {
    /// Segments embedded now.
    pub segments_embedded: u64,
    /// Documents given their vectors now (those of the segments embedded).
    pub docs_embedded: u64,
    /// Of those, the documents whose vectors were read from the store (embedded before by
    /// this node or another), not embedded again.
    pub docs_from_store: u64,
    /// Segments whose table was read from disk.
    pub segments_loaded: u64,
    /// Tables of removed segments dropped.
    pub segments_dropped: u64,
}

/// How much of the searchable corpus has vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Searchable documents (every index).
    pub docs: u64,
    /// Of those, the documents of embedded segments.
    pub embedded: u64,
}

impl Coverage {
    /// `embedded / docs`, 1 for an empty corpus.
    pub fn share(&self) -> f64 {
        if self.docs == 0 {
            1.0
        } else {
            self.embedded as f64 / self.docs as f64
        }
    }
}

/// The semantic model and the vectors of every segment of a node's indexes: the
/// generation that serves and, during a model change, the one being made
/// ([`super::generation`]).
pub struct Semantic {
    root: PathBuf,
    generations: RwLock<Generations>,
    /// Whether `<root>/semantic-model.fdxsem` holds the serving model.
    recorded: AtomicBool,
    store: Option<Arc<dyn VectorStore>>,
}

/// The serving generation and the one a model change is making.
struct Generations {
    serving: Arc<Generation>,
    next: Option<Arc<Generation>>,
}

/// The model a [`Semantic`] is changing to, and how far its vectors are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChange {
    /// The new model's version.
    pub model: String,
    /// How much of the searchable corpus has its vectors.
    pub coverage: Coverage,
}

impl std::fmt::Debug for Semantic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let generations = self.generations.read().expect("not poisoned");
        f.debug_struct("Semantic")
            .field("serving", &generations.serving)
            .field("next", &generations.next)
            .finish_non_exhaustive()
    }
}

impl Semantic {
    /// The vectors of the indexes under `<data_dir>/search`, made with `model`. When the
    /// folder's tables were made with another model, recorded there, that model serves
    /// until `model`'s tables cover every segment ([`Semantic::embed_missing`] makes them).
    pub fn new(model: impl Into<Arc<SemanticModel>>, data_dir: &Path) -> Self {
        let model = model.into();
        let root = data_dir.join("search");
        let recorded = generation::recorded_model(&root);
        let is_recorded = recorded.is_some();
        let generations = match recorded {
            Some(earlier) if earlier.version() != model.version() => {
                tracing::info!(
                    serving = earlier.version(),
                    next = model.version(),
                    "the semantic model changed: the earlier model's vectors serve until the \
                     new model's are made"
                );
                Generations {
                    serving: Arc::new(Generation::new(Arc::new(earlier))),
                    next: Some(Arc::new(Generation::new(model))),
                }
            }
            _ => Generations {
                serving: Arc::new(Generation::new(model)),
                next: None,
            },
        };
        // Table files of other models (a crash, or another process, left them), before any
        // pass looks for tables.
        let keep: Vec<&SemanticModel> = std::iter::once(generations.serving.model())
            .chain(generations.next.as_deref().map(Generation::model))
            .collect();
        if let Err(err) = generation::remove_other_models(&root, &keep) {
            tracing::warn!(error = %err, "the table files of other models could not be removed");
        }
        Self {
            root,
            generations: RwLock::new(generations),
            recorded: AtomicBool::new(is_recorded),
            store: None,
        }
    }

    /// The same, keeping every post's vector in `store` and reading from it those made
    /// before, by this node or another.
    pub fn with_store(self, store: Arc<dyn VectorStore>) -> Self {
        Self {
            store: Some(store),
            ..self
        }
    }

    /// The generation searches use now: one query takes its model and tables together.
    pub fn serving(&self) -> Arc<Generation> {
        Arc::clone(&self.generations.read().expect("not poisoned").serving)
    }

    fn next(&self) -> Option<Arc<Generation>> {
        self.generations.read().expect("not poisoned").next.clone()
    }

    /// How much of what `indexes` can return has vectors that serve now.
    pub fn coverage(&self, indexes: &SearchIndexes) -> Coverage {
        self.serving().coverage(indexes)
    }

    /// The model being changed to while an earlier one serves, and its coverage.
    pub fn change(&self, indexes: &SearchIndexes) -> Option<ModelChange> {
        self.next().map(|next| ModelChange {
            model: next.model().version().to_owned(),
            coverage: next.coverage(indexes),
        })
    }

    /// Gives every segment of `indexes` its table: read from disk when a valid one is
    /// there, else embedded (largest share of the corpus first is not needed: segments are
    /// taken as they come, and each is usable as soon as it is done). During a model change
    /// the serving model's tables come first (a merged segment must keep serving), then the
    /// new model's; once those cover every segment, the new model serves and the earlier
    /// model's files are removed. `progress` is told the documents of each segment
    /// embedded. Tables of segments that are gone are dropped.
    pub fn embed_missing(
        &self,
        indexes: &SearchIndexes,
        progress: &mut dyn FnMut(u64),
    ) -> Result<EmbedReport, SearchError> {
        self.pass(indexes, u32::MAX, progress)
    }

    /// [`Semantic::embed_missing`] for the segments of at most [`SMALL_SEGMENT_DOCS`]
    /// documents only (what a sync just wrote, or a merge of such): the sync embeds them
    /// before it says where it stands, so new posts are found semantically as soon as they
    /// are searchable. Larger segments are left to [`Semantic::embed_missing`].
    pub fn embed_small_segments(
        &self,
        indexes: &SearchIndexes,
    ) -> Result<EmbedReport, SearchError> {
        self.pass(indexes, SMALL_SEGMENT_DOCS, &mut |_| {})
    }

    fn pass(
        &self,
        indexes: &SearchIndexes,
        max_docs: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<EmbedReport, SearchError> {
        let mut report = EmbedReport::default();
        let generations: Vec<Arc<Generation>> =
            std::iter::once(self.serving()).chain(self.next()).collect();
        for generation in &generations {
            self.fill(generation, indexes, max_docs, &mut report, progress)?;
        }
        for index in indexes.all() {
            let live: HashSet<(String, SegmentId)> = index
                .reader
                .searcher()
                .segment_readers()
                .iter()
                .map(|segment| (index.key.clone(), segment.segment_id()))
                .collect();
            report.segments_dropped += generations[0].retain(&index.key, &live);
            for generation in &generations[1..] {
                generation.retain(&index.key, &live);
            }
            self.remove_gone_files(&index, &live);
        }
        if let Some(next) = generations.get(1)
            && next.covers(indexes)
        {
            self.switch_to(next)?;
        }
        if !self.recorded.swap(true, Ordering::AcqRel) {
            self.record(self.serving().model());
        }
        Ok(report)
    }

    /// Gives the segments of `indexes` their tables of `generation` (see [`Semantic::pass`]).
    fn fill(
        &self,
        generation: &Generation,
        indexes: &SearchIndexes,
        max_docs: u32,
        report: &mut EmbedReport,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), SearchError> {
        for index in indexes.all() {
            let folder = self.root.join(&index.key).join(FOLDER);
            let searcher = index.reader.searcher();
            for segment in searcher.segment_readers() {
                let key = (index.key.clone(), segment.segment_id());
                if generation.has(&key) {
                    continue;
                }
                let path = generation.file_of(&folder, segment.segment_id());
                if segment.max_doc() > max_docs && !path.is_file() {
                    continue;
                }
                let table = match load(&path, generation.model(), segment) {
                    Some(table) => {
                        report.segments_loaded += 1;
                        table
                    }
                    None => {
                        let (table, from_store) =
                            self.embed_segment(generation.model(), indexes.fields(), segment)?;
                        save(&path, &table.encode(generation.model().version()))?;
                        report.segments_embedded += 1;
                        report.docs_embedded += u64::from(segment.max_doc());
                        report.docs_from_store += from_store;
                        progress(u64::from(segment.max_doc()));
                        table
                    }
                };
                generation.insert(key, table);
            }
        }
        Ok(())
    }

    /// Makes `next` the serving generation (when it still is the one being made): its model
    /// is recorded first, then it serves, then the earlier model's table files are removed.
    fn switch_to(&self, next: &Arc<Generation>) -> Result<(), SearchError> {
        let mut generations = self.generations.write().expect("not poisoned");
        if !generations
            .next
            .as_ref()
            .is_some_and(|n| Arc::ptr_eq(n, next))
        {
            return Ok(());
        }
        self.record(next.model());
        tracing::info!(
            from = generations.serving.model().version(),
            to = next.model().version(),
            "the new semantic model's vectors cover every segment: it serves now"
        );
        generations.serving = Arc::clone(next);
        generations.next = None;
        drop(generations);
        self.recorded.store(true, Ordering::Release);
        generation::remove_other_models(&self.root, &[next.model()])
    }

    /// Records `model` as the one the serving tables are made with. A folder that cannot
    /// take the file (full, or read-only) is warned about, and serving goes on: only a later
    /// model change is the worse for it (the earlier vectors do not serve meanwhile).
    fn record(&self, model: &SemanticModel) {
        if let Err(err) = generation::record_model(&self.root, model) {
            tracing::warn!(
                error = %err,
                model = model.version(),
                "the semantic model cannot be recorded in the data folder: a later model change \
                 will not keep its vectors serving"
            );
        }
    }

    /// Deletes from the vector store the vectors of every model but the serving one (and,
    /// during a model change, the new one): those of a retired model, which no node reads
    /// once every node serves the new one. Returns how many, or `None` without a store.
    pub fn prune_store(&self) -> Result<Option<u64>, SearchError> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let (serving, next) = (self.serving(), self.next());
        let keep: Vec<&str> = std::iter::once(serving.model().version())
            .chain(next.as_deref().map(|next| next.model().version()))
            .collect();
        Ok(Some(store.prune_vectors(&keep)?))
    }

    /// Documents of `indexes` that have no table yet, of the serving model and of the one a
    /// model change is making.
    pub fn missing_docs(&self, indexes: &SearchIndexes) -> u64 {
        std::iter::once(self.serving())
            .chain(self.next())
            .map(|generation| {
                let coverage = generation.coverage(indexes);
                coverage.docs - coverage.embedded
            })
            .sum()
    }

    /// Gives every document of `segment` its vector of `model` (deleted ones too: document
    /// IDs stay aligned), from the store where it has it, else embedded (and written to the
    /// store); also returns how many came from the store.
    fn embed_segment(
        &self,
        model: &SemanticModel,
        fields: &Fields,
        segment: &SegmentReader,
    ) -> Result<(SegmentVectors, u64), SearchError> {
        let dim = model.dim();
        let docs = segment.max_doc() as usize;
        let mut table = TableBuilder {
            dim,
            codes: vec![0; docs * dim],
            scales: vec![0.0; docs],
        };
        let mut store = self.store.as_deref();
        let mut from_store = 0;
        let mut batch = Vec::with_capacity(STORE_BATCH);
        let reader = segment.get_store_reader(64)?;
        for (doc, stored) in reader.iter::<TantivyDocument>(None).enumerate().take(docs) {
            let stored = stored?;
            let text = |field| {
                stored
                    .get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
            };
            let document = format!("{}\n{}", text(fields.topic_title), text(fields.content));
            let post_id = stored
                .get_first(fields.post_id)
                .and_then(|v| v.as_i64())
                .unwrap_or_default();
            batch.push(Pending {
                doc,
                key: vector_key(post_id, &document),
                document,
            });
            if batch.len() == STORE_BATCH {
                from_store += embed_batch(model, &mut batch, &mut store, &mut table);
            }
        }
        from_store += embed_batch(model, &mut batch, &mut store, &mut table);
        Ok((
            SegmentVectors::new(dim, table.codes, table.scales),
            from_store,
        ))
    }

    /// Removes the table files (of any model), and those being written
    /// (`<segment>.<model>.<writer>.tmp`), of `index`'s segments that are not `live`.
    fn remove_gone_files(&self, index: &LangIndex, live: &HashSet<(String, SegmentId)>) {
        let folder = self.root.join(&index.key).join(FOLDER);
        let segments: HashSet<String> = live.iter().map(|(_, id)| id.uuid_string()).collect();
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let segment = name.split('.').next().unwrap_or_default();
                if !segments.contains(segment) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }
}

/// The table of `segment` in the file at `path`, when it was made with `model`.
fn load(path: &Path, model: &SemanticModel, segment: &SegmentReader) -> Option<SegmentVectors> {
    let bytes = std::fs::read(path).ok()?;
    SegmentVectors::decode(
        &bytes,
        model.version(),
        model.dim(),
        segment.max_doc() as usize,
    )
}

/// The model version a table file says it was made with (its header only).
pub(super) fn table_model(path: &Path) -> Option<String> {
    let mut header = [0; 20 + 64];
    let mut file = std::fs::File::open(path).ok()?;
    let read = std::io::Read::read(&mut file, &mut header).ok()?;
    let header = &header[..read];
    if header.get(..8)? != MAGIC {
        return None;
    }
    let length = u32::from_le_bytes(header.get(16..20)?.try_into().ok()?) as usize;
    let version = header.get(20..20 + length)?;
    String::from_utf8(version.to_vec()).ok()
}

/// Gives the documents of `batch` their vectors of `model` (emptying it): those `store`
/// has are read, the others embedded and written to it. A store that fails is warned about
/// and set aside (`None`) for the rest of the segment. Returns how many the store had.
fn embed_batch(
    model: &SemanticModel,
    batch: &mut Vec<Pending>,
    store: &mut Option<&dyn VectorStore>,
    table: &mut TableBuilder,
) -> u64 {
    let version = model.version();
    let keys: Vec<VectorKey> = batch.iter().map(|pending| pending.key).collect();
    let mut known = HashMap::new();
    if let Some(shared) = *store {
        match shared.vectors(version, &keys) {
            Ok(vectors) => known = vectors,
            Err(err) => *store = set_aside(shared, &err),
        }
    }
    let mut from_store = 0;
    let mut new = Vec::new();
    for pending in batch.drain(..) {
        if let Some((codes, scale)) = known
            .get(&pending.key)
            .and_then(|bytes| decode_vector(bytes, table.dim))
        {
            table.set_stored(pending.doc, codes, scale);
            from_store += 1;
            continue;
        }
        let (codes, scale) = match model.embed_quantised(&pending.document) {
            Some(embedding) => (embedding.codes, embedding.scale),
            None => (vec![0; table.dim], 0.0),
        };
        table.set(pending.doc, &codes, scale);
        if store.is_some() {
            new.push((pending.key, encode_vector(&codes, scale)));
        }
    }
    if let Some(shared) = *store
        && !new.is_empty()
        && let Err(err) = shared.put_vectors(version, &new)
    {
        *store = set_aside(shared, &err);
    }
    from_store
}

/// A document of a segment waiting for its vector.
struct Pending {
    doc: usize,
    key: VectorKey,
    document: String,
}

/// A segment's table as it is filled in.
struct TableBuilder {
    dim: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl TableBuilder {
    fn set(&mut self, doc: usize, codes: &[i8], scale: f32) {
        self.codes[doc * self.dim..(doc + 1) * self.dim].copy_from_slice(codes);
        self.scales[doc] = scale;
    }

    /// [`Self::set`] from codes as stored (bytes).
    fn set_stored(&mut self, doc: usize, codes: &[u8], scale: f32) {
        let row = &mut self.codes[doc * self.dim..(doc + 1) * self.dim];
        for (code, &byte) in row.iter_mut().zip(codes) {
            *code = byte as i8;
        }
        self.scales[doc] = scale;
    }
}

/// The store key of `post_id` embedded from `document`.
fn vector_key(post_id: i64, document: &str) -> VectorKey {
    let digest = Sha256::digest(document.as_bytes());
    let mut text_digest = [0; TEXT_DIGEST_BYTES];
    text_digest.copy_from_slice(&digest[..TEXT_DIGEST_BYTES]);
    VectorKey {
        post_id,
        text_digest,
    }
}

/// A vector as the store keeps it: its `dim` codes, then its scale (f32, little-endian; 0
/// for a post no word of which the model knows).
fn encode_vector(codes: &[i8], scale: f32) -> Vec<u8> {
    let mut bytes: Vec<u8> = codes.iter().map(|&c| c as u8).collect();
    bytes.extend(scale.to_le_bytes());
    bytes
}

/// The codes and scale of a stored vector of `dim` components (`None` when it has another
/// length: another model's, or damaged).
fn decode_vector(bytes: &[u8], dim: usize) -> Option<(&[u8], f32)> {
    if bytes.len() != dim + 4 {
        return None;
    }
    let (codes, scale) = bytes.split_at(dim);
    Some((codes, f32::from_le_bytes(scale.try_into().ok()?)))
}

/// Warns that `store` failed (the segment is embedded here) and sets it aside.
fn set_aside<'a>(
    store: &dyn VectorStore,
    err: &forumdex_corpus::StoreError,
) -> Option<&'a dyn VectorStore> {
    tracing::warn!(
        error = %err,
        store = %store.location(),
        "the vector store failed: this segment's posts are embedded here and not shared"
    );
    None
}

/// The sign bits of up to 64 components.
pub fn sign_bits(components: &[i8]) -> u64 {
    components
        .iter()
        .enumerate()
        .fold(0, |bits, (at, &c)| bits | (u64::from(c > 0) << at))
}

/// Writes `bytes` to `path` whole (a temporary file, then a rename). The temporary file is
/// the writer's own: the sync and the background job (or `forumdex embed` beside a server)
/// may embed one segment at once, and each renames its own copy.
pub(super) fn save(path: &Path, bytes: &[u8]) -> Result<(), SearchError> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let folder = path.parent().expect("a file in a folder");
    std::fs::create_dir_all(folder)?;
    let writer = format!(
        "{}-{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    );
    let tmp = path.with_extension(writer);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}
