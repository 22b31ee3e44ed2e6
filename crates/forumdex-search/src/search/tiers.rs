//! Ranking tiers: one tantivy query per index whose score sorts matches by, in order,
//! 1. **words**: how many of the query's words the post holds (in its text, or in the title
//!    of an opening post), a typo neighbour counting for its missing word;
//! 2. **typo**: how many of those are exact rather than a neighbour of a missing word;
//! 3. **proximity**: how many pairs of consecutive query words stand within
//!    [`PROXIMITY_SLOP`] positions of each other in the text (either order), for pairs
//!    where one word is held by at most [`PROXIMITY_MAX_DOC_FREQ`] posts;
//! 4. **exactness**: how many words the post holds as typed, not only by their stem;
//! 5. **BM25** of the text, plus `1.5 x IDF` per title word of an opening post.
//!
//! Each of the first four adds a constant per unit to the score, and each constant is larger
//! than everything below it can add up to, so sorting by score sorts by the tuple. The
//! constants are whole numbers below 2^24 (exact in the `f32` score), so [`Units::decode`]
//! recovers each count and the BM25 part, which the re-rank multiplies by the quality and
//! freshness factors within a tier.

use tantivy::Term;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;

use super::Target;
use super::words::QueryWord;
use crate::analysis::{self, TEXT_ANALYZER};
use crate::index::Fields;

/// Positions two consecutive query words may stand apart (a removed stop word between them
/// counts as one); 3 also accepts them swapped and adjacent.
pub const PROXIMITY_SLOP: u32 = 3;
/// Pairs whose both words are held by more posts of the index than this are not
/// measured for proximity: their phrase query walks two long position lists (the slowest
/// part of a query) to order posts that hold two common words.
pub const PROXIMITY_MAX_DOC_FREQ: u64 = 5_000;
/// Score of a title match, times the term's IDF (a content match scores at most about
/// `2.2 x IDF` in BM25).
const TITLE_WEIGHT: f64 = 1.5;
/// What one word can add to BM25 at most, per `ln(1 + documents)`: the content's
/// `(k1 + 1) x IDF` plus the title's `1.5 x IDF`.
const BM25_PER_WORD: f64 = 2.2 + TITLE_WEIGHT;
/// Largest score whose whole numbers an `f32` holds exactly.
const EXACT_F32: f64 = 16_777_216.0;

/// The query of one index and how its scores decompose.
pub struct IndexQuery {
    /// Every clause, OR-ed.
    pub query: Box<dyn Query>,
    /// The tier constants.
    pub units: Units,
}

/// How many of each tier's units a match can have, and what one is worth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Units {
    /// Above any BM25 part; the unit of the exactness tier.
    bm25_bound: f64,
    /// Words that can match exactly as typed.
    exactness_max: u32,
    /// Pairs of consecutive words that can stand close.
    pairs_max: u32,
    /// Words that can match exactly (0 when no word has typo neighbours: then the tier
    /// would repeat the words tier).
    exact_max: u32,
    /// Words that can match.
    words_max: u32,
}

/// A match's place in the tiers, as shortfalls (smaller is better), plus its BM25 part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tier {
    /// Query words the post does not hold.
    pub missing_words: u32,
    /// Words it holds only as a neighbour of a missing word.
    pub typos: u32,
    /// Pairs of consecutive words that do not stand close.
    pub far_pairs: u32,
    /// Words it holds only by their stem.
    pub inexact: u32,
    /// BM25 (text plus title).
    pub bm25: f64,
}

impl Tier {
    /// The order of tiers: fewer missing words, then fewer typos, then closer, then more
    /// exact.
    pub fn key(&self) -> (u32, u32, u32, u32) {
        (self.missing_words, self.typos, self.far_pairs, self.inexact)
    }
}

impl Units {
    /// Whether the query has several words here (the words tier orders anything).
    pub fn several_words(&self) -> bool {
        self.words_max > 1
    }
    /// Whether closeness of consecutive words counts here.
    pub fn counts_proximity(&self) -> bool {
        self.pairs_max > 0
    }
    /// Whether words held as typed count here.
    pub fn counts_exactness(&self) -> bool {
        self.exactness_max > 0
    }

    fn exactness_unit(&self) -> f64 {
        self.bm25_bound
    }
    fn pair_unit(&self) -> f64 {
        self.exactness_unit() * f64::from(self.exactness_max + 1)
    }
    fn exact_unit(&self) -> f64 {
        self.pair_unit() * f64::from(self.pairs_max + 1)
    }
    fn word_unit(&self) -> f64 {
        self.exact_unit() * f64::from(self.exact_max + 1)
    }
    fn top(&self) -> f64 {
        self.word_unit() * f64::from(self.words_max + 1)
    }

    /// The tiers and BM25 part of a score of this index.
    pub fn decode(&self, score: f32) -> Tier {
        let score = f64::from(score);
        // Every constant is a multiple of the bound and the BM25 part lies below it.
        let mut key = (score / self.bm25_bound).floor().max(0.0) as u64;
        let bm25 = (score - key as f64 * self.bm25_bound).max(0.0);
        let mut take = |max: u32| {
            let base = u64::from(max) + 1;
            let count = (key % base) as u32;
            key /= base;
            count
        };
        let exactness = take(self.exactness_max);
        let pairs = take(self.pairs_max);
        let exact = take(self.exact_max);
        let words = (key as u32).min(self.words_max);
        Tier {
            missing_words: self.words_max - words,
            typos: if self.exact_max == 0 {
                0
            } else {
                words.saturating_sub(exact)
            },
            far_pairs: self.pairs_max.saturating_sub(pairs),
            inexact: self.exactness_max.saturating_sub(exactness),
            bm25,
        }
    }
}

/// One query word as index `target` analyses it.
struct IndexWord<'a> {
    word: &'a QueryWord,
    /// Its term (stemmed), when held by the index's title or text.
    term: Option<String>,
    /// Posts of the index whose text holds the term.
    text_doc_freq: u64,
    /// The terms of its neighbours the index holds, when the word is missing.
    neighbour_terms: Vec<String>,
}

impl IndexWord<'_> {
    fn matches_anything(&self) -> bool {
        self.term.is_some() || !self.neighbour_terms.is_empty()
    }
}

/// The tiered query of `words` in `target`; `None` when the index holds none of the words
/// nor of their neighbours (the index is then not searched).
pub(super) fn index_query(
    target: &Target,
    fields: &Fields,
    words: &[QueryWord],
) -> Option<IndexQuery> {
    let mut analyzer = target.index.index.tokenizers().get(TEXT_ANALYZER)?;
    let searcher = &target.searcher;
    let held = |term: &str| -> bool {
        [fields.content, fields.title_text].iter().any(|&field| {
            searcher
                .doc_freq(&Term::from_field_text(field, term))
                .is_ok_and(|df| df > 0)
        })
    };
    let mut stem = |word: &str| -> Option<String> {
        analysis::terms(&mut analyzer, word)
            .into_iter()
            .next()
            .map(|(t, _)| t)
    };
    let mut index_words: Vec<IndexWord> = Vec::new();
    for word in words {
        let Some(term) = stem(&word.plain) else {
            // A stop word of this language.
            continue;
        };
        let mut neighbour_terms: Vec<String> = Vec::new();
        for neighbour in &word.neighbours {
            if let Some(t) = stem(&neighbour.word)
                && !neighbour_terms.contains(&t)
                && held(&t)
            {
                neighbour_terms.push(t);
            }
        }
        let text_doc_freq = searcher
            .doc_freq(&Term::from_field_text(fields.content, &term))
            .unwrap_or(0);
        index_words.push(IndexWord {
            word,
            term: held(&term).then_some(term),
            text_doc_freq,
            neighbour_terms,
        });
    }
    if !index_words.iter().any(IndexWord::matches_anything) {
        return None;
    }
    let documents: u64 = searcher
        .segment_readers()
        .iter()
        .map(|s| u64::from(s.max_doc()))
        .sum();
    let words_max = index_words.len() as u32;
    let mut units = Units {
        bm25_bound: (BM25_PER_WORD * (1.0 + documents as f64).ln() * f64::from(words_max)).ceil()
            + 1.0,
        exactness_max: index_words.iter().filter(|w| w.term.is_some()).count() as u32,
        pairs_max: pairs(&index_words).count() as u32,
        exact_max: if index_words.iter().any(|w| !w.neighbour_terms.is_empty()) {
            words_max
        } else {
            0
        },
        words_max,
    };
    if units.top() >= EXACT_F32 {
        // Too many words for every tier: proximity and exactness go.
        units.exactness_max = 0;
        units.pairs_max = 0;
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let docs = searcher.num_docs() as f64;
    for index_word in &index_words {
        if let Some(term) = &index_word.term {
            let as_typed = *term == index_word.word.plain;
            let mut bonus = units.word_unit();
            if units.exact_max > 0 {
                bonus += units.exact_unit();
            }
            if as_typed && units.exactness_max > 0 {
                bonus += units.exactness_unit();
            }
            clauses.push(constant(
                union(text_terms(fields, std::slice::from_ref(term))),
                bonus,
            ));
            clauses.push((Occur::Should, term_query(fields.content, term)));
            let title_term = Term::from_field_text(fields.title_text, term);
            let title_df = searcher.doc_freq(&title_term).unwrap_or(0) as f64;
            if title_df > 0.0 {
                // Only opening posts have a searchable title, so BM25's length
                // normalisation (an average over every document) would crush title
                // matches: score them as a constant times the term's title IDF instead.
                let idf = (1.0 + (docs - title_df + 0.5) / (title_df + 0.5)).ln();
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(
                        Box::new(ConstScoreQuery::new(
                            Box::new(TermQuery::new(title_term, IndexRecordOption::Basic)),
                            1.0,
                        )),
                        (TITLE_WEIGHT * idf) as f32,
                    )),
                ));
            }
            if !as_typed && units.exactness_max > 0 {
                let typed = Term::from_field_text(fields.spell, &index_word.word.plain);
                clauses.push(constant(
                    Box::new(TermQuery::new(typed, IndexRecordOption::Basic)),
                    units.exactness_unit(),
                ));
            }
        } else if !index_word.neighbour_terms.is_empty() {
            clauses.push(constant(
                union(text_terms(fields, &index_word.neighbour_terms)),
                units.word_unit(),
            ));
            let share = 1.0 / index_word.neighbour_terms.len() as f32;
            for term in &index_word.neighbour_terms {
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(term_query(fields.content, term), share)),
                ));
            }
        }
    }
    if units.pairs_max > 0 {
        for (left, right) in pairs(&index_words) {
            let mut phrase = PhraseQuery::new(vec![
                Term::from_field_text(fields.content, left),
                Term::from_field_text(fields.content, right),
            ]);
            phrase.set_slop(PROXIMITY_SLOP);
            clauses.push(constant(Box::new(phrase), units.pair_unit()));
        }
    }
    Some(IndexQuery {
        query: Box::new(BooleanQuery::new(clauses)),
        units,
    })
}

/// Consecutive words both held exactly, one of them by at most [`PROXIMITY_MAX_DOC_FREQ`]
/// posts: the pairs whose closeness counts.
fn pairs<'a>(words: &'a [IndexWord]) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    words.windows(2).filter_map(|pair| {
        let rarer = pair[0].text_doc_freq.min(pair[1].text_doc_freq);
        if rarer > PROXIMITY_MAX_DOC_FREQ {
            return None;
        }
        Some((pair[0].term.as_deref()?, pair[1].term.as_deref()?))
    })
}

fn term_query(field: tantivy::schema::Field, term: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, term),
        IndexRecordOption::WithFreqsAndPositions,
    ))
}

/// Title and text matches of `terms`, unscored.
fn text_terms(fields: &Fields, terms: &[String]) -> Vec<Box<dyn Query>> {
    terms
        .iter()
        .flat_map(|term| [fields.content, fields.title_text].map(|field| (field, term)))
        .map(|(field, term)| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, term),
                IndexRecordOption::Basic,
            ))
        })
        .collect()
}

fn union(queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    Box::new(BooleanQuery::union(queries))
}

/// A clause worth `score` when `query` matches.
fn constant(query: Box<dyn Query>, score: f64) -> (Occur, Box<dyn Query>) {
    (
        Occur::Should,
        Box::new(ConstScoreQuery::new(query, score as f32)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units() -> Units {
        Units {
            bm25_bound: 100.0,
            exactness_max: 3,
            pairs_max: 2,
            exact_max: 3,
            words_max: 3,
        }
    }

    #[test]
    fn scores_decode_into_their_tiers() {
        let u = units();
        let score = 3.0 * u.word_unit()
            + 2.0 * u.exact_unit()
            + u.pair_unit()
            + 3.0 * u.exactness_unit()
            + 42.5;
        let tier = u.decode(score as f32);
        assert_eq!(tier.key(), (0, 1, 1, 0));
        assert!((tier.bm25 - 42.5).abs() < 1e-3);
        let partial = u.decode((u.word_unit() + u.exact_unit() + 7.0) as f32);
        assert_eq!(partial.key(), (2, 0, 2, 3));
    }

    #[test]
    fn each_tier_outweighs_everything_below_it() {
        let u = units();
        let below_exactness = u.bm25_bound - 1.0;
        let below_pair = f64::from(u.exactness_max) * u.exactness_unit() + below_exactness;
        assert!(below_pair < u.pair_unit());
        let below_exact = f64::from(u.pairs_max) * u.pair_unit() + below_pair;
        assert!(below_exact < u.exact_unit());
        let below_word = f64::from(u.exact_max) * u.exact_unit() + below_exact;
        assert!(below_word < u.word_unit());
    }
}
