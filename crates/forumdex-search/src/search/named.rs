//! The threads a query names. A word of the query is a name (a project's, a coin's, an
//! exchange's) when only a few topics have it in their title (at most
//! [`MAX_NAMED_TOPICS`] opening posts of the searched indexes) and most of the posts that
//! hold it are in those topics (at least [`MIN_NAMED_SHARE`]): a generic word that happens
//! to be in one title ("across", "virus") is used everywhere else too. The named topics
//! are the threads the query is about, and their posts come before the posts of other
//! threads that match the query as partly: a question about a project is answered in the
//! project's own thread, not in another project's that uses the same generic words
//! (BENCHMARKS.md, "The named thread"). Within them, the naming words say nothing about
//! which post answers (every post of the thread is about the project): the rest of the
//! query does ([`NamedTopics::without_names`]).

use forumdex_corpus::TakedownSet;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, TERMINATED, TantivyDocument, Term};

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
    /// The topics that `words` name in `targets`.
    pub(super) fn of(
        targets: &[Target],
        fields: &Fields,
        words: &[QueryWord],
    ) -> Result<Self, SearchError> {
        let mut named = Self::default();
        for word in words.iter().filter(|w| !w.common && !w.is_missing()) {
            let stems: Vec<Option<String>> = targets
                .iter()
                .map(|target| stem(target, &word.plain))
                .collect();
            let terms = |field| {
                stems
                    .iter()
                    .map(move |s| Some(Term::from_field_text(field, s.as_ref()?)))
            };
            let mut titles = 0;
            for (target, term) in targets.iter().zip(terms(fields.title_text)) {
                if let Some(term) = term {
                    titles += target.searcher.doc_freq(&term)?;
                }
            }
            if titles == 0 || titles > MAX_NAMED_TOPICS {
                continue;
            }
            let mut topics = Vec::new();
            for (target, term) in targets.iter().zip(terms(fields.title_text)) {
                if let Some(term) = term {
                    topics_titled(target, fields, &term, &mut topics)?;
                }
            }
            let candidate = Self::of_topics(targets, fields, topics)?;
            let (mut holding, mut inside) = (0, 0);
            for (at, (target, term)) in targets.iter().zip(terms(fields.content)).enumerate() {
                if let Some(term) = term {
                    holding += target.searcher.doc_freq(&term)?;
                    inside += candidate.holding(target, at, &term)?;
                }
            }
            if inside as f64 >= MIN_NAMED_SHARE * holding as f64 {
                named.add(candidate);
                named.names.push(word.plain.clone());
            }
        }
        Ok(named)
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

    /// How many of these documents of `target` (at `at`) hold `term`.
    fn holding(&self, target: &Target, at: usize, term: &Term) -> Result<u64, SearchError> {
        let mut count = 0;
        for (ord, segment) in target.searcher.segment_readers().iter().enumerate() {
            let docs = self.docs(at, ord as u32);
            if docs.is_empty() {
                continue;
            }
            let index = segment.inverted_index(term.field())?;
            let Some(mut postings) = index.read_postings(term, IndexRecordOption::Basic)? else {
                continue;
            };
            for &doc in docs {
                if postings.doc() < doc {
                    postings.seek(doc);
                }
                if postings.doc() == TERMINATED {
                    break;
                }
                count += u64::from(postings.doc() == doc);
            }
        }
        Ok(count)
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

/// Adds to `topics` the topic of every live opening post of `target` whose title holds
/// `term`.
fn topics_titled(
    target: &Target,
    fields: &Fields,
    term: &Term,
    topics: &mut Vec<i64>,
) -> Result<(), SearchError> {
    for (ord, segment) in target.searcher.segment_readers().iter().enumerate() {
        let index = segment.inverted_index(fields.title_text)?;
        let Some(mut postings) = index.read_postings(term, IndexRecordOption::Basic)? else {
            continue;
        };
        while postings.doc() != TERMINATED {
            let doc = postings.doc();
            if segment
                .alive_bitset()
                .is_none_or(|alive| alive.is_alive(doc))
            {
                let stored: TantivyDocument =
                    target.searcher.doc(DocAddress::new(ord as u32, doc))?;
                if let Some(topic) = stored.get_first(fields.topic_id).and_then(|v| v.as_i64()) {
                    topics.push(topic);
                }
            }
            postings.advance();
        }
    }
    Ok(())
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
