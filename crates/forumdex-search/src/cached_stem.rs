//! Stemming with a memo of the words already stemmed: what indexing needs.
//!
//! Words recur (a forum's vocabulary is small next to its text), and the Snowball stemmer
//! took 3.8% of the 1.4M-post import's CPU, a seventh of the indexing threads'.
//! [`CachedStemmer`] stems each distinct word once per analyzer and reuses the stem
//! afterwards (1.9% with the lookups); the terms are exactly those of tantivy's `Stemmer`.
//! Each analyzer (tantivy clones one per field of a segment being written) keeps its own
//! memo, cleared when it reaches [`MEMO_WORDS`] words, so one-off tokens (addresses,
//! hashes) cannot make it grow without bound.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Language, Token, TokenFilter, TokenStream, Tokenizer};

/// Words remembered by one analyzer before its memo is cleared (a few MB at most).
const MEMO_WORDS: usize = 100_000;

/// A token filter stemming like tantivy's `Stemmer`, remembering each word's stem.
#[derive(Clone, Copy, Debug)]
pub struct CachedStemmer {
    language: Language,
}

impl CachedStemmer {
    /// The stemmer of `language`.
    pub fn new(language: Language) -> Self {
        Self { language }
    }
}

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            stemmer: frostem::Stemmer::new(algorithm(self.language)),
            memo: FxHashMap::default(),
            inner: tokenizer,
        }
    }
}

/// [`CachedStemmer`] applied to a tokenizer. A clone starts with an empty memo.
pub struct CachedStemmerFilter<T> {
    stemmer: frostem::Stemmer,
    /// Each word seen and its stem; `None` when the stem is the word itself.
    memo: FxHashMap<String, Option<String>>,
    inner: T,
}

impl<T: Clone> Clone for CachedStemmerFilter<T> {
    fn clone(&self) -> Self {
        Self {
            stemmer: self.stemmer,
            memo: FxHashMap::default(),
            inner: self.inner.clone(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stemmer: self.stemmer,
            memo: &mut self.memo,
        }
    }
}

/// The tokens of one text, stemmed.
pub struct CachedStemmerStream<'a, T> {
    tail: T,
    stemmer: frostem::Stemmer,
    memo: &'a mut FxHashMap<String, Option<String>>,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let stem = match self.memo.get(&token.text) {
            Some(stem) => stem,
            None => {
                if self.memo.len() >= MEMO_WORDS {
                    self.memo.clear();
                }
                let stem = match self.stemmer.stem(&token.text) {
                    Cow::Borrowed(stem) if stem == token.text => None,
                    stem => Some(stem.into_owned()),
                };
                self.memo.entry(token.text.clone()).or_insert(stem)
            }
        };
        if let Some(stem) = stem {
            token.text.clear();
            token.text.push_str(stem);
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

/// frostem's algorithm for tantivy's `language` (tantivy keeps its own mapping private).
fn algorithm(language: Language) -> frostem::Algorithm {
    use frostem::Algorithm as A;
    match language {
        Language::Arabic => A::Arabic,
        Language::Danish => A::Danish,
        Language::Dutch => A::Dutch,
        Language::English => A::English,
        Language::Finnish => A::Finnish,
        Language::French => A::French,
        Language::German => A::German,
        Language::Greek => A::Greek,
        Language::Hungarian => A::Hungarian,
        Language::Italian => A::Italian,
        Language::Norwegian => A::Norwegian,
        Language::Portuguese => A::Portuguese,
        Language::Romanian => A::Romanian,
        Language::Russian => A::Russian,
        Language::Spanish => A::Spanish,
        Language::Swedish => A::Swedish,
        Language::Tamil => A::Tamil,
        Language::Turkish => A::Turkish,
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{SimpleTokenizer, Stemmer, TextAnalyzer};

    use super::*;
    use crate::analysis::stemmer_for;

    fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.offset_from, t.position));
        }
        out
    }

    #[test]
    fn stems_like_tantivys_stemmer_in_every_language() {
        let text = "running runs ran runner's Größe größten culturing cultures connection \
                    connections généralement nationalité машины машина yapılıyor \
                    gebakken bakken دراسات running runs";
        let keys = [
            "en", "ar", "da", "nl", "fi", "fr", "de", "el", "hu", "it", "no", "pt", "ro", "ru",
            "es", "sv", "ta", "tr",
        ];
        for key in keys {
            let language = stemmer_for(key).expect("a stemmer");
            let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(Stemmer::new(language))
                .build();
            let mut cached = TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(CachedStemmer::new(language))
                .build();
            // Twice: the second text is stemmed from the memo.
            for _ in 0..2 {
                assert_eq!(terms(&mut cached, text), terms(&mut plain, text), "{key}");
            }
        }
    }

    #[test]
    fn the_memo_is_bounded_and_a_full_memo_still_stems() {
        let mut filter =
            CachedStemmer::new(Language::English).transform(SimpleTokenizer::default());
        let words: String = (0..MEMO_WORDS + 10).map(|i| format!("w{i}ing ")).collect();
        {
            let mut stream = filter.token_stream(&words);
            while stream.advance() {}
        }
        assert!(filter.memo.len() <= MEMO_WORDS);
        let mut stream = filter.token_stream("connections connections");
        let mut stems = Vec::new();
        while stream.advance() {
            stems.push(stream.token().text.clone());
        }
        assert_eq!(stems, ["connect", "connect"]);
    }
}
