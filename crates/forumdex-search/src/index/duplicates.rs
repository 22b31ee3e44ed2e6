//! Duplicate keys already committed to an index, as one sync window looks them up.

use std::sync::Arc;

use tantivy::columnar::Column;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, InvertedIndexReader, Searcher, SegmentReader, TERMINATED, Term};

use crate::SearchError;

/// The committed duplicate keys of one index for one sync window, read from each segment's
/// `dup_key` postings and `post_id` column without running a query (a scored query would
/// first sum the field's statistics over every segment). A segment's column is opened once
/// per window, at its first hit: opening it reads its block index, whose size grows with
/// the segment's, so opening it for every post made the sync's cost per post grow with the
/// corpus (BENCHMARKS.md, "The whole forum").
pub(super) struct CommittedKeys {
    segments: Vec<SegmentKeys>,
}

struct SegmentKeys {
    segment: SegmentReader,
    keys: Arc<InvertedIndexReader>,
    post_ids: Option<Column<i64>>,
}

impl CommittedKeys {
    /// The keys of the segments `searcher` reads, `dup_key` being the key field.
    pub(super) fn of(searcher: &Searcher, dup_key: Field) -> Result<Self, SearchError> {
        let segments = searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                Ok(SegmentKeys {
                    segment: segment.clone(),
                    keys: segment.inverted_index(dup_key)?,
                    post_ids: None,
                })
            })
            .collect::<Result<_, SearchError>>()?;
        Ok(Self { segments })
    }

    /// Whether a live document of another post than `post_id` carries the key `term`.
    pub(super) fn held_by_other(&mut self, term: &Term, post_id: i64) -> Result<bool, SearchError> {
        for segment in &mut self.segments {
            let Some(mut postings) = segment.keys.read_postings(term, IndexRecordOption::Basic)?
            else {
                continue;
            };
            if segment.post_ids.is_none() {
                segment.post_ids = Some(segment.segment.fast_fields().i64("post_id")?);
            }
            let post_ids = segment.post_ids.as_ref().expect("opened above");
            while postings.doc() != TERMINATED {
                let doc = postings.doc();
                if !segment.segment.is_deleted(doc) && post_ids.first(doc) != Some(post_id) {
                    return Ok(true);
                }
                postings.advance();
            }
        }
        Ok(false)
    }
}
