//! How many posts of an index match a plan (the response's `total`): the union of every
//! term's postings in the text and the opening titles, less what the filter leaves out.
//! Counted with a bit set per segment, filled block by block from the postings, instead of
//! a union scorer that visits each match in turn: a query with a common word counts
//! hundreds of thousands of posts.

use tantivy::fastfield::AliveBitSet;
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
const SEEK_COST: u64 = 4;

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
    let mut matches = DocBits::new(segment.max_doc());
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
    let found = matches.len();
    if found == 0 {
        return Ok(0);
    }
    if filter.skip_hidden {
        remove_flagged(segment, fields.hidden, &mut matches, found)?;
    }
    for doc in taken_down(segment, fields, filter.exclude)? {
        matches.remove(doc);
    }
    if let Some(alive) = segment.alive_bitset() {
        matches.keep_alive(alive, segment.max_doc());
    }
    if filter.images_only {
        let mut with_image = 0;
        for_each_doc(segment, fields.has_image, |doc| {
            with_image += u64::from(matches.contains(doc));
        })?;
        return Ok(with_image);
    }
    Ok(matches.len())
}

/// Removes from `matches` the documents whose flag `field` is 1: by reading the flag's
/// postings block by block when they are fewer than [`SEEK_COST`] times the matches, else
/// by seeking each match in them (a query of rare words need not read every hidden post of
/// the segment).
fn remove_flagged(
    segment: &SegmentReader,
    field: Field,
    matches: &mut DocBits,
    found: u64,
) -> Result<(), SearchError> {
    let index = segment.inverted_index(field)?;
    let flag = Term::from_field_u64(field, 1);
    let Some(info) = index.get_term_info(&flag)? else {
        return Ok(());
    };
    if u64::from(info.doc_freq) <= found.saturating_mul(SEEK_COST) {
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
    for doc in matches.members() {
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

/// A set of a segment's documents, one bit each, filled a posting at a time and counted
/// once at the end (tantivy's `BitSet` keeps its size up to date on every insert: a count
/// of 6.7M matches at 20M posts took 14% more CPU with it).
struct DocBits {
    words: Vec<u64>,
}

impl DocBits {
    /// The empty set of a segment of `max_doc` documents.
    fn new(max_doc: DocId) -> Self {
        Self {
            words: vec![0; (max_doc as usize).div_ceil(64)],
        }
    }

    fn insert(&mut self, doc: DocId) {
        self.words[doc as usize / 64] |= 1 << (doc % 64);
    }

    fn remove(&mut self, doc: DocId) {
        self.words[doc as usize / 64] &= !(1 << (doc % 64));
    }

    fn contains(&self, doc: DocId) -> bool {
        self.words
            .get(doc as usize / 64)
            .is_some_and(|word| word >> (doc % 64) & 1 == 1)
    }

    /// How many documents the set holds.
    fn len(&self) -> u64 {
        self.words
            .iter()
            .map(|word| u64::from(word.count_ones()))
            .sum()
    }

    /// Leaves out the deleted documents of a segment of `max_doc` documents.
    fn keep_alive(&mut self, alive: &AliveBitSet, max_doc: DocId) {
        let mut bits = BitSet::with_max_value_and_full(max_doc);
        bits.intersect_update(alive.bitset());
        for (at, word) in self.words.iter_mut().enumerate() {
            *word &= u64::from_le_bytes(bits.tinyset(at as u32).into_bytes());
        }
    }

    /// The documents of the set, ascending.
    fn members(&self) -> impl Iterator<Item = DocId> + '_ {
        self.words.iter().enumerate().flat_map(|(at, &word)| {
            let mut left = word;
            std::iter::from_fn(move || {
                (left != 0).then(|| {
                    let low = left.trailing_zeros();
                    left &= left - 1;
                    at as DocId * 64 + low
                })
            })
        })
    }
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
    fn doc_bits_list_count_and_drop_their_members() {
        let mut set = DocBits::new(200);
        assert_eq!(set.members().count(), 0);
        assert_eq!(set.len(), 0);
        for doc in [199, 0, 64, 63, 130, 64] {
            set.insert(doc);
        }
        assert_eq!(set.members().collect::<Vec<_>>(), [0, 63, 64, 130, 199]);
        assert_eq!(set.len(), 5);
        assert!(set.contains(130) && !set.contains(131) && !set.contains(500));
        set.remove(63);
        set.remove(62);
        assert_eq!(set.members().collect::<Vec<_>>(), [0, 64, 130, 199]);
        assert_eq!(DocBits::new(0).members().count(), 0);
    }
}
