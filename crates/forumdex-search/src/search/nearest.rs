//! The semantic leg's retrieval: the posts whose vectors are nearest the query's (cosine
//! of the quantised unit vectors), among those the search may return: the same admission
//! as lexical matches (alive, the quality filter, image search, takedowns). Every
//! embedded segment is scanned whole; a segment not embedded yet contributes nothing.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use tantivy::DocAddress;

use super::Target;
use super::matcher::{Admission, Filter};
use crate::SearchError;
use crate::index::Fields;
use crate::semantic::model::dot;
use crate::semantic::{Embedding, Semantic};

/// A post near the query.
#[derive(Debug, Clone, Copy)]
pub struct Near {
    /// The target it came from.
    pub at: usize,
    /// The document.
    pub address: DocAddress,
    /// Forum post ID.
    pub post_id: i64,
    /// Cosine similarity to the query.
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

/// The `depth` posts of `targets` nearest `query`, nearest first (ties by post ID); a post
/// at a right angle to the query or further is unrelated and never returned.
pub fn nearest(
    targets: &[Target],
    fields: &Fields,
    semantic: &Semantic,
    query: &Embedding,
    filter: Filter<'_>,
    depth: usize,
) -> Result<Vec<Near>, SearchError> {
    let mut heap: BinaryHeap<Kept> = BinaryHeap::with_capacity(depth + 1);
    if depth == 0 {
        return Ok(Vec::new());
    }
    for (at, target) in targets.iter().enumerate() {
        for (ord, segment) in target.searcher.segment_readers().iter().enumerate() {
            let Some(table) = semantic.table(&target.index.key, segment.segment_id()) else {
                continue;
            };
            let Some(mut admission) = Admission::of(segment, fields, filter)? else {
                continue;
            };
            let docs = segment.max_doc().min(table.len() as u32);
            for doc in 0..docs {
                let (codes, scale) = table.get(doc);
                if scale == 0.0 {
                    continue;
                }
                let similarity = dot(codes, &query.codes) as f32 * scale * query.scale;
                if similarity <= 0.0 {
                    continue;
                }
                let floor = heap.peek().map_or(f32::NEG_INFINITY, |k| k.similarity);
                if (heap.len() < depth || similarity > floor) && admission.admits(doc) {
                    heap.push(Kept {
                        similarity,
                        at,
                        address: DocAddress::new(ord as u32, doc),
                    });
                    if heap.len() > depth {
                        heap.pop();
                    }
                }
            }
        }
    }
    let mut found = Vec::with_capacity(heap.len());
    for kept in heap.into_vec() {
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
