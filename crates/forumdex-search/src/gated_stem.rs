//! Stemming only the English words that can stem to one of a few terms: what highlighting
//! needs.
//!
//! A snippet marks the words whose terms are the query's. Analysing a hit's text stems
//! every word, and the Snowball stemmer was the largest single cost of a search (about a
//! tenth of its CPU). An English word can only stem to a term when it starts like it:
//! Porter2 strips and rewrites endings, never the first two letters (it does rewrite a
//! third: "crying" is `cri`), and a shorter stem is the start of its word, apart from a few
//! irregular forms it lists ("dying" is `die`). So [`GatedStemmer`] stems a word only when
//! it starts with the first two letters of one of the terms, is not ASCII, or is one of
//! those forms; every other word keeps its text, which cannot equal a term it does not
//! start like. Marks are the same as with every word stemmed. Other languages' stemmers
//! may strip beginnings too (Dutch "gebakken" is `bak`), so their words are all stemmed.

use std::borrow::Cow;
use std::sync::Arc;

use tantivy::tokenizer::{Language, Token, TokenFilter, TokenStream, Tokenizer};

/// Letters of a term a word must start with to be stemmed.
const GATE_LETTERS: usize = 2;
/// English words whose stems do not start with their first two letters (Porter2's
/// exceptional forms).
const ENGLISH_IRREGULAR: &[&str] = &["dying", "lying", "skies", "tying"];

/// A token filter stemming, in English, the words that can stem to one of some terms.
#[derive(Clone, Debug)]
pub struct GatedStemmer {
    starts: Arc<[String]>,
}

impl GatedStemmer {
    /// Whether words of `language` that cannot stem to a term are known by their start.
    pub fn holds_for(language: Language) -> bool {
        language == Language::English
    }

    /// The English stemmer for highlighting `terms` (English stems).
    pub fn english(terms: &[String]) -> Self {
        let mut starts: Vec<String> = terms
            .iter()
            .map(|term| term.chars().take(GATE_LETTERS).collect())
            .collect();
        starts.sort_unstable();
        starts.dedup();
        Self {
            starts: starts.into(),
        }
    }

    fn may_stem_to_a_term(&self, word: &str) -> bool {
        !word.is_ascii()
            || self
                .starts
                .iter()
                .any(|start| word.starts_with(start.as_str()))
            || ENGLISH_IRREGULAR.contains(&word)
    }
}

impl TokenFilter for GatedStemmer {
    type Tokenizer<T: Tokenizer> = GatedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> GatedStemmerFilter<T> {
        GatedStemmerFilter {
            gate: self,
            inner: tokenizer,
        }
    }
}

/// [`GatedStemmer`] applied to a tokenizer.
#[derive(Clone)]
pub struct GatedStemmerFilter<T> {
    gate: GatedStemmer,
    inner: T,
}

impl<T: Tokenizer> Tokenizer for GatedStemmerFilter<T> {
    type TokenStream<'a> = GatedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        GatedStemmerStream {
            tail: self.inner.token_stream(text),
            gate: &self.gate,
            stemmer: None,
        }
    }
}

/// The tokens of one text, stemmed where they may stem to a term.
pub struct GatedStemmerStream<'a, T> {
    tail: T,
    gate: &'a GatedStemmer,
    /// Made at the first word to stem.
    stemmer: Option<frostem::Stemmer>,
}

impl<T: TokenStream> TokenStream for GatedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if self.gate.may_stem_to_a_term(&token.text) {
            let stemmer = self
                .stemmer
                .get_or_insert_with(|| frostem::Stemmer::new(frostem::Algorithm::English));
            if let Cow::Owned(stem) = stemmer.stem(&token.text) {
                token.text = stem;
            }
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}
