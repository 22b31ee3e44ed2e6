//! The semantic leg's retrieval: the posts whose vectors are nearest the query's (cosine
//! of the quantised unit vectors), among those the search may return: the same admission
//! as lexical matches (alive, the quality filter, image search, takedowns). Each embedded
//! segment is searched in two passes: the sign bits of every vector against the query's
//! (Hamming distance, 32 bytes a post), then the exact cosine of the [`RESCORED`] closest.
//! On the 1.4M corpus that is p99 45 ms instead of 87 ms for a whole exact scan, for MRR@10
//! 0.157 instead of 0.169 on the other-words tuning half (BENCHMARKS.md, "Semantic
//! search"). The posts of the threads the query names ([`NamedTopics`]) are all compared
//! exactly with the query without its naming words, and the nearest of them come first.
//! A segment not embedded yet contributes nothing.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use tantivy::{DocAddress, DocId, SegmentReader};

use super::Target;
use super::matcher::{Admission, Filter};
use super::named::NamedTopics;
use crate::SearchError;
use crate::index::Fields;
use crate::semantic::model::dot;
use crate::semantic::vectors::{SegmentVectors, sign_bits};
use crate::semantic::{Embedding, Semantic};

/// Threads one search's scan may use at most.
pub const SCAN_THREADS: usize = 2;
/// Documents worth a thread of their own.
const DOCS_PER_THREAD: usize = 400_000;
/// Documents of each segment whose signs agree most with the query's that are compared
/// exactly (more when several are as far as the last).
const RESCORED: usize = 20_000;
/// The distance of a document without a vector.
const NO_VECTOR: u16 = u16::MAX;

/// One embedded segment to scan.
struct Scan {
    at: usize,
    ord: u32,
    table: Arc<SegmentVectors>,
}

impl Scan {
    /// Offers the segment's admitted documents nearest `query` to `heaps.all` (the `depth`
    /// nearest are kept), in two passes: the [`RESCORED`] documents whose components'
    /// signs agree most with the query's (Hamming distance of the sign bits), then the
    /// exact cosine of those; and every one of `named` (ascending), exactly, to
    /// `heaps.named`, compared with the query without its naming words.
    fn run(
        &self,
        segment: &SegmentReader,
        fields: &Fields,
        filter: Filter<'_>,
        query: &QueryVector,
        named: &[DocId],
        heaps: &mut Heaps,
    ) -> Result<(), SearchError> {
        let Some(mut admission) = Admission::of(segment, fields, filter)? else {
            return Ok(());
        };
        let docs = segment.max_doc().min(self.table.len() as u32);
        if !named.is_empty()
            && let Some(mut admission) = Admission::of(segment, fields, filter)?
        {
            for &doc in named.iter().take_while(|&&doc| doc < docs) {
                self.offer(doc, query.named, &mut admission, &mut heaps.named);
            }
        }
        let mut distances: Vec<u16> = Vec::with_capacity(docs as usize);
        let mut histogram = vec![0u32; self.table.sign_words() * 64 + 1];
        for doc in 0..docs {
            let distance = if self.table.get(doc).1 == 0.0 {
                NO_VECTOR
            } else {
                let distance: u32 = self
                    .table
                    .signs(doc)
                    .iter()
                    .zip(&query.signs)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                histogram[distance as usize] += 1;
                distance as u16
            };
            distances.push(distance);
        }
        let mut taken = 0;
        let cutoff = histogram
            .iter()
            .position(|&count| {
                taken += count;
                taken as usize >= RESCORED
            })
            .unwrap_or(histogram.len()) as u16;
        for (doc, &distance) in distances.iter().enumerate() {
            if distance > cutoff || distance == NO_VECTOR {
                continue;
            }
            self.offer(doc as u32, query.embedding, &mut admission, &mut heaps.all);
        }
        Ok(())
    }

    /// Offers `doc` to `nearest` by its cosine with `query`, if `admission` admits it.
    fn offer(
        &self,
        doc: DocId,
        query: &Embedding,
        admission: &mut Admission<'_>,
        nearest: &mut Nearest,
    ) {
        let similarity = self.similarity(doc, query);
        nearest.offer(similarity, || {
            admission.admits(doc).then(|| Kept {
                similarity,
                at: self.at,
                address: DocAddress::new(self.ord, doc),
            })
        });
    }

    /// The cosine of `doc`'s vector and `query` (0 without a vector).
    fn similarity(&self, doc: DocId, query: &Embedding) -> f32 {
        let (codes, scale) = self.table.get(doc);
        dot(codes, &query.codes) as f32 * scale * query.scale
    }
}

/// The nearest documents kept so far: `depth` at most, the worst on top.
struct Nearest {
    depth: usize,
    heap: BinaryHeap<Kept>,
}

impl Nearest {
    fn new(depth: usize) -> Self {
        Self {
            depth,
            heap: BinaryHeap::with_capacity(depth + 1),
        }
    }

    /// Keeps what `admitted` gives (`None`: the document may not be returned) when
    /// `similarity` is positive and among the `depth` best; `admitted` is only called then.
    fn offer(&mut self, similarity: f32, admitted: impl FnOnce() -> Option<Kept>) {
        if similarity <= 0.0 {
            return;
        }
        let floor = self.heap.peek().map_or(f32::NEG_INFINITY, |k| k.similarity);
        if self.heap.len() >= self.depth && similarity <= floor {
            return;
        }
        if let Some(kept) = admitted() {
            self.heap.push(kept);
            if self.heap.len() > self.depth {
                self.heap.pop();
            }
        }
    }

    /// Keeps the best of both (ties to the earlier document, whatever the order of merging).
    fn merge(&mut self, other: Nearest) {
        for kept in other.heap {
            self.heap.push(kept);
            if self.heap.len() > self.depth {
                self.heap.pop();
            }
        }
    }
}

/// The nearest of every post and of the posts of the named threads.
struct Heaps {
    all: Nearest,
    named: Nearest,
}

impl Heaps {
    fn new(depth: usize) -> Self {
        Self {
            all: Nearest::new(depth),
            named: Nearest::new(depth),
        }
    }
}

/// The vectors of a query.
pub(super) struct SemanticQuery {
    /// Of the whole query.
    pub whole: Embedding,
    /// Of the query without the words that name threads ([`NamedTopics::without_names`]),
    /// when there are such words and others.
    pub without_names: Option<Embedding>,
}

/// The query's vector and its sign bits, and the vector the named threads' posts are
/// compared with.
struct QueryVector<'a> {
    embedding: &'a Embedding,
    signs: Vec<u64>,
    named: &'a Embedding,
}

/// A post near the query.
#[derive(Debug, Clone, Copy)]
pub struct Near {
    /// The target it came from.
    pub at: usize,
    /// The document.
    pub address: DocAddress,
    /// Forum post ID.
    pub post_id: i64,
    /// Cosine similarity to the query (for a post of a named thread, to the query without
    /// its naming words).
    pub similarity: f32,
}

/// Heap entry: the worst kept on top.
#[derive(Debug, Clone, Copy)]
struct Kept {
    similarity: f32,
    at: usize,
    address: DocAddress,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Kept {}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept {
    /// Worse is greater: lower similarity, then later document.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .similarity
            .total_cmp(&self.similarity)
            .then((self.at, self.address).cmp(&(other.at, other.address)))
    }
}

/// The `depth` posts of the `named` threads nearest `query` (without its naming words),
/// nearest first, then the `depth` posts of `targets` nearest it that are not among those,
/// nearest first (ties by post ID); a post at a right angle to the query or further is
/// unrelated and never returned. Segments are scanned on up to [`SCAN_THREADS`] threads
/// when there are enough documents to share.
pub(super) fn nearest(
    targets: &[Target],
    fields: &Fields,
    semantic: &Semantic,
    query: &SemanticQuery,
    filter: Filter<'_>,
    named: &NamedTopics,
    depth: usize,
) -> Result<Vec<Near>, SearchError> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let mut segments: Vec<Scan> = Vec::new();
    for (at, target) in targets.iter().enumerate() {
        for (ord, segment) in target.searcher.segment_readers().iter().enumerate() {
            if let Some(table) = semantic.table(&target.index.key, segment.segment_id()) {
                segments.push(Scan {
                    at,
                    ord: ord as u32,
                    table,
                });
            }
        }
    }
    let docs: usize = segments.iter().map(|s| s.table.len()).sum();
    let query = QueryVector {
        embedding: &query.whole,
        signs: query.whole.codes.chunks(64).map(sign_bits).collect(),
        named: query.without_names.as_ref().unwrap_or(&query.whole),
    };
    let query = &query;
    let threads = (docs / DOCS_PER_THREAD)
        .clamp(1, SCAN_THREADS)
        .min(segments.len().max(1));
    let next = AtomicUsize::new(0);
    let scan_some = || -> Result<Heaps, SearchError> {
        let mut heaps = Heaps::new(depth);
        while let Some(scan) = segments.get(next.fetch_add(1, AtomicOrdering::Relaxed)) {
            let segment = targets[scan.at].searcher.segment_reader(scan.ord);
            let named = named.docs(scan.at, scan.ord);
            scan.run(segment, fields, filter, query, named, &mut heaps)?;
        }
        Ok(heaps)
    };
    let heaps: Vec<Heaps> = if threads == 1 {
        vec![scan_some()?]
    } else {
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(scan_some)).collect();
            let mut heaps = vec![scan_some()?];
            for helper in helpers {
                heaps.push(helper.join().expect("a scan does not panic")?);
            }
            Ok::<_, SearchError>(heaps)
        })?
    };
    let mut kept = Heaps::new(depth);
    for heaps in heaps {
        kept.all.merge(heaps.all);
        kept.named.merge(heaps.named);
    }
    let mut found = near_posts(targets, kept.named)?;
    let mut others = near_posts(targets, kept.all)?;
    others.retain(|near| !named.holds(near.at, near.address));
    found.extend(others);
    Ok(found)
}

/// The posts of `nearest`, nearest first (ties by post ID).
fn near_posts(targets: &[Target], nearest: Nearest) -> Result<Vec<Near>, SearchError> {
    let mut found = Vec::with_capacity(nearest.heap.len());
    for kept in nearest.heap.into_vec() {
        let segment = targets[kept.at]
            .searcher
            .segment_reader(kept.address.segment_ord);
        let post_id = segment
            .fast_fields()
            .i64("post_id")?
            .first(kept.address.doc_id)
            .unwrap_or(0);
        found.push(Near {
            at: kept.at,
            address: kept.address,
            post_id,
            similarity: kept.similarity,
        });
    }
    found.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(a.post_id.cmp(&b.post_id))
    });
    Ok(found)
}
