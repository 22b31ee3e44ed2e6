//! The words of a query as the spelling dictionary (the unstemmed `spell` field) knows them:
//! how many posts hold each, and for a word no searched index holds, its neighbours within
//! one edit (two for long words), which the query then also matches ([`super::tiers`]) and
//! which make the suggestion. Neighbours come first from the dictionaries of the languages
//! the query's other words speak ([`speaking`], [`neighbours`]): where the Spanish index
//! holds "pagan", "cuando pagen el bounty" is corrected to it, not to the English "pages".

use std::collections::HashMap;
use std::ops::Range;

use tantivy::query::{DfaWrapper, FuzzyTermQuery};
use tantivy::schema::Field;
use tantivy::{Searcher, Term};

use super::intent;
use crate::SearchError;
use crate::analysis;

/// Words of a query that count: others are ignored (as Meilisearch does), which bounds
/// the cost of a query and keeps its ranking tiers exact in an `f32` score. Of a longer
/// query, common words give way first ([`query_words`]).
pub const MAX_QUERY_WORDS: usize = 10;
/// Distinct words of a query read at most, of which [`MAX_QUERY_WORDS`] count.
const READ_QUERY_WORDS: usize = 3 * MAX_QUERY_WORDS;
/// Missing words of a query that get neighbours; later missing words match nothing.
pub const MAX_TYPO_WORDS: usize = 3;
/// Neighbours kept per missing word, the most frequent first.
pub const MAX_NEIGHBOURS: usize = 4;
/// Words of at least this many letters get neighbours within two edits when none lies
/// within one.
pub const TWO_EDIT_LETTERS: usize = 8;
/// Shorter words get no neighbours: too many short words lie one edit apart.
pub const MIN_TYPO_LETTERS: usize = 4;
/// A word held by more than this share of the searched posts is *common*: alone it tells
/// little about what is sought ("how", "work", "think"), so the ranking counts it after the
/// rarer words ([`super::tiers`]).
pub const COMMON_SHARE: f64 = 0.01;
/// ... and by more than this many posts (in a small index no word is common).
pub const COMMON_MIN_POSTS: u64 = 100;
/// A word held by at most this many posts is rare: the last resort may correct it
/// ([`rare_word_correction`]), and it says nothing of the query's language ([`speaking`]):
/// it may be a typo or a name.
const RARE_POSTS: u64 = 2;
/// How much less likely (natural log, over all the query's held words together) an index
/// may make them than the likeliest index does for its dictionary to still give neighbours
/// ([`speaking`]): e^3, about 20 times.
const SPEAKING_MARGIN: f64 = 3.0;
/// The weight, in posts, of the whole corpus's share of posts holding a word in an
/// index's share ([`speaking`]), as a part of the searched posts, and at most
/// [`SPEAKING_PRIOR_MAX_POSTS`]: an index of far fewer posts speaks like the corpus at
/// large (one post of ten holding a word says little), a large one as its own posts do.
const SPEAKING_PRIOR_SHARE: f64 = 0.01;
/// See [`SPEAKING_PRIOR_SHARE`].
const SPEAKING_PRIOR_MAX_POSTS: f64 = 2000.0;

/// One word of the query.
#[derive(Debug, Clone)]
pub struct QueryWord {
    /// The word lowercased and folded to ASCII, as the spelling dictionary holds it.
    pub plain: String,
    /// Where it is in the query text.
    pub range: Range<usize>,
    /// Posts holding it, over every searched index.
    pub doc_freq: u64,
    /// Whether it is common ([`COMMON_SHARE`]), or a negation ([`super::intent::is_negation`]):
    /// either way it tells little about what is sought.
    pub common: bool,
    /// When no searched index holds it: its nearest dictionary words, first from the
    /// indexes whose language the query's other words speak ([`neighbours`]), the most
    /// frequent first (at most [`MAX_NEIGHBOURS`]).
    pub neighbours: Vec<Neighbour>,
}

/// A dictionary word near a missing query word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    /// The dictionary word.
    pub word: String,
    /// Posts holding it, over the indexes it was found in ([`neighbours`]).
    pub doc_freq: u64,
}

impl QueryWord {
    /// Whether no searched index holds the word.
    pub fn is_missing(&self) -> bool {
        self.doc_freq == 0
    }
}

/// The distinct words of `text` that count, with the neighbours of the first
/// [`MAX_TYPO_WORDS`] missing ones that can have any. Of a query of more than
/// [`MAX_QUERY_WORDS`] distinct words, the common ones go first, the last first, then the
/// last of the others: "can I buy into rental property abroad with crypto through
/// realtyreturns" keeps the project's name, its 11th word, and leaves out "through".
pub fn query_words(
    searchers: &[&Searcher],
    spell: Field,
    text: &str,
) -> Result<Vec<QueryWord>, SearchError> {
    let mut plain = analysis::plain_analyzer();
    let posts: u64 = searchers.iter().map(|s| s.num_docs()).sum();
    let common_above = ((posts as f64 * COMMON_SHARE) as u64).max(COMMON_MIN_POSTS);
    let mut words: Vec<QueryWord> = Vec::new();
    for (word, range) in analysis::terms(&mut plain, text) {
        if words.len() == READ_QUERY_WORDS {
            break;
        }
        if words.iter().any(|w| w.plain == word) {
            continue;
        }
        let doc_freq = doc_freq(searchers, &Term::from_field_text(spell, &word))?;
        let common = doc_freq > common_above || intent::is_negation(&word);
        words.push(QueryWord {
            plain: word,
            range,
            doc_freq,
            common,
            neighbours: Vec::new(),
        });
    }
    while words.len() > MAX_QUERY_WORDS {
        match words.iter().rposition(|w| w.common) {
            Some(at) => words.remove(at),
            None => words.remove(words.len() - 1),
        };
    }
    let typo_words: Vec<usize> = (0..words.len())
        .filter(|&at| words[at].is_missing() && can_have_typo(&words[at].plain))
        .take(MAX_TYPO_WORDS)
        .collect();
    if typo_words.is_empty() {
        return Ok(words);
    }
    let speaking = speaking(searchers, spell, &words)?;
    for at in typo_words {
        words[at].neighbours = neighbours(searchers, &speaking, spell, &words[at].plain)?;
    }
    Ok(words)
}

/// The query with each missing word that has a neighbour replaced by its most frequent
/// one; `None` when no word has one.
pub fn suggestion(text: &str, words: &[QueryWord]) -> Option<String> {
    let mut replacements: Vec<(&Range<usize>, &str)> = words
        .iter()
        .filter_map(|w| Some((&w.range, w.neighbours.first()?.word.as_str())))
        .collect();
    if replacements.is_empty() {
        return None;
    }
    replacements.sort_by_key(|(range, _)| range.start);
    let mut corrected = text.to_owned();
    for (range, word) in replacements.into_iter().rev() {
        corrected.replace_range(range.clone(), word);
    }
    Some(corrected)
}

/// The last resort when a query finds nothing: each rare word (held by at most 2 posts)
/// replaced by a neighbour at least 10 times as frequent. `None` when no word has one.
pub fn rare_word_correction(
    searchers: &[&Searcher],
    spell: Field,
    text: &str,
    words: &[QueryWord],
) -> Result<Option<String>, SearchError> {
    let mut replaced: Vec<QueryWord> = Vec::new();
    let mut speaking_dictionaries = None;
    for word in words {
        if word.is_missing() || word.doc_freq > RARE_POSTS || !can_have_typo(&word.plain) {
            continue;
        }
        let speaking_dictionaries = match &mut speaking_dictionaries {
            Some(found) => found,
            None => speaking_dictionaries.insert(speaking(searchers, spell, words)?),
        };
        let best = neighbours(searchers, speaking_dictionaries, spell, &word.plain)?;
        if let Some(neighbour) = best.into_iter().next()
            && neighbour.doc_freq >= 10 * word.doc_freq
        {
            replaced.push(QueryWord {
                neighbours: vec![neighbour],
                ..word.clone()
            });
        }
    }
    Ok(suggestion(text, &replaced))
}

/// The dictionary words near `word`: within one edit in the dictionaries of the
/// `speaking` indexes ([`speaking`]), else within one edit in every searched index's (the
/// language indexes are not exact: a post can sit in another language's index, and its
/// words with it), else, for a long word, within two edits, in the same order.
fn neighbours(
    searchers: &[&Searcher],
    speaking: &[&Searcher],
    spell: Field,
    word: &str,
) -> Result<Vec<Neighbour>, SearchError> {
    let long = word.chars().count() >= TWO_EDIT_LETTERS;
    for distance in [1, 2].into_iter().filter(|&d| d == 1 || long) {
        let found = nearest(speaking, spell, word, distance)?;
        if !found.is_empty() {
            return Ok(found);
        }
        if speaking.len() < searchers.len() {
            let found = nearest(searchers, spell, word, distance)?;
            if !found.is_empty() {
                return Ok(found);
            }
        }
    }
    Ok(Vec::new())
}

/// The indexes (one per language) whose language the query's held words speak: those under
/// which the words are, together, at most [`SPEAKING_MARGIN`] less likely than under the
/// likeliest. An index's likelihood of a word is the share of its posts holding it,
/// smoothed towards the whole corpus's share ([`SPEAKING_PRIOR_SHARE`]): a word every
/// language uses ("bitcoin") narrows little, a word of one language ("cuando") much. Rare
/// words ([`RARE_POSTS`]) do not count; with no other held word, every index.
fn speaking<'a>(
    searchers: &[&'a Searcher],
    spell: Field,
    words: &[QueryWord],
) -> Result<Vec<&'a Searcher>, SearchError> {
    let held: Vec<&QueryWord> = words.iter().filter(|w| w.doc_freq > RARE_POSTS).collect();
    let posts: u64 = searchers.iter().map(|s| s.num_docs()).sum();
    if held.is_empty() || searchers.len() < 2 || posts == 0 {
        return Ok(searchers.to_vec());
    }
    let prior = (posts as f64 * SPEAKING_PRIOR_SHARE).clamp(1.0, SPEAKING_PRIOR_MAX_POSTS);
    let mut likelihoods = Vec::with_capacity(searchers.len());
    for searcher in searchers {
        let mut likelihood = 0.0;
        for word in &held {
            let share = word.doc_freq as f64 / posts as f64;
            let holding = searcher.doc_freq(&Term::from_field_text(spell, &word.plain))?;
            likelihood +=
                ((holding as f64 + prior * share) / (searcher.num_docs() as f64 + prior)).ln();
        }
        likelihoods.push(likelihood);
    }
    let likeliest = likelihoods.iter().copied().fold(f64::MIN, f64::max);
    Ok(searchers
        .iter()
        .zip(&likelihoods)
        .filter(|&(_, &likelihood)| likelihood >= likeliest - SPEAKING_MARGIN)
        .map(|(&searcher, _)| searcher)
        .collect())
}

/// Whether a word may be a typo: 4+ letters, no digits, no CJK characters.
fn can_have_typo(word: &str) -> bool {
    word.chars().count() >= MIN_TYPO_LETTERS
        && !word.chars().any(|c| c.is_numeric() || analysis::is_cjk(c))
}

fn doc_freq(searchers: &[&Searcher], term: &Term) -> Result<u64, SearchError> {
    let mut total = 0;
    for searcher in searchers {
        total += searcher.doc_freq(term)?;
    }
    Ok(total)
}

/// The other dictionary words within `distance` of `word`, the most frequent first (ties:
/// alphabetical), at most [`MAX_NEIGHBOURS`]. One automaton walks every segment's
/// dictionary, among the words of the first letter of `word` only (a small part of a
/// dictionary, where a walk of all reads every first letter's). Within one edit, the edits
/// of the first letter itself are looked up one by one ([`first_letter_edits`]), which
/// finds the same words as a walk of all, for a word of one alphabet (Latin, Cyrillic,
/// Greek); other words get the walk of all. Two edits keep the first letter, as Lucene's
/// `DirectSpellChecker` (`minPrefix` 1) does.
fn nearest(
    searchers: &[&Searcher],
    field: Field,
    word: &str,
    distance: u8,
) -> Result<Vec<Neighbour>, SearchError> {
    let query = FuzzyTermQuery::new(Term::from_field_text(field, word), distance, true);
    let automaton = query.automaton()?;
    let mut frequencies: HashMap<String, u64> = HashMap::new();
    let range = first_letter_range(word);
    // Within one edit, the first letter's own edits are looked up when it has an alphabet.
    let edits_of = alphabet_of(word).filter(|_| distance == 1 && range.is_some());
    let walk_all = distance == 1 && edits_of.is_none();
    let within = range.as_ref().filter(|_| !walk_all);
    walk(searchers, field, word, &automaton, within, &mut frequencies)?;
    if let Some(alphabet) = edits_of {
        for edit in first_letter_edits(word, alphabet) {
            let found = doc_freq(searchers, &Term::from_field_text(field, &edit))?;
            if found > 0 {
                frequencies.insert(edit, found);
            }
        }
    }
    let mut found: Vec<Neighbour> = frequencies
        .into_iter()
        .map(|(word, doc_freq)| Neighbour { word, doc_freq })
        .collect();
    found.sort_by(|a, b| b.doc_freq.cmp(&a.doc_freq).then(a.word.cmp(&b.word)));
    found.truncate(MAX_NEIGHBOURS);
    Ok(found)
}

/// The lowercase letters of the one alphabet every letter of `word` belongs to (Latin as the
/// dictionary folds it, Cyrillic, Greek), when there is one.
fn alphabet_of(word: &str) -> Option<&'static [char]> {
    const LATIN: [char; 26] = [
        'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r',
        's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
    ];
    const CYRILLIC: [char; 33] = [
        'а', 'б', 'в', 'г', 'д', 'е', 'ё', 'ж', 'з', 'и', 'й', 'к', 'л', 'м', 'н', 'о', 'п', 'р',
        'с', 'т', 'у', 'ф', 'х', 'ц', 'ч', 'ш', 'щ', 'ъ', 'ы', 'ь', 'э', 'ю', 'я',
    ];
    const GREEK: [char; 25] = [
        'α', 'β', 'γ', 'δ', 'ε', 'ζ', 'η', 'θ', 'ι', 'κ', 'λ', 'μ', 'ν', 'ξ', 'ο', 'π', 'ρ', 'ς',
        'σ', 'τ', 'υ', 'φ', 'χ', 'ψ', 'ω',
    ];
    [&LATIN[..], &CYRILLIC[..], &GREEK[..]]
        .into_iter()
        .find(|alphabet| word.chars().all(|c| alphabet.contains(&c)))
}

/// Adds to `frequencies` the dictionary words that `automaton` accepts (other than `word`),
/// within `range` (byte strings, from inclusive to exclusive) when given.
fn walk(
    searchers: &[&Searcher],
    field: Field,
    word: &str,
    automaton: &DfaWrapper,
    range: Option<&(Vec<u8>, Vec<u8>)>,
    frequencies: &mut HashMap<String, u64>,
) -> Result<(), SearchError> {
    for searcher in searchers {
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field)?;
            let mut builder = inverted.terms().search(automaton);
            if let Some((from, to)) = range {
                builder = builder.ge(from).lt(to);
            }
            let mut stream = builder
                .into_stream()
                .map_err(|e| SearchError::Index(e.to_string()))?;
            while stream.advance() {
                let Ok(candidate) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                if candidate != word {
                    *frequencies.entry(candidate.to_owned()).or_default() +=
                        u64::from(stream.value().doc_freq);
                }
            }
        }
    }
    Ok(())
}

/// The words one edit of the first letter away from `word`, in `alphabet`: that letter
/// replaced by another, a letter put before it, the letter dropped, or the first two letters
/// swapped. Every other edit keeps the first letter.
fn first_letter_edits(word: &str, alphabet: &[char]) -> Vec<String> {
    let Some(first) = word.chars().next() else {
        return Vec::new();
    };
    let rest = &word[first.len_utf8()..];
    let mut edits: Vec<String> = Vec::new();
    for &letter in alphabet {
        if letter != first {
            edits.push(format!("{letter}{rest}"));
        }
        edits.push(format!("{letter}{word}"));
    }
    if !rest.is_empty() {
        edits.push(rest.to_owned());
    }
    if let Some(second) = rest.chars().next()
        && second != first
    {
        edits.push(format!("{second}{first}{}", &rest[second.len_utf8()..]));
    }
    edits
}

/// The byte strings that begin with the first letter of `word`: from the letter (inclusive)
/// to the next byte string of its length (exclusive). `None` for an empty word or a letter
/// whose bytes are all 0xFF.
fn first_letter_range(word: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let first = word.chars().next()?;
    let from = first.to_string().into_bytes();
    let mut to = from.clone();
    while let Some(last) = to.pop() {
        if last < u8::MAX {
            to.push(last + 1);
            return Some((from, to));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(plain: &str, range: Range<usize>, neighbours: &[&str]) -> QueryWord {
        QueryWord {
            plain: plain.to_owned(),
            range,
            doc_freq: 0,
            common: false,
            neighbours: neighbours
                .iter()
                .map(|w| Neighbour {
                    word: (*w).to_owned(),
                    doc_freq: 1,
                })
                .collect(),
        }
    }

    #[test]
    fn suggestions_replace_each_missing_word_by_its_best_neighbour() {
        let text = "Mining dificulty retargt";
        let words = [
            word("mining", 0..6, &[]),
            word("dificulty", 7..16, &["difficulty", "dificult"]),
            word("retargt", 17..24, &["retarget"]),
        ];
        assert_eq!(
            suggestion(text, &words).as_deref(),
            Some("Mining difficulty retarget")
        );
        assert_eq!(suggestion(text, &words[..1]), None);
    }

    #[test]
    fn first_letter_edits_are_the_edits_that_change_the_first_letter() {
        let latin = alphabet_of("vitcoin").unwrap();
        let edits = first_letter_edits("vitcoin", latin);
        for expected in ["bitcoin", "avitcoin", "itcoin", "ivtcoin"] {
            assert!(edits.iter().any(|e| e == expected), "{expected}");
        }
        assert!(!edits.iter().any(|e| e == "vitcoin"));
        assert!(
            edits
                .iter()
                .all(|e| !e.starts_with('v') || e.starts_with("vv"))
        );
        assert_eq!(edits.len(), 25 + 26 + 1 + 1);
        let cyrillic = alphabet_of("биткоин").unwrap();
        let edits = first_letter_edits("биткоин", cyrillic);
        assert!(edits.iter().any(|e| e == "виткоин"));
        assert!(edits.iter().any(|e| e == "иткоин"));
        assert_eq!(alphabet_of("bitcoin2"), None);
        assert_eq!(alphabet_of("bitкоин"), None);
    }

    #[test]
    fn the_first_letter_range_holds_exactly_the_words_of_that_letter() {
        let (from, to) = first_letter_range("bitcoim").unwrap();
        for inside in ["b", "bitcoin", "bzzz"] {
            assert!(from.as_slice() <= inside.as_bytes() && inside.as_bytes() < to.as_slice());
        }
        for outside in ["a", "azzz", "c", "cash"] {
            let bytes = outside.as_bytes();
            assert!(
                bytes < from.as_slice() || bytes >= to.as_slice(),
                "{outside}"
            );
        }
        let (from, to) = first_letter_range("жизнь").unwrap();
        assert!(from.as_slice() <= "жаба".as_bytes() && "жаба".as_bytes() < to.as_slice());
        assert!("зима".as_bytes() >= to.as_slice());
        assert_eq!(first_letter_range(""), None);
    }

    #[test]
    fn short_numeric_and_cjk_words_are_not_typos() {
        assert!(can_have_typo("bitcoim"));
        assert!(!can_have_typo("btc"));
        assert!(!can_have_typo("s9k2"));
        assert!(!can_have_typo("比特币挖矿"));
    }
}
