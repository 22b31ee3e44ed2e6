//! `<mark>`ed fragments of the title and text of each returned hit. A long text is
//! highlighted in a window around its densest matches instead of analysed whole: the
//! fragment is at most 200 characters, and analysing a long announcement whole cost more
//! than the rest of its search.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use aho_corasick::AhoCorasick;
use tantivy::Term;
use tantivy::query::Query;
use tantivy::schema::Field;
use tantivy::snippet::SnippetGenerator;

use super::{Hit, Target};
use crate::index::Fields;
use crate::{SearchError, analysis};

/// Texts up to this many bytes are highlighted whole (the window of a longer one is as
/// long).
const WHOLE_BYTES: usize = 600;
/// The window of a longer text, in bytes, around its densest matches (three times the
/// longest fragment).
const WINDOW_BYTES: usize = 600;
/// Occurrences of each term looked at when choosing the window.
const OCCURRENCES: usize = 64;

/// Fills `highlight` with `<mark>`ed fragments of title and content.
pub(super) fn highlight(
    targets: &[Target],
    queries: &[Option<Box<dyn Query>>],
    fields: &Fields,
    hits: &mut [(usize, Hit)],
) -> Result<(), SearchError> {
    let mut generators: HashMap<(usize, u32), SnippetGenerator> = HashMap::new();
    let mut needles: HashMap<usize, Needles> = HashMap::new();
    for (at, hit) in hits.iter_mut() {
        let Some(Some(query)) = queries.get(*at) else {
            continue;
        };
        let needles = needles.entry(*at).or_insert_with(|| {
            let mut terms = Vec::new();
            query.query_terms(&mut |term, _| {
                if term.field() == fields.content
                    && let Some(text) = term.value().as_str()
                    && !terms.iter().any(|t: &String| t == text)
                {
                    terms.push(needle(text).to_owned());
                }
            });
            Needles::new(terms)
        });
        for (name, field, max_chars) in [
            ("title", fields.title_text, 300),
            ("content", fields.content, 200),
        ] {
            let key = (*at, field.field_id());
            let generator = match generators.entry(key) {
                Entry::Occupied(entry) => entry.into_mut(),
                Entry::Vacant(entry) => {
                    entry.insert(generator(&targets[*at], &**query, field, max_chars)?)
                }
            };
            let whole = if name == "title" {
                &hit.title
            } else {
                &hit.content
            };
            let source = if name == "title" {
                whole
            } else {
                window(whole, needles)
            };
            let mut snippet = generator.snippet(source);
            if snippet.highlighted().is_empty() && source.len() < whole.len() {
                // The needles found only look-alikes there ("how" in "however"): the whole
                // text, then.
                snippet = generator.snippet(whole);
            }
            if snippet.highlighted().is_empty() {
                continue;
            }
            snippet.set_snippet_prefix_postfix("<mark>", "</mark>");
            hit.highlight
                .insert(name.to_owned(), vec![snippet.to_html()]);
        }
    }
    Ok(())
}

/// The snippet generator of `query`'s terms of `field` in `target`: as tantivy's
/// `SnippetGenerator::create` makes it (each term weighs by its rarity), with an analyzer
/// that stems only the words that can match ([`analysis::highlight_analyzer`]).
fn generator(
    target: &Target,
    query: &dyn Query,
    field: Field,
    max_chars: usize,
) -> Result<SnippetGenerator, SearchError> {
    let mut terms: Vec<Term> = Vec::new();
    query.query_terms(&mut |term, _| {
        if term.field() == field && !terms.contains(term) {
            terms.push(term.clone());
        }
    });
    let mut weights: BTreeMap<String, f32> = BTreeMap::new();
    for term in &terms {
        let value = term.value();
        let Some(text) = value.as_str() else {
            continue;
        };
        let doc_freq = target.searcher.doc_freq(term)?;
        if doc_freq > 0 {
            weights.insert(text.to_owned(), 1.0 / (1.0 + doc_freq as f32));
        }
    }
    let texts: Vec<String> = weights.keys().cloned().collect();
    let analyzer = analysis::highlight_analyzer(&target.index.key, &texts);
    Ok(SnippetGenerator::new(weights, analyzer, field, max_chars))
}

/// What finds a term's words in a text: the stem without its last letter when it has 5+
/// letters (`difficulti` -> `difficult` finds "difficulty"), else its first 3 (`mine` ->
/// `min` finds "mining").
fn needle(stem: &str) -> &str {
    let letters = stem.chars().count();
    let keep = if letters >= 5 {
        letters - 1
    } else {
        letters.min(3)
    };
    let end = stem
        .char_indices()
        .nth(keep)
        .map_or(stem.len(), |(at, _)| at);
    &stem[..end]
}

/// `text` when short; else the [`WINDOW_BYTES`] of it holding the most distinct `needles`
/// (see [`needle`]), found by a case-insensitive search. The whole text when no needle is found that way (a folded
/// accent, a stem that is no prefix).
fn window<'a>(text: &'a str, needles: &Needles) -> &'a str {
    if text.len() <= WHOLE_BYTES {
        return text;
    }
    let mut found = needles.occurrences(text);
    if found.is_empty() {
        return text;
    }
    found.sort_unstable();
    let mut best = (0, found[0].0);
    for (i, &(start, _)) in found.iter().enumerate() {
        let mut distinct: Vec<usize> = found[i..]
            .iter()
            .take_while(|(at, _)| *at < start + WINDOW_BYTES / 2)
            .map(|(_, which)| *which)
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() > best.0 {
            best = (distinct.len(), start);
        }
    }
    let start = char_boundary_at_or_before(text, best.1.saturating_sub(WINDOW_BYTES / 2));
    let end = char_boundary_at_or_before(text, (start + WINDOW_BYTES).min(text.len()));
    &text[start..end]
}

/// The needles of one query's terms (see [`needle`]), with their case-insensitive finder
/// when all are ASCII: built once per query, not per hit.
struct Needles {
    words: Vec<String>,
    ascii: Option<AhoCorasick>,
}

impl Needles {
    fn new(words: Vec<String>) -> Self {
        let ascii = if words.iter().all(|n| n.is_ascii()) {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&words)
                .ok()
        } else {
            None
        };
        Self { words, ascii }
    }

    /// Where the needles stand in `text`, as (byte offset, needle), at most [`OCCURRENCES`]
    /// per needle, found case-insensitively: in one pass when every needle is ASCII, else
    /// in a lowercased copy of the text.
    fn occurrences(&self, text: &str) -> Vec<(usize, usize)> {
        let mut found: Vec<(usize, usize)> = Vec::new();
        if let Some(finder) = &self.ascii {
            let mut per_needle = vec![0; self.words.len()];
            for hit in finder.find_overlapping_iter(text) {
                let which = hit.pattern().as_usize();
                if per_needle[which] < OCCURRENCES {
                    per_needle[which] += 1;
                    found.push((hit.start(), which));
                }
            }
            return found;
        }
        let lower = text.to_lowercase();
        // Lowercasing keeps byte offsets for nearly every script; when not, ASCII letters
        // only.
        let lower = if lower.len() == text.len() {
            lower
        } else {
            text.to_ascii_lowercase()
        };
        for (which, needle) in self.words.iter().enumerate() {
            found.extend(
                lower
                    .match_indices(needle.as_str())
                    .take(OCCURRENCES)
                    .map(|(at, _)| (at, which)),
            );
        }
        found
    }
}

/// The largest character boundary of `text` at or before byte `at`.
fn char_boundary_at_or_before(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_highlighted_whole() {
        assert_eq!(
            window("a short post", &Needles::new(vec!["post".to_owned()])),
            "a short post"
        );
    }

    #[test]
    fn long_texts_are_cut_around_their_densest_matches() {
        let filler = "lorem ipsum dolor ".repeat(400);
        let text = format!("{filler} Mining difficulty retarget {filler} difficulty alone");
        let needles: Vec<String> = ["difficulti", "mine", "retarget"]
            .into_iter()
            .map(|stem| needle(stem).to_owned())
            .collect();
        let cut = window(&text, &Needles::new(needles));
        assert!(cut.len() <= WINDOW_BYTES);
        assert!(cut.contains("Mining difficulty retarget"), "{cut}");
    }

    #[test]
    fn needles_are_prefixes_of_the_words_of_a_stem() {
        assert_eq!(needle("difficulti"), "difficult");
        assert_eq!(needle("mine"), "min");
        assert_eq!(needle("ab"), "ab");
        assert_eq!(needle("биткоин"), "биткои");
    }

    #[test]
    fn a_long_text_without_any_needle_stays_whole() {
        let text = "Größe ".repeat(1_000);
        assert_eq!(
            window(&text, &Needles::new(vec!["unrelated".to_owned()])),
            text
        );
    }

    #[test]
    fn windows_end_on_character_boundaries() {
        let text = format!("{}bitcoin{}", "ж".repeat(2_000), "ж".repeat(2_000));
        let cut = window(&text, &Needles::new(vec!["bitcoin".to_owned()]));
        assert!(cut.contains("bitcoin"));
    }
}
