//! The duplicate rule, kept by the sync window by window.
//!
//! Among the live documents of one index that share a duplicate key
//! ([`crate::quality::duplicate_key`]: one author, the same words), the one of the smallest
//! post ID is the original and every other one is a duplicate (hidden, unless an opening
//! post). The rule depends on what the index holds, not on the order the posts came in: two
//! nodes that import the same corpus in other batches, a node that rebuilds, and a node that
//! follows the imports window by window hide the same posts. A copy that arrives before its
//! original, or outlives it, is corrected when the window that changes the set ends.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use rustc_hash::FxHashSet;
use tantivy::columnar::Column;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, InvertedIndexReader, Searcher, SegmentReader, TERMINATED, Term};

use crate::SearchError;

/// The fields the rule reads: the duplicate key and the post ID.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyFields {
    /// `dup_key` (indexed and a fast column).
    pub dup_key: Field,
    /// `post_id` (indexed and a fast column).
    pub post_id: Field,
}

/// What one sync window knows of the duplicate keys it touches.
#[derive(Default)]
pub(super) struct Duplicates {
    /// The committed segments of each index, by index key, opened at their first use.
    committed: HashMap<String, CommittedKeys>,
    /// The keys the window touched, by index key.
    touched: HashMap<String, HashMap<u64, Holders>>,
    /// Posts whose committed document the window removed (a post has one document).
    removed: FxHashSet<i64>,
}

/// The documents of one index holding one key.
#[derive(Default)]
struct Holders {
    /// Live committed documents when the window started (their posts' IDs), ascending.
    committed: Vec<i64>,
    /// How many of `committed`, from the first, the window removed (at least).
    removed_first: usize,
    /// Documents the window added, each with whether it was added as a duplicate.
    added: Vec<(i64, bool)>,
    /// The smallest post ID in `added`.
    smallest_added: Option<i64>,
}

impl Holders {
    fn new(mut committed: Vec<i64>) -> Self {
        committed.sort_unstable();
        Self {
            committed,
            ..Self::default()
        }
    }

    /// The original now: the smallest ID of the committed documents left and those added.
    /// A window's removals only grow, so the committed ones are skipped once each.
    fn original(&mut self, removed: &FxHashSet<i64>) -> Option<i64> {
        while self
            .committed
            .get(self.removed_first)
            .is_some_and(|id| removed.contains(id))
        {
            self.removed_first += 1;
        }
        let committed = self.committed.get(self.removed_first).copied();
        match (committed, self.smallest_added) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A document whose duplicate flag must change at the window's end: its post is indexed
/// again with the flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Correction {
    /// The index that holds it.
    pub index: String,
    /// Its post.
    pub post_id: i64,
    /// Whether it is a duplicate now.
    pub duplicate: bool,
}

impl Duplicates {
    /// Records that the window removes `post_id`'s committed document from the index
    /// `index` (read by `searcher`), before it does.
    pub(super) fn removing(
        &mut self,
        index: &str,
        searcher: &Searcher,
        fields: KeyFields,
        post_id: i64,
    ) -> Result<(), SearchError> {
        let committed = committed_of(&mut self.committed, index, searcher, fields)?;
        if let Some(key) = committed.key_of(post_id)? {
            let holders = holders_of(&mut self.touched, committed, index, key)?;
            debug_assert!(holders.committed.contains(&post_id));
        }
        self.removed.insert(post_id);
        Ok(())
    }

    /// Whether the window removed `post_id`'s committed document.
    pub(super) fn removed(&self, post_id: i64) -> bool {
        self.removed.contains(&post_id)
    }

    /// Whether the document of `post_id` that the window adds to `index` with `key` is a
    /// duplicate of what the index holds and of what the window added before it; records it.
    pub(super) fn adding(
        &mut self,
        index: &str,
        searcher: &Searcher,
        fields: KeyFields,
        post_id: i64,
        key: u64,
    ) -> Result<bool, SearchError> {
        let committed = committed_of(&mut self.committed, index, searcher, fields)?;
        let holders = holders_of(&mut self.touched, committed, index, key)?;
        let duplicate = holders
            .original(&self.removed)
            .is_some_and(|id| id < post_id);
        holders.added.push((post_id, duplicate));
        holders.smallest_added = Some(holders.smallest_added.map_or(post_id, |s| s.min(post_id)));
        Ok(duplicate)
    }

    /// The documents whose flag the rule now wants otherwise: an original added after its
    /// copies, or removed while they stay. The committed documents hold the rule already (the
    /// smallest ID of a key's committed holders is its original), so only the window's
    /// keys are looked at.
    pub(super) fn corrections(&mut self) -> Vec<Correction> {
        let mut out = Vec::new();
        for (index, keys) in &mut self.touched {
            for holders in keys.values_mut() {
                let original_before = holders.committed.first().copied();
                let original = holders.original(&self.removed);
                let live = holders
                    .committed
                    .iter()
                    .copied()
                    .filter(|id| !self.removed.contains(id));
                let mut correct = |post_id: i64, duplicate: bool| {
                    out.push(Correction {
                        index: index.clone(),
                        post_id,
                        duplicate,
                    })
                };
                for &(id, duplicate) in &holders.added {
                    if duplicate != (Some(id) != original) {
                        correct(id, !duplicate);
                    }
                }
                for id in live {
                    let was = Some(id) != original_before;
                    if was != (Some(id) != original) {
                        correct(id, !was);
                    }
                }
            }
        }
        out.sort_by_key(|c| c.post_id);
        out
    }
}

fn committed_of<'a>(
    committed: &'a mut HashMap<String, CommittedKeys>,
    index: &str,
    searcher: &Searcher,
    fields: KeyFields,
) -> Result<&'a mut CommittedKeys, SearchError> {
    if !committed.contains_key(index) {
        committed.insert(index.to_owned(), CommittedKeys::of(searcher, fields)?);
    }
    Ok(committed.get_mut(index).expect("inserted above"))
}

fn holders_of<'a>(
    touched: &'a mut HashMap<String, HashMap<u64, Holders>>,
    committed: &mut CommittedKeys,
    index: &str,
    key: u64,
) -> Result<&'a mut Holders, SearchError> {
    if !touched.contains_key(index) {
        touched.insert(index.to_owned(), HashMap::new());
    }
    let keys = touched.get_mut(index).expect("inserted above");
    Ok(match keys.entry(key) {
        Entry::Occupied(entry) => entry.into_mut(),
        Entry::Vacant(entry) => entry.insert(Holders::new(committed.holders(key)?)),
    })
}

/// The committed duplicate keys of one index for one sync window, read from each segment's
/// `dup_key` and `post_id` postings and columns without running a query (a scored query
/// would first sum the field's statistics over every segment). A segment's columns are
/// opened once per window, at their first use: opening one reads its block index, whose
/// size grows with the segment's, so opening it for every post made the sync's cost per
/// post grow with the corpus (BENCHMARKS.md, "The whole forum").
struct CommittedKeys {
    fields: KeyFields,
    segments: Vec<SegmentKeys>,
}

struct SegmentKeys {
    segment: SegmentReader,
    keys: Arc<InvertedIndexReader>,
    ids: Arc<InvertedIndexReader>,
    columns: Option<(Column<i64>, Column<u64>)>,
}

impl SegmentKeys {
    fn columns(&mut self) -> Result<&(Column<i64>, Column<u64>), SearchError> {
        if self.columns.is_none() {
            let fast = self.segment.fast_fields();
            self.columns = Some((fast.i64("post_id")?, fast.u64("dup_key")?));
        }
        Ok(self.columns.as_ref().expect("opened above"))
    }

    /// The live documents of the segment holding `term` in `postings_of`.
    fn live_docs(
        &self,
        postings_of: &InvertedIndexReader,
        term: &Term,
    ) -> Result<Vec<DocId>, SearchError> {
        let mut docs = Vec::new();
        if let Some(mut postings) = postings_of.read_postings(term, IndexRecordOption::Basic)? {
            while postings.doc() != TERMINATED {
                if !self.segment.is_deleted(postings.doc()) {
                    docs.push(postings.doc());
                }
                postings.advance();
            }
        }
        Ok(docs)
    }
}

impl CommittedKeys {
    fn of(searcher: &Searcher, fields: KeyFields) -> Result<Self, SearchError> {
        let segments = searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                Ok(SegmentKeys {
                    segment: segment.clone(),
                    keys: segment.inverted_index(fields.dup_key)?,
                    ids: segment.inverted_index(fields.post_id)?,
                    columns: None,
                })
            })
            .collect::<Result<_, SearchError>>()?;
        Ok(Self { fields, segments })
    }

    /// The posts of the live documents holding `key`.
    fn holders(&mut self, key: u64) -> Result<Vec<i64>, SearchError> {
        let term = Term::from_field_u64(self.fields.dup_key, key);
        let mut out = Vec::new();
        for segment in &mut self.segments {
            let docs = segment.live_docs(&segment.keys, &term)?;
            if docs.is_empty() {
                continue;
            }
            let (post_ids, _) = segment.columns()?;
            out.extend(docs.into_iter().filter_map(|doc| post_ids.first(doc)));
        }
        Ok(out)
    }

    /// The key of `post_id`'s live document, when it has one.
    fn key_of(&mut self, post_id: i64) -> Result<Option<u64>, SearchError> {
        let term = Term::from_field_i64(self.fields.post_id, post_id);
        for segment in &mut self.segments {
            let docs = segment.live_docs(&segment.ids, &term)?;
            let Some(&doc) = docs.first() else { continue };
            let (_, keys) = segment.columns()?;
            return Ok(keys.first(doc));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holders(committed: &[i64], added: &[(i64, bool)]) -> Holders {
        Holders {
            added: added.to_vec(),
            smallest_added: added.iter().map(|&(id, _)| id).min(),
            ..Holders::new(committed.to_vec())
        }
    }

    fn window(keys: Vec<Holders>, removed: &[i64]) -> Duplicates {
        let mut touched = HashMap::new();
        touched.insert(
            "en".to_owned(),
            keys.into_iter()
                .enumerate()
                .map(|(i, h)| (i as u64, h))
                .collect(),
        );
        Duplicates {
            committed: HashMap::new(),
            touched,
            removed: removed.iter().copied().collect(),
        }
    }

    fn fix(post_id: i64, duplicate: bool) -> Correction {
        Correction {
            index: "en".to_owned(),
            post_id,
            duplicate,
        }
    }

    #[test]
    fn a_window_that_keeps_the_original_corrects_nothing() {
        // 5 is the original; 7 and a new 9 are copies; 5 is observed again.
        let mut w = window(vec![holders(&[5, 7], &[(9, true), (5, false)])], &[5]);
        assert_eq!(w.corrections(), []);
    }

    #[test]
    fn an_original_that_arrives_after_its_copy_takes_its_place() {
        let mut w = window(vec![holders(&[7], &[(5, false)])], &[]);
        assert_eq!(w.corrections(), [fix(7, true)]);
        // Within one window, in the order the changes came: 9 first, then 5.
        let mut w = window(vec![holders(&[], &[(9, false), (5, false)])], &[]);
        assert_eq!(w.corrections(), [fix(9, true)]);
    }

    #[test]
    fn the_first_copy_left_is_the_original_when_the_original_goes() {
        let mut w = window(vec![holders(&[9, 5, 7], &[])], &[5]);
        assert_eq!(w.corrections(), [fix(7, false)]);
        // Edited away from the key and indexed again under another.
        let mut w = window(
            vec![holders(&[5, 7], &[]), holders(&[], &[(5, false)])],
            &[5],
        );
        assert_eq!(w.corrections(), [fix(7, false)]);
    }
}
