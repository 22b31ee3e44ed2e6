//! The threads a query names. A word of the query is a name (a project's, a coin's, an
//! exchange's) when only a few topics have it in their title (at most
//! [`MAX_NAMED_TOPICS`] opening posts of the searched indexes) and most of the posts that
//! hold it are in those topics (at least [`MIN_NAMED_SHARE`]): a generic word that happens
//! to be in one title ("across", "virus") is used everywhere else too. Two adjacent words
//! that name nothing alone are a name when, written together or as a phrase, they are one
//! by the same rule ("indigo dma" for "INDIGODMA", "ice rock" for "ICE ROCK MINING"); the
//! counts are of live posts, so they do not depend on how the index is cut into segments
//! (BENCHMARKS.md, "Names of two words"). The named topics
//! are the threads the query is about, and their posts come before the posts of other
//! threads that match the query as partly: a question about a project is answered in the
//! project's own thread, not in another project's that uses the same generic words
//! (BENCHMARKS.md, "The named thread"). Within them, the naming words say nothing about
//! which post answers (every post of the thread is about the project): the rest of the
//! query does ([`NamedTopics::without_names`]).

use forumdex_corpus::TakedownSet;
use tantivy::collector::{Count, DocSetCollector};
use tantivy::query::{PhraseQuery, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, TantivyDocument, Term};

use super::Target;
use super::matcher::taken_down;
use super::words::QueryWord;
use crate::SearchError;
use crate::analysis::{self, TEXT_ANALYZER};
use crate::index::Fields;

/// A word in the titles of more topics than this is not a name.
pub const MAX_NAMED_TOPICS: u64 = 3;
/// The share of a name's posts that are in the topics it names, at least (on the tuning
/// halves of the 1.4M corpus's sets, 0.5 leaves no query naming a wrong thread, against 16
/// of 92 without it).
pub const MIN_NAMED_SHARE: f64 = 0.5;

/// The documents of the topics a query names, per searched index and segment.
#[derive(Debug, Default)]
pub(super) struct NamedTopics {
    /// `docs[at][segment]`: the documents of those topics, ascending.
    docs: Vec<Vec<Vec<DocId>>>,
    /// The naming words, as the query's words are read ([`QueryWord::plain`]).
    names: Vec<String>,
}

impl NamedTopics {
    /// The topics that `words` (read from `query`) name in `targets`: a word alone, or two
    /// adjacent words that no topic is named by alone, written together ("indigo dma" for
    /// "INDIGODMA") or as a phrase ("ice rock" in "ICE ROCK MINING").
    pub(super) fn of(
        targets: &[Target],
        fields: &Fields,
        query: &str,
        words: &[QueryWord],
    ) -> Result<Self, SearchError> {
        let mut named = Self::default();
        for word in words.iter().filter(|w| !w.common && !w.is_missing()) {
            if let Some(candidate) = Self::named_by(targets, fields, &[word.plain.as_str()])? {
                named.add(candidate);
                named.names.push(word.plain.clone());
            }
        }
        for pair in words.windows(2) {
            let (first, second) = (&pair[0], &pair[1]);
            let between = query
                .get(first.range.end..second.range.start)
                .unwrap_or("x");
            if between.chars().any(char::is_alphanumeric)
                || (first.common && second.common)
                || named.names.contains(&first.plain)
                || named.names.contains(&second.plain)
            {
                continue;
            }
            // Written together, the parts need not be words of the corpus ("indigo dma").
            let joined = format!("{}{}", first.plain, second.plain);
            let candidate = match Self::named_by(targets, fields, &[joined.as_str()])? {
                Some(candidate) => Some(candidate),
                None if !first.is_missing() && !second.is_missing() => {
                    Self::named_by(targets, fields, &[&first.plain, &second.plain])?
                }
                None => None,
            };
            if let Some(candidate) = candidate {
                named.add(candidate);
                named.names.push(first.plain.clone());
                named.names.push(second.plain.clone());
            }
        }
        Ok(named)
    }

    /// The topics `words` (one word, or a phrase) name, when they name any: at most
    /// [`MAX_NAMED_TOPICS`] opening posts hold them in their title, and at least
    /// [`MIN_NAMED_SHARE`] of the posts that hold them are in those topics.
    fn named_by(
        targets: &[Target],
        fields: &Fields,
        words: &[&str],
    ) -> Result<Option<Self>, SearchError> {
        // The words as each index holds them; `None` where one is a stop word.
        let stems: Vec<Option<Vec<String>>> = targets
            .iter()
            .map(|target| words.iter().map(|w| stem(target, w)).collect())
            .collect();
        let query = |field, stems: &Vec<String>| -> Box<dyn Query> {
            let terms: Vec<Term> = stems
                .iter()
                .map(|stem| Term::from_field_text(field, stem))
                .collect();
            match terms.as_slice() {
                [term] => Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic)),
                _ => Box::new(PhraseQuery::new(terms)),
            }
        };
        let mut titles = 0;
        for (target, stems) in targets.iter().zip(&stems) {
            if let Some(stems) = stems {
                titles += target
                    .searcher
                    .search(&*query(fields.title_text, stems), &Count)?;
            }
        }
        if titles == 0 || titles > MAX_NAMED_TOPICS as usize {
            return Ok(None);
        }
        let mut topics = Vec::new();
        for (target, stems) in targets.iter().zip(&stems) {
            if let Some(stems) = stems {
                let titled = target
                    .searcher
                    .search(&*query(fields.title_text, stems), &DocSetCollector)?;
                for address in titled {
                    let stored: TantivyDocument = target.searcher.doc(address)?;
                    topics.extend(stored.get_first(fields.topic_id).and_then(|v| v.as_i64()));
                }
            }
        }
        let candidate = Self::of_topics(targets, fields, topics)?;
        let (mut holding, mut inside) = (0, 0);
        for (at, (target, stems)) in targets.iter().zip(&stems).enumerate() {
            if let Some(stems) = stems {
                let held = target
                    .searcher
                    .search(&*query(fields.content, stems), &DocSetCollector)?;
                holding += held.len();
                inside += held
                    .iter()
                    .filter(|address| candidate.holds(at, **address))
                    .count();
            }
        }
        Ok((inside as f64 >= MIN_NAMED_SHARE * holding as f64).then_some(candidate))
    }

    /// The documents of `topics` in `targets`.
    fn of_topics(
        targets: &[Target],
        fields: &Fields,
        topics: Vec<i64>,
    ) -> Result<Self, SearchError> {
        let set = TakedownSet {
            topics,
            ..TakedownSet::default()
        };
        let docs = targets
            .iter()
            .map(|target| {
                target
                    .searcher
                    .segment_readers()
                    .iter()
                    .map(|segment| taken_down(segment, fields, &set))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            docs,
            names: Vec::new(),
        })
    }

    /// Adds the documents of `other`.
    fn add(&mut self, other: Self) {
        if self.docs.is_empty() {
            self.docs = other.docs;
            return;
        }
        for (mine, theirs) in self.docs.iter_mut().zip(other.docs) {
            for (mine, theirs) in mine.iter_mut().zip(theirs) {
                mine.extend(theirs);
                mine.sort_unstable();
                mine.dedup();
            }
        }
    }

    /// The documents of the named topics in segment `ord` of target `at`, ascending.
    pub(super) fn docs(&self, at: usize, ord: u32) -> &[DocId] {
        self.docs
            .get(at)
            .and_then(|segments| segments.get(ord as usize))
            .map_or(&[], Vec::as_slice)
    }

    /// `query` (the text `words` were read from) without its naming words, wherever they
    /// are in it (blanked out): what picks a post within the named threads, or `None` when
    /// no topic is named or no word is left that is not common ("what is ripaex?" compares
    /// them with the whole query, not with "what is"). Measured on the tuning halves with
    /// the thread given (`semantic-model/within_thread.py`), MRR@10 of the known post among
    /// its thread's posts: 0.317 -> 0.399 in other words, 0.211 -> 0.257 across languages.
    pub(super) fn without_names(&self, query: &str, words: &[QueryWord]) -> Option<String> {
        let telling = |w: &&QueryWord| !w.common && !self.names.contains(&w.plain);
        if self.names.is_empty() || !words.iter().any(|w| telling(&w)) {
            return None;
        }
        let mut rest = query.to_owned();
        for (word, range) in analysis::terms(&mut analysis::plain_analyzer(), query) {
            if self.names.contains(&word) {
                // Spaces as long as the word: every other character keeps its place.
                rest.replace_range(range.clone(), &" ".repeat(range.len()));
            }
        }
        Some(rest)
    }

    /// Whether the document at `address` of target `at` is a post of a named topic.
    pub(super) fn holds(&self, at: usize, address: DocAddress) -> bool {
        self.docs(at, address.segment_ord)
            .binary_search(&address.doc_id)
            .is_ok()
    }
}

/// `word` as the text fields of `target` hold it (stemmed by the index's language), or
/// `None` for a stop word of that language.
fn stem(target: &Target, word: &str) -> Option<String> {
    let mut analyzer = target.index.index.tokenizers().get(TEXT_ANALYZER)?;
    let (term, _) = analysis::terms(&mut analyzer, word).into_iter().next()?;
    Some(term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(words: &[(&str, bool)]) -> Vec<QueryWord> {
        words
            .iter()
            .map(|&(plain, common)| QueryWord {
                plain: plain.to_owned(),
                range: 0..0,
                doc_freq: 1,
                common,
                neighbours: Vec::new(),
            })
            .collect()
    }

    fn named(names: &[&str]) -> NamedTopics {
        NamedTopics {
            docs: Vec::new(),
            names: names.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    #[test]
    fn the_rest_of_the_query_picks_the_post_within_a_named_thread() {
        let query = "RipaEx bounty: when will Ripa pay? ripaex!";
        let read = words(&[
            ("ripaex", false),
            ("bounty", false),
            ("when", true),
            ("will", true),
            ("ripa", false),
            ("pay", false),
        ]);
        assert_eq!(
            named(&["ripaex", "ripa"])
                .without_names(query, &read)
                .as_deref(),
            Some("       bounty: when will      pay?       !")
        );
        assert_eq!(NamedTopics::default().without_names(query, &read), None);
    }

    #[test]
    fn without_a_telling_word_left_the_whole_query_counts() {
        let read = words(&[("what", true), ("is", true), ("ripaex", false)]);
        assert_eq!(
            named(&["ripaex"]).without_names("what is ripaex?", &read),
            None
        );
        let only = words(&[("ripaex", false), ("ripa", false)]);
        assert_eq!(
            named(&["ripaex", "ripa"]).without_names("RipaEx Ripa", &only),
            None
        );
    }

    #[test]
    fn names_are_blanked_out_of_any_script_in_place() {
        let query = "İstanbul: RipaEx выплата когда? 瑞帕 ripaex";
        let read = words(&[("выплата", false), ("ripaex", false)]);
        let rest = named(&["ripaex"])
            .without_names(query, &read)
            .expect("a word is left");
        assert_eq!(rest.len(), query.len());
        assert!(!rest.to_lowercase().contains("ripaex"), "{rest}");
        assert!(
            rest.contains("İstanbul: ") && rest.contains("выплата когда? 瑞帕"),
            "{rest}"
        );
    }
}
