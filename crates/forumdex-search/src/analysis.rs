//! Languages and analyzers: which index a language code uses and how its text is cut into
//! terms.
//!
//! Every analyzer starts with [`WordTokenizer`] (words split on anything that is not a letter
//! or digit; Chinese, Japanese and Korean characters become single-character and two-character
//! terms, since no segmenter ships offline), drops terms over 40 bytes and lowercases. The
//! languages tantivy has a Snowball stemmer for then drop stop words and stem; every
//! analyzer folds accents to
//! ASCII last (`Größe` -> `grosse`, `café` -> `cafe`).

use tantivy::Index;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, StopWordFilter, TextAnalyzer,
    Token, TokenStream, Tokenizer,
};

use crate::cached_stem::CachedStemmer;
use crate::gated_stem::GatedStemmer;

/// The index of posts whose language is unknown (`null` in the corpus). It uses English
/// analysis: most undetected posts in the forum are short English replies.
pub const UNDETERMINED: &str = "und";

/// Name of the analyzer of `title` and `content` (per index, so it means a language's one).
pub const TEXT_ANALYZER: &str = "fdx_text";
/// Name of the analyzer of the spelling dictionary: the same words, never stemmed.
pub const PLAIN_ANALYZER: &str = "fdx_plain";

/// The index a post with corpus language `language` goes to: the two-letter base of a valid
/// code, else [`UNDETERMINED`].
pub fn index_key_for(language: Option<&str>) -> String {
    let Some(code) = language else {
        return UNDETERMINED.to_owned();
    };
    let base: String = code
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if base.len() == 2 && base.bytes().all(|b| b.is_ascii_lowercase()) {
        base
    } else {
        UNDETERMINED.to_owned()
    }
}

/// The Snowball stemmer of an index key, when tantivy ships one.
pub fn stemmer_for(key: &str) -> Option<Language> {
    Some(match key {
        "en" | UNDETERMINED => Language::English,
        "ar" => Language::Arabic,
        "da" => Language::Danish,
        "nl" => Language::Dutch,
        "fi" => Language::Finnish,
        "fr" => Language::French,
        "de" => Language::German,
        "el" => Language::Greek,
        "hu" => Language::Hungarian,
        "it" => Language::Italian,
        "no" | "nb" | "nn" => Language::Norwegian,
        "pt" => Language::Portuguese,
        "ro" => Language::Romanian,
        "ru" => Language::Russian,
        "es" => Language::Spanish,
        "sv" => Language::Swedish,
        "ta" => Language::Tamil,
        "tr" => Language::Turkish,
        _ => return None,
    })
}

/// Registers the analyzers of index `key` on `index` (they are not persisted by tantivy).
pub fn register(index: &Index, key: &str) {
    let manager = index.tokenizers();
    manager.register(TEXT_ANALYZER, text_analyzer(key));
    manager.register(PLAIN_ANALYZER, plain_analyzer());
}

/// The analyzer of `title` and `content` of index `key`: stop words are dropped and words
/// stemmed where tantivy has lists and a stemmer for the language.
pub fn text_analyzer(key: &str) -> TextAnalyzer {
    analyzer(key, None)
}

/// [`text_analyzer`] for highlighting `terms` (terms of index `key`): the same terms for
/// every word that can stem to one of them; in English, other words are left unstemmed
/// (they cannot match anyway), which spares the stemmer most of a text (see
/// [`crate::gated_stem`]).
pub fn highlight_analyzer(key: &str, terms: &[String]) -> TextAnalyzer {
    analyzer(key, Some(terms))
}

/// The text analyzer of index `key`, stemming every word, or with `highlighted` only those
/// that can stem to one of these terms.
fn analyzer(key: &str, highlighted: Option<&[String]>) -> TextAnalyzer {
    let mut builder = TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .dynamic();
    if let Some(language) = stemmer_for(key) {
        if let Some(stop_words) = StopWordFilter::new(language) {
            builder = builder.filter_dynamic(stop_words);
        }
        builder = match highlighted {
            Some(terms) if GatedStemmer::holds_for(language) => {
                builder.filter_dynamic(GatedStemmer::english(terms))
            }
            _ => builder.filter_dynamic(CachedStemmer::new(language)),
        };
    }
    builder.filter_dynamic(AsciiFoldingFilter).build()
}

/// The spelling dictionary's analyzer: words lowercased and folded, never stemmed.
pub fn plain_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The terms `analyzer` makes of `text`, with their byte ranges in `text`.
pub fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let token = stream.token();
        out.push((token.text.clone(), token.offset_from..token.offset_to));
    }
    out
}

/// Whether `c` is written without spaces between words (Han, kana, Hangul).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FFFF) // CJK extensions B-F
}

/// Splits text into words at every character that is not alphanumeric; runs of CJK
/// characters become each character plus each pair of neighbours (unigrams + bigrams).
#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

/// The tokens of one text, found as they are asked for: no token is allocated (the text of
/// each is written into the one reused [`Token`]).
pub struct WordTokenStream<'a> {
    text: &'a str,
    chars: std::str::CharIndices<'a>,
    /// Where the word being read started.
    word_start: Option<usize>,
    /// Where the previous character started, when it was CJK.
    previous_cjk: Option<usize>,
    /// Byte ranges found and not yet handed out (a CJK character ends the word before it
    /// and makes a bigram and a unigram: at most three at once).
    pending: [(usize, usize); 3],
    pending_len: usize,
    pending_next: usize,
    position: usize,
    token: &'a mut Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordTokenStream<'a> {
        self.token.reset();
        WordTokenStream {
            text,
            chars: text.char_indices(),
            word_start: None,
            previous_cjk: None,
            pending: [(0, 0); 3],
            pending_len: 0,
            pending_next: 0,
            position: 0,
            token: &mut self.token,
        }
    }
}

impl WordTokenStream<'_> {
    fn queue(&mut self, from: usize, to: usize) {
        self.pending[self.pending_len] = (from, to);
        self.pending_len += 1;
    }

    /// Reads characters until at least one token is found; false at the end of the text.
    fn fill(&mut self) -> bool {
        self.pending_len = 0;
        self.pending_next = 0;
        while self.pending_len == 0 {
            let Some((at, c)) = self.chars.next() else {
                if let Some(start) = self.word_start.take() {
                    self.queue(start, self.text.len());
                    return true;
                }
                return false;
            };
            if is_cjk(c) {
                if let Some(start) = self.word_start.take() {
                    self.queue(start, at);
                }
                let end = at + c.len_utf8();
                if let Some(previous) = self.previous_cjk {
                    self.queue(previous, end);
                }
                self.queue(at, end);
                self.previous_cjk = Some(at);
            } else {
                self.previous_cjk = None;
                if c.is_alphanumeric() {
                    self.word_start.get_or_insert(at);
                } else if let Some(start) = self.word_start.take() {
                    self.queue(start, at);
                }
            }
        }
        true
    }
}

impl TokenStream for WordTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.pending_next == self.pending_len && !self.fill() {
            return false;
        }
        let (from, to) = self.pending[self.pending_next];
        self.pending_next += 1;
        let token = &mut *self.token;
        token.offset_from = from;
        token.offset_to = to;
        token.position = self.position;
        token.position_length = 1;
        token.text.clear();
        token.text.push_str(&self.text[from..to]);
        self.position += 1;
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(key: &str, text: &str) -> Vec<String> {
        terms(&mut text_analyzer(key), text)
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    #[test]
    fn stored_languages_pick_their_index() {
        assert_eq!(index_key_for(None), UNDETERMINED);
        assert_eq!(index_key_for(Some("zh-CN")), "zh");
        assert_eq!(index_key_for(Some("???")), UNDETERMINED);
    }

    #[test]
    fn analyzers_stem_fold_and_split_cjk() {
        assert_eq!(words("en", "Mining the Miners"), ["mine", "miner"]);
        assert_eq!(words("de", "Größe"), ["gross"]);
        assert_eq!(words("ru", "Биткоины"), ["биткоин"]);
        assert_eq!(words("pl", "Zażółć"), ["zazolc"]);
        assert_eq!(
            words("zh", "比特币abc"),
            ["比", "比特", "特", "特币", "币", "abc"]
        );
    }

    /// Texts with stems that change their words' ends (y to i, undoubled consonants,
    /// umlauts folded after stemming) and English's irregular forms.
    const HIGHLIGHTED: &[(&str, &str)] = &[
        (
            "en",
            "Happily the universities' difficulty retargeting was generously dying, lying and \
             tying skies: mining miners mined news, only early, gently, ugly singly idly. \
             Bitcoin's hashrate hashing cried crying studies studying",
        ),
        (
            "de",
            "Die Größe der Entwicklungen wurde schneller entwickelt, Häuser und Bäume wachsen",
        ),
        // Prefixes stripped: every word is stemmed.
        ("nl", "De bakken werden gebakken en de katten liepen snel"),
        (
            "ru",
            "Разработчики разрабатывают разработку биткоинов быстро",
        ),
        ("tr", "Kitabı okudum, kitaplar güzeldi ve çocuklar koştular"),
    ];

    #[test]
    fn highlighting_marks_the_same_words_as_full_stemming() {
        for (key, text) in HIGHLIGHTED {
            let full = terms(&mut text_analyzer(key), text);
            // Every stem of the text a term: each word must come out as full stemming has it.
            let every: Vec<String> = full.iter().map(|(t, _)| t.clone()).collect();
            assert_eq!(
                terms(&mut highlight_analyzer(key, &every), text),
                full,
                "{key}"
            );
            // One term at a time: the same words match it, the others do not.
            for term in &every {
                let gated = terms(
                    &mut highlight_analyzer(key, std::slice::from_ref(term)),
                    text,
                );
                assert_eq!(gated.len(), full.len(), "{key} {term}");
                for ((got, at), (want, want_at)) in gated.iter().zip(&full) {
                    assert_eq!(at, want_at);
                    assert_eq!(got == term, want == term, "{key} {term}: {got} for {want}");
                }
            }
        }
        // Unstemmed where nothing can match: "happily" stays itself.
        let gated = terms(
            &mut highlight_analyzer("en", &["mine".to_owned()]),
            "happily mining",
        );
        assert_eq!(gated[0].0, "happily");
        assert_eq!(gated[1].0, "mine");
    }

    #[test]
    fn tokens_carry_offsets_and_consecutive_positions() {
        let text = "Hi, 比特币 x2 日本語!";
        let mut tokenizer = WordTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut seen = Vec::new();
        while stream.advance() {
            let token = stream.token();
            assert_eq!(&text[token.offset_from..token.offset_to], token.text);
            seen.push((token.text.clone(), token.position));
        }
        let expected = [
            "Hi", "比", "比特", "特", "特币", "币", "x2", "日", "日本", "本", "本語", "語",
        ];
        assert_eq!(seen.len(), expected.len(), "{seen:?}");
        for (at, ((text, position), want)) in seen.iter().zip(expected).enumerate() {
            assert_eq!((text.as_str(), *position), (want, at));
        }
        assert!(!stream.advance(), "the end stays the end");
        let mut empty = tokenizer.token_stream("  ,. ");
        assert!(!empty.advance());
    }
}
