//! How many posts of an index match a plan (the response's `total`): the union of every
//! term's postings in the text and the opening titles, less what the filter leaves out.
//! Counted with a bit set per segment, filled block by block from the postings, instead of
//! a union scorer that visits each match in turn: a query with a common word counts
//! hundreds of thousands of posts.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, Searcher, SegmentReader, Term};

use super::matcher::{Filter, taken_down};
use super::tiers::Plan;
use crate::SearchError;
use crate::index::Fields;

/// Posts of the index of `searcher` holding a term of `plan`, that `filter` admits.
pub fn count(
    searcher: &Searcher,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
) -> Result<u64, SearchError> {
    let mut total = 0;
    for segment in searcher.segment_readers() {
        total += count_segment(segment, fields, plan, filter)?;
    }
    Ok(total)
}

fn count_segment(
    segment: &SegmentReader,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
) -> Result<u64, SearchError> {
    let mut matches = BitSet::with_max_value(segment.max_doc());
    for field in [fields.content, fields.title_text] {
        let index = segment.inverted_index(field)?;
        for term in plan.terms() {
            if let Some(mut block) = index.read_block_postings(
                &Term::from_field_text(field, term),
                IndexRecordOption::Basic,
            )? {
                while !block.docs().is_empty() {
                    for &doc in block.docs() {
                        matches.insert(doc);
                    }
                    block.advance();
                }
            }
        }
    }
    if matches.len() == 0 {
        return Ok(0);
    }
    if filter.skip_hidden {
        for_each_doc(segment, fields.hidden, |doc| matches.remove(doc))?;
    }
    for doc in taken_down(segment, fields, filter.exclude)? {
        matches.remove(doc);
    }
    if let Some(alive) = segment.alive_bitset() {
        matches.intersect_update(alive.bitset());
    }
    if filter.images_only {
        let mut with_image = 0;
        for_each_doc(segment, fields.has_image, |doc| {
            with_image += u64::from(matches.contains(doc));
        })?;
        return Ok(with_image);
    }
    Ok(matches.len() as u64)
}

/// Calls `each` with every document whose flag `field` is 1.
fn for_each_doc(
    segment: &SegmentReader,
    field: Field,
    mut each: impl FnMut(DocId),
) -> Result<(), SearchError> {
    let index = segment.inverted_index(field)?;
    if let Some(mut block) =
        index.read_block_postings(&Term::from_field_u64(field, 1), IndexRecordOption::Basic)?
    {
        while !block.docs().is_empty() {
            block.docs().iter().for_each(|&doc| each(doc));
            block.advance();
        }
    }
    Ok(())
}
