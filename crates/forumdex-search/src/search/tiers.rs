//! Ranking tiers: how a match of one index is placed, in order, by
//! 1. **words**: how many of the query's words the post holds (in its text, or in the title
//!    of an opening post), a typo neighbour counting for its missing word: first the words
//!    that are not common ([`super::words::COMMON_SHARE`]), then the common ones, so "how
//!    does X Y work" puts a post holding X and Y above one holding X, "how", "does" and
//!    "work";
//! 2. **typo**: how many of those are exact rather than a neighbour of a missing word;
//! 3. **exactness**: how many words the post holds as typed, not only by their stem;
//! 4. **proximity**: how many pairs of consecutive query words stand close in the text
//!    ([`stand_close`]), for pairs where one word is held by at most
//!    [`PROXIMITY_MAX_DOC_FREQ`] posts;
//! 5. **BM25** of the text, plus `1.5 x IDF` per title word of an opening post.
//!
//! The first four are whole counts compared as a tuple ([`Tier::key`]); the BM25 part is
//! what the re-rank multiplies by the quality and freshness factors within a tier. This
//! module decides, per index, which terms stand for each query word ([`plan`]);
//! [`super::matcher`] walks their postings.

use super::Target;
use super::terms::TermTable;
use super::words::QueryWord;
use crate::analysis::{self, TEXT_ANALYZER};
use crate::index::Fields;

/// Positions two consecutive query words may stand apart (a removed stop word between them
/// counts as one); see [`stand_close`].
pub const PROXIMITY_SLOP: u32 = 3;
/// Pairs whose both words are held by more posts of the index than this are not
/// measured for proximity: it would read two long position lists to order posts that hold
/// two common words.
pub const PROXIMITY_MAX_DOC_FREQ: u64 = 5_000;
/// Score of a title match, times the term's IDF (a content match scores at most about
/// `2.2 x IDF` in BM25).
pub const TITLE_WEIGHT: f64 = 1.5;

/// A match's place in the tiers, as shortfalls (smaller is better), plus its BM25 part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tier {
    /// Query words that are not common and that the post does not hold.
    pub missing_words: u32,
    /// Common query words the post does not hold.
    pub missing_common: u32,
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
    /// Whether the post holds the query whole: every word, the common ones too, none only
    /// as a typo's neighbour, and each measured pair of consecutive words close together
    /// (what a known-item query's post does).
    pub fn holds_whole(&self) -> bool {
        self.missing_words == 0
            && self.missing_common == 0
            && self.typos == 0
            && self.far_pairs == 0
    }

    /// The order of tiers: fewer missing words (the rarer ones first), then fewer typos,
    /// then more exact, then closer.
    pub fn key(&self) -> (u32, u32, u32, u32, u32) {
        (
            self.missing_words,
            self.missing_common,
            self.typos,
            self.inexact,
            self.far_pairs,
        )
    }
}

/// Which tiers order anything for a query in one index (what `rank_source` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Signals {
    /// The query has several words here.
    pub several_words: bool,
    /// A missing word has neighbours here.
    pub typo: bool,
    /// Some pair of consecutive words is measured for closeness.
    pub proximity: bool,
    /// Some word is held here, so holding it as typed can count.
    pub exactness: bool,
}

/// One query word as one index analyses it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedWord {
    /// Its term (stemmed), when the index's text or opening titles hold it.
    pub term: Option<String>,
    /// The word as typed, when its term differs from it: holding this in the unstemmed
    /// `spell` field makes the match exact.
    pub typed: Option<String>,
    /// Whether the word is common (never for a word matched by its neighbours).
    pub common: bool,
    /// The terms of its neighbours that the index holds, when the word itself is missing.
    pub neighbour_terms: Vec<String>,
    /// Posts of the index whose text holds the term.
    pub text_doc_freq: u64,
}

impl PlannedWord {
    /// Whether any post of the index can hold the word (or a neighbour of it).
    pub fn matches_anything(&self) -> bool {
        self.term.is_some() || !self.neighbour_terms.is_empty()
    }
}

/// What one index looks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The query's words that are no stop word of the index, in query order.
    pub words: Vec<PlannedWord>,
    /// Consecutive words (indexes into `words`) whose closeness counts.
    pub pairs: Vec<(usize, usize)>,
    /// The tiers that order anything.
    pub signals: Signals,
    /// Its terms (and their neighbours') in the text and the titles, looked up in every
    /// segment of the searcher it was made for.
    pub terms: TermTable,
}

impl Plan {
    /// Every term the plan matches in text and titles (held terms and neighbours).
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.words.iter().flat_map(|w| {
            w.term
                .iter()
                .chain(w.neighbour_terms.iter())
                .map(String::as_str)
        })
    }

    /// How many words are not common, and how many are.
    pub fn word_counts(&self) -> (u32, u32) {
        let common = self.words.iter().filter(|w| w.common).count() as u32;
        (self.words.len() as u32 - common, common)
    }

    /// The fewest words (not common, common) a post of the index can miss: those the index
    /// holds nowhere.
    pub fn fewest_missing(&self) -> (u32, u32) {
        let unheld = |common: bool| {
            self.words
                .iter()
                .filter(|w| w.common == common && !w.matches_anything())
                .count() as u32
        };
        (unheld(false), unheld(true))
    }

    /// The tier of a match from what it holds: how many words that are not common and how
    /// many common ones (`typos` of them only by a neighbour), how many pairs stand close,
    /// how many words are held as typed.
    pub fn tier(
        &self,
        held: (u32, u32),
        typos: u32,
        close_pairs: u32,
        exact: u32,
        bm25: f64,
    ) -> Tier {
        let held_terms = self.words.iter().filter(|w| w.term.is_some()).count() as u32;
        let (rare, common) = self.word_counts();
        Tier {
            missing_words: rare - held.0,
            missing_common: common - held.1,
            typos,
            far_pairs: self.pairs.len() as u32 - close_pairs,
            inexact: held_terms - exact,
            bm25,
        }
    }
}

/// The plan of `words` in `target`; `None` when the index holds none of the words nor of
/// their neighbours (the index is then not searched).
pub(super) fn plan(target: &Target, fields: &Fields, words: &[QueryWord]) -> Option<Plan> {
    let mut analyzer = target.index.index.tokenizers().get(TEXT_ANALYZER)?;
    let searcher = &target.searcher;
    let mut table = TermTable::default();
    // Looks the term up in the text and the titles (once: every later step asks the table).
    let held = |table: &mut TermTable, term: &str| -> bool {
        let text = table.look_up(searcher, fields.content, term).unwrap_or(0);
        let titles = table
            .look_up(searcher, fields.title_text, term)
            .unwrap_or(0);
        text + titles > 0
    };
    let mut stem = |word: &str| -> Option<String> {
        analysis::terms(&mut analyzer, word)
            .into_iter()
            .next()
            .map(|(t, _)| t)
    };
    let mut planned: Vec<PlannedWord> = Vec::new();
    for word in words {
        let Some(term) = stem(&word.plain) else {
            // A stop word of this language.
            continue;
        };
        let mut neighbour_terms: Vec<String> = Vec::new();
        for neighbour in &word.neighbours {
            if let Some(t) = stem(&neighbour.word)
                && !neighbour_terms.contains(&t)
                && held(&mut table, &t)
            {
                neighbour_terms.push(t);
            }
        }
        let is_held = held(&mut table, &term);
        let text_doc_freq = table.doc_freq(fields.content, &term);
        planned.push(PlannedWord {
            typed: (is_held && term != word.plain).then(|| word.plain.clone()),
            common: is_held && word.common,
            term: is_held.then_some(term),
            neighbour_terms,
            text_doc_freq,
        });
    }
    if !planned.iter().any(PlannedWord::matches_anything) {
        return None;
    }
    let pairs = close_pairs(&planned);
    let signals = Signals {
        several_words: planned.len() > 1,
        typo: planned.iter().any(|w| !w.neighbour_terms.is_empty()),
        proximity: !pairs.is_empty(),
        exactness: planned.iter().any(|w| w.term.is_some()),
    };
    Some(Plan {
        words: planned,
        pairs,
        signals,
        terms: table,
    })
}

/// Consecutive words both held exactly, one of them by at most [`PROXIMITY_MAX_DOC_FREQ`]
/// posts: the pairs whose closeness counts.
fn close_pairs(words: &[PlannedWord]) -> Vec<(usize, usize)> {
    (1..words.len())
        .filter(|&i| {
            let (left, right) = (&words[i - 1], &words[i]);
            left.term.is_some()
                && right.term.is_some()
                && left.text_doc_freq.min(right.text_doc_freq) <= PROXIMITY_MAX_DOC_FREQ
        })
        .map(|i| (i - 1, i))
        .collect()
}

/// Whether the right word of a pair stands close to the left one: 1 to
/// `PROXIMITY_SLOP + 1` positions after it, or 1 to `PROXIMITY_SLOP - 1` before it (a
/// phrase of the two with slop [`PROXIMITY_SLOP`], as tantivy's `PhraseQuery` counts it).
/// Both position lists are ascending.
pub fn stand_close(left: &[u32], right: &[u32]) -> bool {
    let (mut l, mut r) = (0, 0);
    while l < left.len() && r < right.len() {
        let (a, b) = (i64::from(left[l]), i64::from(right[r]));
        let after = b - a;
        if (1..=i64::from(PROXIMITY_SLOP) + 1).contains(&after)
            || (1..i64::from(PROXIMITY_SLOP)).contains(&-after)
        {
            return true;
        }
        if after > 0 {
            l += 1;
        } else {
            r += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_means_shortly_after_or_just_before() {
        assert!(stand_close(&[5], &[6]));
        assert!(stand_close(&[5], &[9]));
        assert!(!stand_close(&[5], &[10]));
        assert!(stand_close(&[5], &[3]));
        assert!(!stand_close(&[5], &[2]));
        assert!(stand_close(&[1, 40, 90], &[20, 60, 92]));
        assert!(!stand_close(&[1, 40, 90], &[20, 60, 120]));
        assert!(!stand_close(&[], &[1]));
    }

    fn word(term: Option<&str>, df: u64) -> PlannedWord {
        PlannedWord {
            term: term.map(str::to_owned),
            typed: None,
            common: false,
            neighbour_terms: Vec::new(),
            text_doc_freq: df,
        }
    }

    #[test]
    fn pairs_need_two_held_words_one_of_them_rare() {
        let words = [
            word(Some("mine"), 90_000),
            word(Some("difficulti"), 4_000),
            word(None, 0),
            word(Some("retarget"), 30),
            word(Some("bitcoin"), 500_000),
        ];
        assert_eq!(close_pairs(&words), vec![(0, 1), (3, 4)]);
        let common = [word(Some("have"), 90_000), word(Some("work"), 60_000)];
        assert!(close_pairs(&common).is_empty());
    }

    #[test]
    fn tiers_count_shortfalls() {
        let common = PlannedWord {
            common: true,
            ..word(Some("how"), 90_000)
        };
        let plan = Plan {
            words: vec![
                word(Some("a"), 1),
                word(Some("b"), 1),
                word(None, 0),
                common,
            ],
            pairs: vec![(0, 1)],
            signals: Signals::default(),
            terms: TermTable::default(),
        };
        assert_eq!(plan.word_counts(), (3, 1));
        let tier = plan.tier((2, 0), 1, 0, 2, 3.5);
        assert_eq!(tier.key(), (1, 1, 1, 1, 1));
        let far = plan.tier((3, 1), 0, 0, 2, 1.0);
        let inexact = plan.tier((3, 1), 0, 1, 1, 1.0);
        assert!(
            far.key() < inexact.key(),
            "exact words first, then closeness"
        );
        assert_eq!(tier.bm25, 3.5);
    }
}
