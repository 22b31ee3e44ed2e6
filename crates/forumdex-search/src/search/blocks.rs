//! A term's text postings read block by block, with the most any post of the current block
//! can score: what the matcher walks, so that it can pass over whole blocks of posts that
//! cannot enter (tantivy's own cursor with block maxima, `TermScorer`, is not public).

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::BlockSegmentPostings;
use tantivy::query::Bm25Weight;
use tantivy::{DocId, TERMINATED};

/// Documents per block of postings (the last block of a list holds fewer, padded with
/// [`TERMINATED`]).
const BLOCK: usize = 128;

/// One term's postings with their frequencies, one document at a time.
pub struct BlockCursor {
    block: BlockSegmentPostings,
    /// The current document's place in the block.
    at: usize,
    /// Weighs the block maxima ([`BlockCursor::block_max_score`]).
    bound: Bm25Weight,
    norms: FieldNormReader,
}

impl BlockCursor {
    /// A cursor at the first document of `block` (loaded, with frequencies), whose block
    /// maxima are scored with `bound` over the lengths of `norms`.
    pub fn new(block: BlockSegmentPostings, bound: Bm25Weight, norms: FieldNormReader) -> Self {
        Self {
            block,
            at: 0,
            bound,
            norms,
        }
    }

    /// The current document, [`TERMINATED`] past the last.
    pub fn doc(&self) -> DocId {
        self.block.doc(self.at)
    }

    /// How many times the current document holds the term.
    pub fn term_freq(&self) -> u32 {
        self.block.freq(self.at)
    }

    /// Posts holding the term.
    pub fn doc_freq(&self) -> u32 {
        self.block.doc_freq()
    }

    /// Moves to the next document.
    pub fn advance(&mut self) {
        if self.at == BLOCK - 1 {
            self.at = 0;
            self.block.advance();
        } else {
            self.at += 1;
        }
    }

    /// Moves to `target` (not behind the current document) or the first document after it.
    pub fn seek(&mut self, target: DocId) {
        if self.doc() >= target {
            return;
        }
        if self.block.docs().last().is_some_and(|&last| last >= target) {
            while self.doc() < target {
                self.at += 1;
            }
            return;
        }
        self.at = self.block.seek(target);
    }

    /// The most a post of the current block scores with the bound weight, and the last
    /// document of the block.
    pub fn block_max(&mut self) -> (f32, DocId) {
        let last = self.block.docs().last().copied().unwrap_or(TERMINATED);
        (self.block.block_max_score(&self.norms, &self.bound), last)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{Index, TantivyDocument, Term};

    use super::*;

    #[test]
    fn the_cursor_visits_and_seeks_every_posting_across_blocks() {
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", TEXT);
        let index = Index::create_in_ram(builder.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        // 300 documents, every third holding the word (once, or twice when even).
        for n in 0..300 {
            let body = match n % 3 {
                0 if n % 2 == 0 => "word word",
                0 => "word",
                _ => "other",
            };
            let mut doc = TantivyDocument::new();
            doc.add_text(text, body);
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = searcher.segment_reader(0);
        let open = || {
            let inverted = segment.inverted_index(text).unwrap();
            let info = inverted
                .get_term_info(&Term::from_field_text(text, "word"))
                .unwrap()
                .unwrap();
            let block = inverted
                .read_block_postings_from_terminfo(&info, IndexRecordOption::WithFreqs)
                .unwrap();
            let weight = Bm25Weight::for_one_term_without_explain(100, 300, 1.0);
            BlockCursor::new(block, weight, segment.get_fieldnorms_reader(text).unwrap())
        };
        let mut cursor = open();
        assert_eq!(cursor.doc_freq(), 100);
        let mut seen = Vec::new();
        while cursor.doc() != TERMINATED {
            seen.push((cursor.doc(), cursor.term_freq()));
            cursor.advance();
        }
        let expected: Vec<(DocId, u32)> = (0..300)
            .step_by(3)
            .map(|n| (n, if n % 2 == 0 { 2 } else { 1 }))
            .collect();
        assert_eq!(seen, expected);
        let mut cursor = open();
        for (target, lands) in [(0, 0), (1, 3), (200, 201), (201, 201), (297, 297)] {
            cursor.seek(target);
            assert_eq!(cursor.doc(), lands, "seek {target}");
        }
        let (max, last) = cursor.block_max();
        assert!(max > 0.0);
        assert_eq!(last, 297);
        cursor.seek(298);
        assert_eq!(cursor.doc(), TERMINATED);
    }
}
