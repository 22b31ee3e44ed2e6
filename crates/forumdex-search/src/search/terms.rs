//! The term dictionaries' answers for one search of one index, looked up once.
//!
//! Every step of a search asks about the same terms: the plan whether an index holds them
//! and how often, the weights their document frequencies, the walks and the count their
//! postings, segment by segment. Each question used to look the term up in the segment's
//! term dictionary again (seven or eight lookups of a word's term per segment); a
//! [`TermTable`] looks each (field, term) up once per segment, and the later steps open
//! postings from the [`TermInfo`] it keeps.

use std::collections::HashMap;

use tantivy::postings::{BlockSegmentPostings, SegmentPostings, TermInfo};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, SegmentReader, Term};

use crate::SearchError;

/// The terms one search of one index looks at: for each (field, term), its [`TermInfo`]
/// in every segment of the searcher it was filled from (by segment ordinal).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermTable {
    infos: HashMap<Field, HashMap<String, Vec<Option<TermInfo>>>>,
}

impl TermTable {
    /// Looks `term` of `field` up in every segment of `searcher` (once: later calls answer
    /// from the table); returns the documents that hold it, deleted ones included (as
    /// tantivy's `doc_freq`).
    pub fn look_up(
        &mut self,
        searcher: &Searcher,
        field: Field,
        term: &str,
    ) -> Result<u64, SearchError> {
        let terms = self.infos.entry(field).or_default();
        if !terms.contains_key(term) {
            let probe = Term::from_field_text(field, term);
            let infos = searcher
                .segment_readers()
                .iter()
                .map(|segment| {
                    let index = segment.inverted_index(field)?;
                    Ok(index.get_term_info(&probe)?)
                })
                .collect::<Result<Vec<_>, SearchError>>()?;
            terms.insert(term.to_owned(), infos);
        }
        Ok(self.doc_freq(field, term))
    }

    /// Documents holding `term` of `field` in all segments (0 when it was not looked up).
    pub fn doc_freq(&self, field: Field, term: &str) -> u64 {
        self.segments(field, term)
            .map(|info| u64::from(info.doc_freq))
            .sum()
    }

    /// The postings of `term` of `field` in `segment` (ordinal `ord`), `None` when the
    /// segment does not hold it or it was not looked up.
    pub fn postings(
        &self,
        segment: &SegmentReader,
        ord: usize,
        field: Field,
        term: &str,
        record: IndexRecordOption,
    ) -> Result<Option<SegmentPostings>, SearchError> {
        let Some(info) = self.info(ord, field, term) else {
            return Ok(None);
        };
        let index = segment.inverted_index(field)?;
        Ok(Some(index.read_postings_from_terminfo(info, record)?))
    }

    /// The block postings (documents only) of `term` of `field` in `segment` (ordinal
    /// `ord`), `None` when the segment does not hold it or it was not looked up.
    pub fn block_postings(
        &self,
        segment: &SegmentReader,
        ord: usize,
        field: Field,
        term: &str,
    ) -> Result<Option<BlockSegmentPostings>, SearchError> {
        let Some(info) = self.info(ord, field, term) else {
            return Ok(None);
        };
        let index = segment.inverted_index(field)?;
        Ok(Some(index.read_block_postings_from_terminfo(
            info,
            IndexRecordOption::Basic,
        )?))
    }

    fn info(&self, ord: usize, field: Field, term: &str) -> Option<&TermInfo> {
        self.infos.get(&field)?.get(term)?.get(ord)?.as_ref()
    }

    fn segments(&self, field: Field, term: &str) -> impl Iterator<Item = &TermInfo> {
        self.infos
            .get(&field)
            .and_then(|terms| terms.get(term))
            .into_iter()
            .flatten()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{DocSet, Index, IndexWriter, TERMINATED, TantivyDocument};

    use super::*;

    fn docs(mut postings: SegmentPostings) -> Vec<u32> {
        let mut out = Vec::new();
        while postings.doc() != TERMINATED {
            out.push(postings.doc());
            postings.advance();
        }
        out
    }

    #[test]
    fn the_table_answers_as_the_term_dictionaries_do() {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        // Three segments: "mine" in all, "rare" in the second only, "absent" nowhere.
        for segment in ["mine mine", "mine rare", "mine"] {
            for _ in 0..3 {
                let mut doc = TantivyDocument::new();
                doc.add_text(text, segment);
                writer.add_document(doc).unwrap();
            }
            writer.commit().unwrap();
        }
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 3);
        let mut table = TermTable::default();
        for term in ["mine", "rare", "absent"] {
            let probe = Term::from_field_text(text, term);
            let expected = searcher.doc_freq(&probe).unwrap();
            assert_eq!(table.look_up(&searcher, text, term).unwrap(), expected);
            assert_eq!(table.doc_freq(text, term), expected);
            for (ord, segment) in searcher.segment_readers().iter().enumerate() {
                let index = segment.inverted_index(text).unwrap();
                let direct = index
                    .read_postings(&probe, IndexRecordOption::WithFreqs)
                    .unwrap()
                    .map(docs);
                let tabled = table
                    .postings(segment, ord, text, term, IndexRecordOption::WithFreqs)
                    .unwrap()
                    .map(docs);
                assert_eq!(tabled, direct, "{term} in segment {ord}");
                let blocks = table.block_postings(segment, ord, text, term).unwrap();
                assert_eq!(blocks.is_some(), direct.is_some());
                if let (Some(blocks), Some(direct)) = (blocks, direct) {
                    assert_eq!(blocks.docs(), direct.as_slice());
                }
            }
        }
        assert_eq!(table.doc_freq(text, "mine"), 9);
        assert_eq!(table.doc_freq(text, "rare"), 3);
        // What was not looked up is absent (the plan looks up every term it matches).
        assert_eq!(table.doc_freq(text, "other"), 0);
        let first = &searcher.segment_readers()[0];
        assert!(
            table
                .postings(first, 0, text, "other", IndexRecordOption::Basic)
                .unwrap()
                .is_none()
        );
    }
}
