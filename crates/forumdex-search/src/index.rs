//! The per-language indexes under `<data>/search/` and their synchronisation with the corpus.
//!
//! Layout: `<data>/search/<key>/` is one tantivy index per language key (see
//! [`crate::analysis`]), `<data>/search/state.json` records the corpus sequence the indexes
//! reflect (`synced_seq`) and the schema/analysis [`VERSION`].
//!
//! **Sync invariant.** After a sync window `(since, upto]` every touched index is committed
//! first and `state.json` is replaced (write + rename) second, so the recorded sequence never
//! runs ahead of what the indexes hold. A crash in between replays the window, which is
//! harmless: every change deletes the post's previous document (by `post_id`, in every index
//! that holds it) before adding the new one, so each post has at most one document.
//!
//! **Duplicate rule.** Of the documents of an index that share a duplicate key, the one of
//! the smallest post ID is the original and the others are hidden, whichever came first
//! ([`duplicates`]): each window corrects the documents whose flag its changes turned.
//! Likewise a post without `is_op` in its record opens its topic while it has the topic's
//! smallest post ID: a window that brings a smaller one indexes the former opening post
//! again, as a reply. So the indexes depend on the corpus, not on how it was split into
//! windows.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use forumdex_corpus::html::img_tags;
use forumdex_corpus::text::{html_to_search_text, html_to_text};
use forumdex_corpus::{ChangePosition, CorpusRead, PostChange, PostDoc};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use tantivy::merge_policy::{LogMergePolicy, MergeCandidate, MergePolicy};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{
    DocSet, Index, IndexReader, IndexWriter, InvertedIndexReader, ReloadPolicy, Searcher,
    SegmentMeta, TERMINATED, TantivyDocument, Term,
};

use crate::SearchError;
use crate::analysis::{self, PLAIN_ANALYZER, TEXT_ANALYZER};
use crate::quality::Quality;
use crate::semantic::Semantic;

/// Version of the schema and analyzers; indexes written by another version are rebuilt.
pub const VERSION: u32 = 7;
/// Corpus sequences indexed per commit by [`SearchIndexes::sync`] (an import batch is one
/// sequence, 5,000 observations by default). Each commit flushes every touched index and
/// waits for its merges; a server syncs every 2 s, a few sequences at a time, and a backlog
/// it meets becomes searchable window by window.
const WINDOW: i64 = 32;
/// Corpus sequences indexed per commit in bulk ([`SearchIndexes::sync_in_bulk`],
/// [`SearchIndexes::rebuild`]): each commit writes one segment per touched index, and
/// fewer, larger segments leave fewer to merge (BENCHMARKS.md, the tenth round).
const BULK_WINDOW: i64 = 64;
/// Posts read from the corpus per call.
const PAGE: usize = 2_000;
/// Memory budget of one index writer, in bytes, unless [`SearchIndexes::with_writer_bytes`]
/// sets another.
const WRITER_BYTES: usize = 200_000_000;
/// The smallest budget the index library accepts for a writer (`tantivy`'s
/// `MEMORY_BUDGET_NUM_BYTES_MIN`).
const MIN_WRITER_BYTES: usize = 15_000_000;
/// Segments with fewer documents are merged as soon as there are two of them (see
/// [`SegmentMerges`]).
const SMALL_SEGMENT_DOCS: u32 = 50_000;
/// Larger segments of similar sizes are merged when this many have gathered: `forumdex
/// import` then writes the 1.4M corpus's English posts as 6 segments of about 210,000 that
/// are never merged, where 4 at a time merged most of them again (BENCHMARKS.md, the tenth
/// round).
const SEGMENTS_PER_MERGE: usize = 8;
const STATE_FILE: &str = "state.json";
/// Indexes of up to this many documents (deleted ones included) may have their post IDs
/// listed in a hash set for a sync window ([`PostIds`]): at most about 40 MB.
const LISTED_POST_IDS: u64 = 2_000_000;
/// Documents whose post IDs can be listed (about 50 ns each, from the `post_id` column) for
/// the cost of one walk of a segment's `post_id` term dictionary (40 to 200 ns; measured on
/// the index of the 1.4M import's English posts).
const DOCS_PER_LOOKUP: u64 = 2;

mod duplicates;
mod seed;

use duplicates::{Duplicates, KeyFields};

/// The fields of every language index.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Forum post ID (indexed: the delete key).
    pub post_id: Field,
    /// Topic ID (indexed: takedowns of a topic filter on it).
    pub topic_id: Field,
    /// Post subject (stored).
    pub title: Field,
    /// The subject as searched, for opening posts only: replies repeat the topic's title
    /// (`Re: ...`, or verbatim), which would make every reply of a topic match its words.
    pub title_text: Field,
    /// The subject without its `Re: ` prefix (stored).
    pub topic_title: Field,
    /// Plain text of the post with each image spelled out as its `alt` text and `src` URL
    /// ([`html_to_search_text`]; analyzed, stored for hits and highlights).
    pub content: Field,
    /// The `src` of each `<img>` of the post, as written (stored): what the API rewrites to
    /// the image CDN and what image search collects.
    pub images: Field,
    /// 1 when the post has an `<img>` (image search only looks at those).
    pub has_image: Field,
    /// Title and content, lowercased and folded but not stemmed: the spelling dictionary.
    pub spell: Field,
    /// Author username.
    pub author: Field,
    /// Author profile ID (absent for guests).
    pub author_uid: Field,
    /// Board ID (absent when unknown).
    pub board_id: Field,
    /// Board name.
    pub board_name: Field,
    /// `posted_at`, else `indexed_at`, in ms.
    pub date: Field,
    /// 1 when `date` is `indexed_at` because the post has no `posted_at`.
    pub undated: Field,
    /// The post's language code, or `und`.
    pub lang: Field,
    /// 1 for an opening post.
    pub is_op: Field,
    /// Merit total.
    pub merit: Field,
    /// Quality scores.
    pub spam_score: Field,
    /// See [`crate::quality::ai_score`].
    pub ai_score: Field,
    /// See [`crate::quality::health_score`].
    pub health_score: Field,
    /// 1 for a low-quality reply (filtered by default).
    pub hidden: Field,
    /// Near-duplicate key (author + normalised text, hashed: [`crate::quality::duplicate_key`]).
    pub dup_key: Field,
}

/// The schema every language index has.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |tokenizer: &str, record: IndexRecordOption| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(record),
        )
    };
    let full = IndexRecordOption::WithFreqsAndPositions;
    let fields = Fields {
        post_id: b.add_i64_field("post_id", INDEXED | STORED | FAST),
        topic_id: b.add_i64_field("topic_id", INDEXED | STORED | FAST),
        title: b.add_text_field("title", STORED),
        title_text: b.add_text_field("title_text", text(TEXT_ANALYZER, full)),
        topic_title: b.add_text_field("topic_title", STORED),
        content: b.add_text_field("content", text(TEXT_ANALYZER, full).set_stored()),
        spell: b.add_text_field("spell", text(PLAIN_ANALYZER, IndexRecordOption::Basic)),
        author: b.add_text_field("author", STRING | STORED),
        author_uid: b.add_i64_field("author_uid", INDEXED | STORED),
        board_id: b.add_i64_field("board_id", INDEXED | STORED),
        board_name: b.add_text_field("board_name", STORED),
        date: b.add_i64_field("date", STORED | FAST),
        undated: b.add_u64_field("undated", STORED),
        lang: b.add_text_field("lang", STRING | STORED),
        is_op: b.add_u64_field("is_op", INDEXED | STORED | FAST),
        merit: b.add_i64_field("merit", STORED | FAST),
        spam_score: b.add_f64_field("spam_score", STORED),
        ai_score: b.add_f64_field("ai_score", STORED),
        health_score: b.add_f64_field("health_score", STORED | FAST),
        hidden: b.add_u64_field("hidden", INDEXED | STORED),
        dup_key: b.add_u64_field("dup_key", INDEXED | FAST),
        images: b.add_text_field("images", STORED),
        has_image: b.add_u64_field("has_image", INDEXED),
    };
    (b.build(), fields)
}

/// One language's index and its long-lived reader.
pub struct LangIndex {
    /// The language key (`en`, `und`, ...).
    pub key: String,
    /// The tantivy index.
    pub index: Index,
    /// Its reader (reloaded after each commit; searches take a fresh searcher from it).
    pub reader: IndexReader,
}

/// What `state.json` holds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
struct State {
    version: u32,
    synced_seq: i64,
}

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// The corpus sequence the indexes reflected before.
    pub from_seq: i64,
    /// The corpus sequence they reflect now.
    pub synced_seq: i64,
    /// Posts (re)indexed.
    pub posts_indexed: u64,
    /// Of those, low-quality replies (filtered by default).
    pub posts_hidden: u64,
    /// Posts dropped because their canonical version became a deletion.
    pub posts_deleted: u64,
    /// Documents per language index after the sync.
    pub indexes: BTreeMap<String, u64>,
}

/// Every language index of a data folder. Searches run concurrently with a sync; syncs are
/// serialised (and tantivy's writer lock keeps other processes out while one runs).
pub struct SearchIndexes {
    root: PathBuf,
    fields: Fields,
    schema: Schema,
    indexes: RwLock<BTreeMap<String, Arc<LangIndex>>>,
    seen_state: Mutex<Option<State>>,
    sync_lock: Mutex<()>,
    semantic: OnceLock<Arc<Semantic>>,
    /// What each index writer buffers before it writes a segment.
    writer_bytes: usize,
}

impl SearchIndexes {
    /// Opens (creating when missing) `<data_dir>/search`. Indexes of another [`VERSION`] are
    /// deleted, so the next sync rebuilds them.
    pub fn open(data_dir: &Path) -> Result<Self, SearchError> {
        let root = data_dir.join("search");
        std::fs::create_dir_all(&root).map_err(|e| io_error(&root, e))?;
        if let Some(state) = read_state(&root)?
            && state.version != VERSION
        {
            tracing::info!(
                found = state.version,
                wanted = VERSION,
                "search indexes are outdated: rebuilding"
            );
            wipe(&root)?;
        }
        let (schema, fields) = schema();
        let this = Self {
            root,
            fields,
            schema,
            indexes: RwLock::new(BTreeMap::new()),
            seen_state: Mutex::new(None),
            sync_lock: Mutex::new(()),
            semantic: OnceLock::new(),
            writer_bytes: WRITER_BYTES,
        };
        this.refresh()?;
        Ok(this)
    }

    /// The indexes whose writers each buffer `bytes` (at least 15 MB) before writing a
    /// segment, instead of 200 MB: a node sizes it from its `memory_limit`. A smaller
    /// budget writes smaller segments, which merges then join.
    pub fn with_writer_bytes(self, bytes: usize) -> Self {
        Self {
            writer_bytes: bytes.max(MIN_WRITER_BYTES),
            ..self
        }
    }

    /// Copies another node's indexes (`<source>/search`, which may be serving) into
    /// `<data_dir>/search`, which must hold none yet, so a new node starts from them
    /// instead of rebuilding; returns the corpus sequence the copy reflects, from which the
    /// next sync continues.
    pub fn seed_from(source: &Path, data_dir: &Path) -> Result<i64, SearchError> {
        seed::seed_from(source, data_dir)
    }

    /// Gives searches a semantic leg (once; a second call is ignored).
    pub fn attach_semantic(&self, semantic: Arc<Semantic>) {
        let _ = self.semantic.set(semantic);
    }

    /// The semantic leg, when one is attached.
    pub fn semantic(&self) -> Option<&Arc<Semantic>> {
        self.semantic.get()
    }

    /// The fields of every index.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The index of language key `key`, when one exists.
    pub fn get(&self, key: &str) -> Option<Arc<LangIndex>> {
        self.indexes.read().expect("not poisoned").get(key).cloned()
    }

    /// Every index, by key.
    pub fn all(&self) -> Vec<Arc<LangIndex>> {
        self.indexes
            .read()
            .expect("not poisoned")
            .values()
            .cloned()
            .collect()
    }

    /// The corpus sequence the indexes reflect (0 before the first sync).
    pub fn synced_seq(&self) -> Result<i64, SearchError> {
        Ok(read_state(&self.root)?.map_or(0, |s| s.synced_seq))
    }

    /// Documents per index.
    pub fn doc_counts(&self) -> BTreeMap<String, u64> {
        self.all()
            .iter()
            .map(|i| (i.key.clone(), i.reader.searcher().num_docs()))
            .collect()
    }

    /// Opens indexes another process created and reloads readers when another process
    /// committed (its `state.json` changed).
    fn refresh(&self) -> Result<(), SearchError> {
        let entries = std::fs::read_dir(&self.root).map_err(|e| io_error(&self.root, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(key) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
                continue;
            };
            if path.is_dir() && path.join("meta.json").is_file() && self.get(&key).is_none() {
                self.open_index(&key)?;
            }
        }
        let state = read_state(&self.root)?;
        let mut seen = self.seen_state.lock().expect("not poisoned");
        if *seen != state {
            for index in self.all() {
                index.reader.reload()?;
            }
            *seen = state;
        }
        Ok(())
    }

    /// Opens or creates the index of `key`.
    fn open_index(&self, key: &str) -> Result<Arc<LangIndex>, SearchError> {
        let mut map = self.indexes.write().expect("not poisoned");
        if let Some(found) = map.get(key) {
            return Ok(Arc::clone(found));
        }
        let dir = self.root.join(key);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let directory = tantivy::directory::MmapDirectory::open(&dir)
            .map_err(|e| SearchError::Index(e.to_string()))?;
        let index = Index::open_or_create(directory, self.schema.clone())?;
        analysis::register(&index, key);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let lang_index = Arc::new(LangIndex {
            key: key.to_owned(),
            index,
            reader,
        });
        map.insert(key.to_owned(), Arc::clone(&lang_index));
        Ok(lang_index)
    }

    /// Brings the indexes up to the corpus's newest snapshot, in windows of up to 32 sequences,
    /// each committed before `state.json` records it.
    pub fn sync(&self, corpus: &dyn CorpusRead) -> Result<SyncReport, SearchError> {
        self.sync_in_windows(corpus, WINDOW)
    }

    /// [`Self::sync`] in windows of up to 64 sequences: for an import's own indexer and a
    /// rebuild, where nothing waits to search each window.
    pub fn sync_in_bulk(&self, corpus: &dyn CorpusRead) -> Result<SyncReport, SearchError> {
        self.sync_in_windows(corpus, BULK_WINDOW)
    }

    fn sync_in_windows(
        &self,
        corpus: &dyn CorpusRead,
        window: i64,
    ) -> Result<SyncReport, SearchError> {
        let _serial = self.sync_lock.lock().expect("not poisoned");
        self.refresh()?;
        let latest = corpus.latest_seq()?;
        let mut since = self.synced_seq()?;
        let mut report = SyncReport {
            from_seq: since,
            synced_seq: since,
            ..SyncReport::default()
        };
        if latest < since {
            // The corpus is older than the indexes (restored or replaced): start over.
            self.clear()?;
            since = 0;
            report.from_seq = 0;
        }
        while since < latest {
            let upto = (since + window).min(latest);
            self.sync_window(corpus, since, upto, &mut report)?;
            since = upto;
            report.synced_seq = upto;
        }
        report.indexes = self.doc_counts();
        Ok(report)
    }

    /// Deletes every document and forgets the synced sequence, then syncs from the start:
    /// what a change of analyzers or quality rules needs.
    pub fn rebuild(&self, corpus: &dyn CorpusRead) -> Result<SyncReport, SearchError> {
        {
            let _serial = self.sync_lock.lock().expect("not poisoned");
            self.refresh()?;
            self.clear()?;
        }
        self.sync_in_bulk(corpus)
    }

    fn clear(&self) -> Result<(), SearchError> {
        for index in self.all() {
            let mut writer: IndexWriter =
                index.index.writer_with_num_threads(1, self.writer_bytes)?;
            writer.delete_all_documents()?;
            writer.commit()?;
            index.reader.reload()?;
        }
        self.write_state(0)
    }

    fn write_state(&self, synced_seq: i64) -> Result<(), SearchError> {
        let state = State {
            version: VERSION,
            synced_seq,
        };
        let path = self.root.join(STATE_FILE);
        let tmp = self.root.join(format!("{STATE_FILE}.tmp"));
        let text = serde_json::to_string(&state).expect("a plain struct serializes");
        std::fs::write(&tmp, text).map_err(|e| io_error(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
        *self.seen_state.lock().expect("not poisoned") = Some(state);
        Ok(())
    }

    fn sync_window(
        &self,
        corpus: &dyn CorpusRead,
        since: i64,
        upto: i64,
        report: &mut SyncReport,
    ) -> Result<(), SearchError> {
        let mut writers: HashMap<String, (Arc<LangIndex>, IndexWriter)> = HashMap::new();
        let mut duplicates = Duplicates::default();
        // What the indexes held when the window started (their committed state does not
        // change until the window commits). A replay after a crash between the indexes'
        // commits and the state's rename finds the documents it already added here.
        let mut committed = self
            .all()
            .into_iter()
            .map(|index| {
                let ids = PostIds::of(index.reader.searcher(), self.fields.post_id)?;
                Ok((index, ids))
            })
            .collect::<Result<Vec<_>, SearchError>>()?;
        // The smallest post ID the window brings to each topic.
        let mut first_added: HashMap<i64, i64> = HashMap::new();
        let mut after = ChangePosition::default();
        loop {
            let page = corpus.posts_changed(since, upto, after, PAGE)?;
            let Some((last, _)) = page.last() else { break };
            after = *last;
            let short = page.len() < PAGE;
            for (_, change) in &page {
                self.remove(
                    &mut committed,
                    &mut writers,
                    &mut duplicates,
                    change.post_id(),
                )?;
                let PostChange::Current(post) = change else {
                    // Served as absent: removed is all.
                    report.posts_deleted += 1;
                    continue;
                };
                let first = first_added.entry(post.topic_id).or_insert(post.post_id);
                *first = (*first).min(post.post_id);
                self.add(post, &mut writers, &mut duplicates, report)?;
            }
            if short {
                break;
            }
        }
        // An opening post known only as its topic's smallest post ID is one no longer when
        // the window brings a smaller one: it is indexed again as a reply.
        let former = self.former_openers(&committed, &first_added, &duplicates)?;
        if !former.is_empty() {
            let posts = corpus.live_posts(&former, upto)?;
            for post_id in former {
                self.remove(&mut committed, &mut writers, &mut duplicates, post_id)?;
                if let Some(post) = posts.get(&post_id) {
                    self.add(post, &mut writers, &mut duplicates, report)?;
                }
            }
        }
        self.correct_duplicates(corpus, upto, duplicates, &mut writers, report)?;
        // Every index is committed before any merge is waited for, so the merges that the
        // commits start (one thread each) run side by side.
        let mut merging = Vec::with_capacity(writers.len());
        for (_, (index, mut writer)) in writers {
            writer.commit()?;
            index.reader.reload()?;
            merging.push(writer);
        }
        for writer in merging {
            writer.wait_merging_threads()?;
        }
        self.write_state(upto)
    }

    /// Removes a post's previous document wherever it is (`committed`: each index with what
    /// it held when the window started): its language, so its index, may have changed. Most
    /// changes of a bulk import are new posts, held nowhere.
    fn remove(
        &self,
        committed: &mut [(Arc<LangIndex>, PostIds)],
        writers: &mut HashMap<String, (Arc<LangIndex>, IndexWriter)>,
        duplicates: &mut Duplicates,
        post_id: i64,
    ) -> Result<(), SearchError> {
        let term = Term::from_field_i64(self.fields.post_id, post_id);
        for (index, ids) in committed.iter_mut() {
            if ids.holds(post_id, &term)? {
                let searcher = index.reader.searcher();
                duplicates.removing(&index.key, &searcher, self.key_fields(), post_id)?;
                writer_for(writers, index, self.writer_bytes)?.delete_term(term.clone());
            }
        }
        Ok(())
    }

    /// Adds the document of `post` to its language's index.
    fn add(
        &self,
        post: &PostDoc,
        writers: &mut HashMap<String, (Arc<LangIndex>, IndexWriter)>,
        duplicates: &mut Duplicates,
        report: &mut SyncReport,
    ) -> Result<(), SearchError> {
        let key = analysis::index_key_for(post.language.as_deref());
        let target = self.open_index(&key)?;
        let assessed = Assessed::of(post);
        let duplicate = match assessed.dup_key {
            Some(k) => duplicates.adding(
                &target.key,
                &target.reader.searcher(),
                self.key_fields(),
                post.post_id,
                k,
            )?,
            None => false,
        };
        let (doc, hidden) = self.document(post, &assessed, duplicate);
        writer_for(writers, &target, self.writer_bytes)?.add_document(doc)?;
        report.posts_indexed += 1;
        report.posts_hidden += u64::from(hidden);
        Ok(())
    }

    /// The committed opening posts, not changed by the window, of a topic to which the window
    /// brings a smaller post ID (`first_added`): read from each index's `is_op` postings,
    /// one document per topic, not every post of the topics.
    fn former_openers(
        &self,
        committed: &[(Arc<LangIndex>, PostIds)],
        first_added: &HashMap<i64, i64>,
        duplicates: &Duplicates,
    ) -> Result<Vec<i64>, SearchError> {
        let mut former = Vec::new();
        if first_added.is_empty() {
            return Ok(former);
        }
        let opening = Term::from_field_u64(self.fields.is_op, 1);
        for (index, _) in committed {
            for segment in index.reader.searcher().segment_readers() {
                let postings = segment
                    .inverted_index(self.fields.is_op)?
                    .read_postings(&opening, IndexRecordOption::Basic)?;
                let Some(mut postings) = postings else {
                    continue;
                };
                let fast = segment.fast_fields();
                let (topics, post_ids) = (fast.i64("topic_id")?, fast.i64("post_id")?);
                while postings.doc() != TERMINATED {
                    let doc = postings.doc();
                    postings.advance();
                    let (Some(topic), Some(post_id)) = (topics.first(doc), post_ids.first(doc))
                    else {
                        continue;
                    };
                    if !segment.is_deleted(doc)
                        && !duplicates.removed(post_id)
                        && first_added
                            .get(&topic)
                            .is_some_and(|&first| first < post_id)
                    {
                        former.push(post_id);
                    }
                }
            }
        }
        Ok(former)
    }

    /// Indexes again the documents whose duplicate flag the window changed
    /// ([`duplicates`]): an original that came after its copies, or went before them.
    fn correct_duplicates(
        &self,
        corpus: &dyn CorpusRead,
        upto: i64,
        mut duplicates: Duplicates,
        writers: &mut HashMap<String, (Arc<LangIndex>, IndexWriter)>,
        report: &mut SyncReport,
    ) -> Result<(), SearchError> {
        let corrections = duplicates.corrections();
        if corrections.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = corrections.iter().map(|c| c.post_id).collect();
        // Takedowns included: the indexes hold the posts under one (searches leave them out).
        let posts = corpus.live_posts(&ids, upto)?;
        for correction in corrections {
            let Some(post) = posts.get(&correction.post_id) else {
                // Not expected: a document of this window's result is live at `upto`.
                tracing::warn!(post_id = correction.post_id, "a corrected post is not live");
                continue;
            };
            let index = self.open_index(&correction.index)?;
            let assessed = Assessed::of(post);
            let (doc, hidden) = self.document(post, &assessed, correction.duplicate);
            let writer = writer_for(writers, &index, self.writer_bytes)?;
            writer.delete_term(Term::from_field_i64(self.fields.post_id, post.post_id));
            writer.add_document(doc)?;
            // A document of an earlier sync was counted then (or, in a rebuild, in an earlier
            // window of this one).
            let was_hidden = is_hidden(post, &assessed.quality, !correction.duplicate);
            report.posts_hidden =
                (report.posts_hidden + u64::from(hidden)).saturating_sub(u64::from(was_hidden));
        }
        Ok(())
    }

    fn key_fields(&self) -> KeyFields {
        KeyFields {
            dup_key: self.fields.dup_key,
            post_id: self.fields.post_id,
        }
    }

    /// The document of `post` (`assessed` its text and scores) and whether it is hidden: a
    /// low-quality reply, or a reply that is a `duplicate` of another post ([`duplicates`]).
    fn document(
        &self,
        post: &PostDoc,
        assessed: &Assessed,
        duplicate: bool,
    ) -> (TantivyDocument, bool) {
        let f = &self.fields;
        let Assessed {
            text,
            quality,
            dup_key,
        } = assessed;
        let merit = post.merit.counts.total;
        let hidden = is_hidden(post, quality, duplicate);
        let mut doc = TantivyDocument::new();
        doc.add_i64(f.post_id, post.post_id);
        doc.add_i64(f.topic_id, post.topic_id);
        doc.add_text(f.title, &post.title);
        if post.is_op {
            doc.add_text(f.title_text, &post.title);
        }
        doc.add_text(f.topic_title, topic_title(&post.title));
        let images = img_tags(&post.content_html);
        // Without images the search text is the plain text.
        let search_text = if images.is_empty() {
            text.clone()
        } else {
            html_to_search_text(&post.content_html)
        };
        doc.add_text(f.content, search_text);
        for image in &images {
            doc.add_text(f.images, image.src);
        }
        doc.add_u64(f.has_image, u64::from(!images.is_empty()));
        doc.add_text(f.spell, &post.title);
        doc.add_text(f.spell, text);
        doc.add_text(f.author, &post.author_name);
        if let Some(uid) = post.author_id {
            doc.add_i64(f.author_uid, uid);
        }
        if let Some(board_id) = post.board.board_id {
            doc.add_i64(f.board_id, board_id);
        }
        doc.add_text(f.board_name, &post.board.name);
        doc.add_i64(f.date, post.posted_at.unwrap_or(post.indexed_at).0);
        doc.add_u64(f.undated, u64::from(post.posted_at.is_none()));
        doc.add_text(
            f.lang,
            post.language.as_deref().unwrap_or(analysis::UNDETERMINED),
        );
        doc.add_u64(f.is_op, u64::from(post.is_op));
        doc.add_i64(f.merit, merit);
        doc.add_f64(f.spam_score, round3(quality.spam));
        doc.add_f64(f.ai_score, round3(quality.ai));
        doc.add_f64(f.health_score, round3(quality.health));
        doc.add_u64(f.hidden, u64::from(hidden));
        if let Some(k) = *dup_key {
            doc.add_u64(f.dup_key, k);
        }
        (doc, hidden)
    }
}

/// Whether a post is left out of results by default: a reply of low quality or a duplicate.
fn is_hidden(post: &PostDoc, quality: &Quality, duplicate: bool) -> bool {
    !post.is_op && (quality.is_low() || duplicate)
}

/// What the sync reads off a post before it decides its duplicate flag.
struct Assessed {
    /// The plain text.
    text: String,
    /// Its scores.
    quality: Quality,
    /// Its duplicate key, when it has enough words for one.
    dup_key: Option<u64>,
}

impl Assessed {
    fn of(post: &PostDoc) -> Self {
        let text = html_to_text(&post.content_html);
        let (quality, dup_key) = Quality::with_duplicate_key(
            &post.author_name,
            &text,
            &post.content_html,
            post.merit.counts.total,
        );
        Self {
            text,
            quality,
            dup_key,
        }
    }
}

/// A reply's subject without `Re: ` prefixes: the topic's title as the post shows it.
pub fn topic_title(title: &str) -> &str {
    let mut rest = title.trim();
    while let Some(stripped) = rest
        .strip_prefix("Re:")
        .or_else(|| rest.strip_prefix("RE:"))
        .or_else(|| rest.strip_prefix("re:"))
    {
        rest = stripped.trim_start();
    }
    rest
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Where the sync looks for a post's previous document in one committed index, for one
/// window: every change is looked for in every index (its language may have changed), so
/// this is asked about 30 times per post.
///
/// It first walks the segments' `post_id` term dictionaries. Once those walks have cost
/// about as much as listing the index's post IDs would ([`DOCS_PER_LOOKUP`] documents per
/// walk), it lists them in a hash set, read from the `post_id` column, and answers from
/// it: a bulk import asks every index once per post, a running server's small windows only
/// a few times each.
struct PostIds {
    searcher: Searcher,
    /// The segments' `post_id` term dictionaries.
    dictionaries: Vec<Arc<InvertedIndexReader>>,
    /// Documents of the index, deleted ones included.
    docs: u64,
    /// Dictionary walks made so far.
    lookups: u64,
    /// The IDs, once listed.
    listed: Option<FxHashSet<i64>>,
}

impl PostIds {
    /// The post IDs of the index `searcher` reads.
    fn of(searcher: Searcher, post_id: Field) -> Result<Self, SearchError> {
        let segments = searcher.segment_readers();
        let dictionaries = segments
            .iter()
            .map(|segment| segment.inverted_index(post_id))
            .collect::<Result<_, _>>()?;
        let docs = segments.iter().map(|s| u64::from(s.max_doc())).sum();
        Ok(Self {
            searcher,
            dictionaries,
            docs,
            lookups: 0,
            listed: None,
        })
    }

    /// Whether the index may hold a document of the post `id` (its term `term`), without
    /// running a query. Deleted documents count too, so it may say yes for a post already
    /// removed; the caller then deletes by the term again, which is harmless.
    fn holds(&mut self, id: i64, term: &Term) -> Result<bool, SearchError> {
        if self.listed.is_none()
            && self.lookups * DOCS_PER_LOOKUP >= self.docs
            && self.docs <= LISTED_POST_IDS
        {
            self.listed = Some(self.list()?);
        }
        if let Some(ids) = &self.listed {
            return Ok(ids.contains(&id));
        }
        for dictionary in &self.dictionaries {
            self.lookups += 1;
            if dictionary
                .get_term_info(term)?
                .is_some_and(|info| info.doc_freq > 0)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn list(&self) -> Result<FxHashSet<i64>, SearchError> {
        let mut ids = FxHashSet::default();
        ids.reserve(self.docs as usize);
        for segment in self.searcher.segment_readers() {
            let column = segment.fast_fields().i64("post_id")?;
            ids.extend((0..segment.max_doc()).filter_map(|doc| column.first(doc)));
        }
        Ok(ids)
    }
}

fn writer_for<'a>(
    writers: &'a mut HashMap<String, (Arc<LangIndex>, IndexWriter)>,
    index: &Arc<LangIndex>,
    bytes: usize,
) -> Result<&'a IndexWriter, SearchError> {
    let entry = match writers.entry(index.key.clone()) {
        Entry::Occupied(entry) => entry.into_mut(),
        Entry::Vacant(entry) => {
            let writer: IndexWriter = index.index.writer_with_num_threads(1, bytes)?;
            writer.set_merge_policy(Box::new(SegmentMerges::default()));
            entry.insert((Arc::clone(index), writer))
        }
    };
    Ok(&entry.1)
}

/// How segments are merged. A search pays for every segment of every index it reads (term
/// lookups, a walk of the spelling dictionary for a missing word), and each sync commits a
/// new segment to each index it touches: so small segments (most of the language indexes
/// are small) are merged into one as soon as there are two, and larger ones by tantivy's
/// log-size layers, [`SEGMENTS_PER_MERGE`] at a time.
#[derive(Debug)]
struct SegmentMerges {
    layers: LogMergePolicy,
}

impl Default for SegmentMerges {
    fn default() -> Self {
        let mut layers = LogMergePolicy::default();
        layers.set_min_num_segments(SEGMENTS_PER_MERGE);
        layers.set_min_layer_size(SMALL_SEGMENT_DOCS);
        Self { layers }
    }
}

impl MergePolicy for SegmentMerges {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        let (small, large): (Vec<&SegmentMeta>, Vec<&SegmentMeta>) = segments
            .iter()
            .partition(|segment| segment.num_docs() < SMALL_SEGMENT_DOCS);
        let large: Vec<SegmentMeta> = large.into_iter().cloned().collect();
        let mut merges = self.layers.compute_merge_candidates(&large);
        if small.len() >= 2 {
            merges.push(MergeCandidate(small.iter().map(|s| s.id()).collect()));
        }
        merges
    }
}

fn read_state(root: &Path) -> Result<Option<State>, SearchError> {
    let path = root.join(STATE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| SearchError::Index(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(&path, e)),
    }
}

fn wipe(root: &Path) -> Result<(), SearchError> {
    std::fs::remove_dir_all(root).map_err(|e| io_error(root, e))?;
    std::fs::create_dir_all(root).map_err(|e| io_error(root, e))
}

fn io_error(path: &Path, err: std::io::Error) -> SearchError {
    SearchError::Index(format!("{}: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walked_and_listed_post_ids_agree() {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        analysis::register(&index, "en");
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for id in [3, 5, 8] {
            let mut doc = TantivyDocument::new();
            doc.add_i64(fields.post_id, id);
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let mut doc = TantivyDocument::new();
        doc.add_i64(fields.post_id, 13);
        writer.add_document(doc).unwrap();
        writer.delete_term(Term::from_field_i64(fields.post_id, 5));
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 2);
        let term = |id: i64| Term::from_field_i64(fields.post_id, id);
        // A deleted document may still count (the caller deletes again, harmlessly); a
        // live one always does, a post never indexed never does.
        let asked = [3, 8, 13, 4, 21];
        let expected = [true, true, true, false, false];
        // A fresh window's first question walks the dictionaries.
        let walked = asked.map(|id| {
            let mut ids = PostIds::of(searcher.clone(), fields.post_id).unwrap();
            let held = ids.holds(id, &term(id)).unwrap();
            assert!(ids.listed.is_none() && ids.lookups > 0);
            held
        });
        assert_eq!(walked, expected);
        // After a walk of both segments (4 documents), the IDs are listed and answer.
        let mut ids = PostIds::of(searcher, fields.post_id).unwrap();
        ids.holds(21, &term(21)).unwrap();
        let listed = asked.map(|id| ids.holds(id, &term(id)).unwrap());
        assert!(ids.listed.is_some());
        assert_eq!(listed, expected);
    }
}
