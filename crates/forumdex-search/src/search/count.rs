//! How many posts of an index match a plan (the response's `total`): the union of every
//! term's postings in the text and the opening titles, less what the filter leaves out.
//! Counted with a bit set per segment, filled block by block from the postings, instead of
//! a union scorer that visits each match in turn: a query with a common word counts
//! hundreds of thousands of posts.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, DocSet, Searcher, SegmentReader, TERMINATED, Term};

use super::matcher::{Filter, taken_down};
use super::parallel;
use super::tiers::Plan;
use crate::SearchError;
use crate::index::Fields;

/// How many flagged documents reading block by block costs about as much as seeking one
/// match in the flag's postings (decoding a block is a few nanoseconds a document; a seek,
/// with the walk of the matches' bits and the list of those found, several times that).
const SEEK_COST: usize = 4;

/// Postings worth a thread of their own in the count (a few nanoseconds each).
const POSTINGS_PER_THREAD: u64 = 1_000_000;

/// Posts of the index of `searcher` holding a term of `plan`, that `filter` admits. The
/// segments are counted on as many of the node's cores as the postings are worth.
pub fn count(
    searcher: &Searcher,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
) -> Result<u64, SearchError> {
    let segments = searcher.segment_readers();
    let postings: u64 = plan.words.iter().map(|w| w.text_doc_freq).sum();
    let threads = parallel::threads_for(postings, POSTINGS_PER_THREAD, segments.len());
    let counts = parallel::each_in_parallel(threads, segments, |ord, segment| {
        count_segment(segment, ord, fields, plan, filter)
    })?;
    Ok(counts.into_iter().sum())
}

fn count_segment(
    segment: &SegmentReader,
    ord: usize,
    fields: &Fields,
    plan: &Plan,
    filter: Filter<'_>,
) -> Result<u64, SearchError> {
    let mut matches = BitSet::with_max_value(segment.max_doc());
    for field in [fields.content, fields.title_text] {
        for term in plan.terms() {
            if let Some(mut block) = plan.terms.block_postings(segment, ord, field, term)? {
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
        remove_flagged(segment, fields.hidden, &mut matches)?;
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

/// Removes from `matches` the documents whose flag `field` is 1: by reading the flag's
/// postings block by block when they are fewer than [`SEEK_COST`] times the matches, else
/// by seeking each match in them (a query of rare words need not read every hidden post of
/// the segment).
fn remove_flagged(
    segment: &SegmentReader,
    field: Field,
    matches: &mut BitSet,
) -> Result<(), SearchError> {
    let index = segment.inverted_index(field)?;
    let flag = Term::from_field_u64(field, 1);
    let Some(info) = index.get_term_info(&flag)? else {
        return Ok(());
    };
    if info.doc_freq as usize <= matches.len().saturating_mul(SEEK_COST) {
        let mut block = index.read_block_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
        while !block.docs().is_empty() {
            for &doc in block.docs() {
                matches.remove(doc);
            }
            block.advance();
        }
        return Ok(());
    }
    let mut flagged = index.read_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
    let mut found = Vec::new();
    for doc in members(matches) {
        if flagged.doc() < doc {
            flagged.seek(doc);
        }
        if flagged.doc() == TERMINATED {
            break;
        }
        if flagged.doc() == doc {
            found.push(doc);
        }
    }
    for doc in found {
        matches.remove(doc);
    }
    Ok(())
}

/// The members of `set`, ascending.
fn members(set: &BitSet) -> impl Iterator<Item = DocId> + '_ {
    let mut bucket = set.first_non_empty_bucket(0);
    let mut current = bucket.map(|b| set.tinyset(b));
    std::iter::from_fn(move || {
        loop {
            let (at, tiny) = (bucket?, current.as_mut()?);
            if let Some(low) = tiny.pop_lowest() {
                return Some(at * 64 + low);
            }
            bucket = set.first_non_empty_bucket(at + 1);
            current = bucket.map(|b| set.tinyset(b));
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_listed_ascending_across_buckets() {
        let mut set = BitSet::with_max_value(200);
        assert_eq!(members(&set).count(), 0);
        for doc in [199, 0, 64, 63, 130] {
            set.insert(doc);
        }
        assert_eq!(members(&set).collect::<Vec<_>>(), [0, 63, 64, 130, 199]);
        assert_eq!(members(&BitSet::with_max_value(0)).count(), 0);
    }
}
