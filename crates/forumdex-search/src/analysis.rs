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
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter,
    TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// The index of posts whose language is unknown (`null` in the corpus). It uses English
/// analysis: most undetected posts in the forum are short English replies.
pub const UNDETERMINED: &str = "und";

/// Name of the analyzer of `title` and `content` (per index, so it means a language's one).
pub const TEXT_ANALYZER: &str = "fdx_text";
/// Name of the analyzer of the spelling dictionary: the same words, never stemmed.
pub const PLAIN_ANALYZER: &str = "fdx_plain";

/// A request's language: `xx` or `xx-YY` (api-contract.md), lowercase language first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LangCode(String);

impl LangCode {
    /// Parses `^[a-z]{2}(?:-[A-Z]{2})?$`.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        let base_ok = bytes.len() >= 2 && bytes[..2].iter().all(u8::is_ascii_lowercase);
        let region_ok = match bytes.len() {
            2 => true,
            5 => bytes[2] == b'-' && bytes[3..].iter().all(u8::is_ascii_uppercase),
            _ => false,
        };
        (base_ok && region_ok).then(|| Self(text.to_owned()))
    }

    /// The code as given (`pt-BR`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The index it selects: the language without its region (`pt-BR` -> `pt`).
    pub fn index_key(&self) -> &str {
        &self.0[..2]
    }
}

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
    let mut builder = TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .dynamic();
    if let Some(language) = stemmer_for(key) {
        if let Some(stop_words) = StopWordFilter::new(language) {
            builder = builder.filter_dynamic(stop_words);
        }
        builder = builder.filter_dynamic(Stemmer::new(language));
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

/// The tokens of one text, computed up front.
pub struct WordTokenStream<'a> {
    tokens: Vec<Token>,
    next: usize,
    token: &'a mut Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordTokenStream<'a> {
        self.token.reset();
        WordTokenStream {
            tokens: tokenize(text),
            next: 0,
            token: &mut self.token,
        }
    }
}

impl TokenStream for WordTokenStream<'_> {
    fn advance(&mut self) -> bool {
        match self.tokens.get_mut(self.next) {
            Some(token) => {
                *self.token = std::mem::take(token);
                self.next += 1;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let push = |from: usize, to: usize, tokens: &mut Vec<Token>| {
        let position = tokens.len();
        tokens.push(Token {
            offset_from: from,
            offset_to: to,
            position,
            text: text[from..to].to_owned(),
            position_length: 1,
        });
    };
    let mut word_start: Option<usize> = None;
    let mut previous_cjk: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(start) = word_start.take() {
                push(start, at, &mut tokens);
            }
            let end = at + c.len_utf8();
            if let Some(prev) = previous_cjk {
                push(prev, end, &mut tokens);
            }
            push(at, end, &mut tokens);
            previous_cjk = Some(at);
        } else {
            previous_cjk = None;
            if c.is_alphanumeric() {
                word_start.get_or_insert(at);
            } else if let Some(start) = word_start.take() {
                push(start, at, &mut tokens);
            }
        }
    }
    if let Some(start) = word_start {
        push(start, text.len(), &mut tokens);
    }
    tokens
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
    fn lang_codes_follow_the_contract_pattern() {
        assert_eq!(LangCode::parse("pt-BR").unwrap().index_key(), "pt");
        assert_eq!(LangCode::parse("en").unwrap().index_key(), "en");
        for bad in ["EN", "e", "eng", "pt-br", "pt_BR", "pt-BRA", "", "zh-"] {
            assert!(LangCode::parse(bad).is_none(), "{bad}");
        }
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
}
