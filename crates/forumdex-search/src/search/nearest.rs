//! The semantic leg's retrieval: the posts whose vectors are nearest the query's (cosine
//! of the quantised unit vectors), among those the search may return: the same admission
//! as lexical matches (alive, the quality filter, image search, takedowns). The embedded
//! segments are searched in two passes: the sign bits of every admitted vector against the
//! query's (Hamming distance, 32 bytes a post), then the exact cosine of the closest
//! [`RESCORED_SHARE`] of them, counted over all segments together, so the posts compared
//! exactly are the same however the corpus is cut into segments (every node, every
//! import). The posts of the threads the query names ([`NamedTopics`]) are all compared
//! exactly with the query without its naming words, and the nearest of them come first.
//! A segment not embedded yet contributes nothing. BENCHMARKS.md, "Semantic search in
//! the service" and "One budget for the exact comparisons", has the measurements.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use tantivy::{DocAddress, DocId, SegmentReader};

use super::Target;
use super::matcher::{Admission, Filter};
use super::named::NamedTopics;
use super::parallel::{self, each_in_parallel};
use crate::SearchError;
use crate::index::Fields;
use crate::semantic::model::dot;
use crate::semantic::vectors::{SegmentVectors, sign_bits};
use crate::semantic::{Embedding, Generation};

/// Documents worth a thread of their own.
const DOCS_PER_THREAD: u64 = 400_000;
/// The share of the admitted vectors, those whose signs agree most with the query's, that
/// are compared exactly (more when several are as far as the last).
const RESCORED_SHARE: f64 = 0.10;
/// Vectors compared exactly at least (all of them in a smaller corpus).
const RESCORED_AT_LEAST: usize = 20_000;
/// The distance of a document without a vector, or that may not be returned.
const NO_VECTOR: u16 = u16::MAX;

/// One embedded segment to scan.
struct Scan {
    at: usize,
    ord: u32,
    table: Arc<SegmentVectors>,
}

/// The first pass over a segment: the Hamming distance of each document's sign bits to the
/// query's ([`NO_VECTOR`] for one without a vector or not admitted), and how many admitted
/// documents are at each distance.
struct Signs {
    distances: Vec<u16>,
    histogram: Vec<u32>,
}

impl Scan {
    /// The Hamming distances of the sign bits of the segment's admitted documents to the
    /// query's; `None` when the segment can return nothing.
    fn signs(
        &self,
        segment: &SegmentReader,
        fields: &Fields,
        filter: Filter<'_>,
        query: &QueryVector,
    ) -> Result<Option<Signs>, SearchError> {
        let Some(mut admission) = Admission::of(segment, fields, filter)? else {
            return Ok(None);
        };
        let docs = self.docs(segment);
        let mut distances: Vec<u16> = Vec::with_capacity(docs as usize);
        let mut histogram = vec![0u32; self.table.sign_words() * 64 + 1];
        for doc in 0..docs {
            let distance = if self.table.get(doc).1 == 0.0 || !admission.admits(doc) {
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
        Ok(Some(Signs {
            distances,
            histogram,
        }))
    }

    /// The second pass: offers the documents within `exact.cutoff` of the query's sign
    /// bits to `heaps.all` by their exact cosine (the `depth` nearest are kept); and every
    /// one of `exact.named`, to `heaps.named`, compared with the query without its naming
    /// words.
    fn rescore(
        &self,
        segment: &SegmentReader,
        fields: &Fields,
        filter: Filter<'_>,
        query: &QueryVector,
        exact: Exact<'_>,
        heaps: &mut Heaps,
    ) -> Result<(), SearchError> {
        let docs = self.docs(segment);
        if !exact.named.is_empty()
            && let Some(mut admission) = Admission::of(segment, fields, filter)?
        {
            for &doc in exact.named.iter().take_while(|&&doc| doc < docs) {
                let similarity = self.similarity(doc, query.named);
                heaps.named.offer(similarity, || {
                    admission.admits(doc).then(|| self.kept(doc, similarity))
                });
            }
        }
        for (doc, &distance) in exact.signs.distances.iter().enumerate() {
            if distance > exact.cutoff || distance == NO_VECTOR {
                continue;
            }
            let doc = doc as DocId;
            let similarity = self.similarity(doc, query.embedding);
            heaps
                .all
                .offer(similarity, || Some(self.kept(doc, similarity)));
        }
        Ok(())
    }

    /// Documents of the segment that the table covers.
    fn docs(&self, segment: &SegmentReader) -> u32 {
        segment.max_doc().min(self.table.len() as u32)
    }

    fn kept(&self, doc: DocId, similarity: f32) -> Kept {
        Kept {
            similarity,
            at: self.at,
            address: DocAddress::new(self.ord, doc),
        }
    }

    /// The cosine of `doc`'s vector and `query` (0 without a vector).
    fn similarity(&self, doc: DocId, query: &Embedding) -> f32 {
        let (codes, scale) = self.table.get(doc);
        dot(codes, &query.codes) as f32 * scale * query.scale
    }
}

/// What the second pass over a segment compares exactly.
#[derive(Clone, Copy)]
struct Exact<'a> {
    /// The first pass's distances: the documents at most `cutoff` from the query's sign
    /// bits are compared.
    signs: &'a Signs,
    cutoff: u16,
    /// The segment's documents of the named threads (ascending), all compared.
    named: &'a [DocId],
}

/// How many of `admitted` vectors the second pass compares exactly.
fn rescored(admitted: usize) -> usize {
    ((admitted as f64 * RESCORED_SHARE).ceil() as usize).max(RESCORED_AT_LEAST)
}

/// The smallest distance of `histogram` (documents by distance) within which `budget`
/// documents lie, or the last when there are fewer.
fn cutoff(histogram: &[u32], budget: usize) -> u16 {
    let mut taken = 0usize;
    histogram
        .iter()
        .position(|&count| {
            taken += count as usize;
            taken >= budget
        })
        .unwrap_or(histogram.len().saturating_sub(1)) as u16
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
/// unrelated and never returned. Segments are scanned on as many of the node's cores as
/// there are [`DOCS_PER_THREAD`] documents ([`parallel`]).
pub(super) fn nearest(
    targets: &[Target],
    fields: &Fields,
    semantic: &Generation,
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
    let threads = parallel::threads_for(docs as u64, DOCS_PER_THREAD, segments.len());
    let segment = |scan: &Scan| targets[scan.at].searcher.segment_reader(scan.ord);
    let signs = each_in_parallel(threads, &segments, |_, scan| {
        scan.signs(segment(scan), fields, filter, query)
    })?;
    let mut histogram = Vec::new();
    for signs in signs.iter().flatten() {
        histogram.resize(histogram.len().max(signs.histogram.len()), 0u32);
        for (total, count) in histogram.iter_mut().zip(&signs.histogram) {
            *total += count;
        }
    }
    let admitted = histogram.iter().map(|&count| count as usize).sum();
    let cutoff = cutoff(&histogram, rescored(admitted));
    let heaps = each_in_parallel(threads, &segments, |at, scan| {
        let mut heaps = Heaps::new(depth);
        if let Some(signs) = &signs[at] {
            let exact = Exact {
                signs,
                cutoff,
                named: named.docs(scan.at, scan.ord),
            };
            scan.rescore(segment(scan), fields, filter, query, exact, &mut heaps)?;
        }
        Ok(heaps)
    })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cutoff_is_the_first_distance_that_reaches_the_budget() {
        let histogram = [0, 2, 3, 0, 5, 1];
        assert_eq!(cutoff(&histogram, 1), 1);
        assert_eq!(cutoff(&histogram, 2), 1);
        assert_eq!(
            cutoff(&histogram, 3),
            2,
            "ties at the last distance all count"
        );
        assert_eq!(cutoff(&histogram, 6), 4);
        assert_eq!(cutoff(&histogram, 11), 5);
        assert_eq!(
            cutoff(&histogram, 100),
            5,
            "fewer than the budget: all of them"
        );
        assert_eq!(cutoff(&[], 10), 0);
    }

    #[test]
    fn the_budget_is_a_share_of_the_admitted_vectors_with_a_floor() {
        assert_eq!(rescored(0), RESCORED_AT_LEAST);
        assert_eq!(rescored(RESCORED_AT_LEAST), RESCORED_AT_LEAST);
        let large = 10 * RESCORED_AT_LEAST;
        assert_eq!(
            rescored(large),
            (large as f64 * RESCORED_SHARE).ceil() as usize
        );
        assert!(rescored(100 * large) > rescored(10 * large));
    }
}
