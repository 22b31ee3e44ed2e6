//! Tokenizer v1 of the semantic model: the words a text is embedded from. The model was
//! distilled with the very same rule (`semantic-model/common.py`), so the two must agree
//! character for character; `semantic-model/tokenizer_cases.tsv` pins them together.
//!
//! 1. The text is lowercased with the full Unicode mapping (final sigma included).
//! 2. A word is a maximal run of letters, marks and numbers (general categories `L*`,
//!    `M*`, `N*`); every other character separates words (`don't` -> `don`, `t`).
//! 3. Words longer than [`MAX_WORD_CHARS`] characters are dropped.
//! 4. A word holding a Cyrillic letter (U+0400..U+04FF) whose Latin letters are all
//!    look-alikes of Cyrillic ones (`a c e o p x y k`) has them replaced by those Cyrillic
//!    letters (`дoбpый` -> `добрый`).

use unicode_general_category::get_general_category;

/// The tokenizer version the model file must name.
pub const TOKENIZER_VERSION: u32 = 1;
/// Longer words are dropped.
pub const MAX_WORD_CHARS: usize = 40;

/// Latin letters that look like Cyrillic ones, and the Cyrillic letter each stands for.
const LOOKALIKES: [(char, char); 8] = [
    ('a', '\u{0430}'),
    ('c', '\u{0441}'),
    ('e', '\u{0435}'),
    ('o', '\u{043E}'),
    ('p', '\u{0440}'),
    ('x', '\u{0445}'),
    ('y', '\u{0443}'),
    ('k', '\u{043A}'),
];

/// The words of `text`, in order, by the v1 rule.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut words = Vec::new();
    let mut start = None;
    for (at, ch) in lower.char_indices() {
        match (is_word_char(ch), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                push_word(&lower[from..at], &mut words);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        push_word(&lower[from..], &mut words);
    }
    words
}

fn is_word_char(ch: char) -> bool {
    matches!(
        get_general_category(ch).abbreviation().as_bytes().first(),
        Some(b'L' | b'M' | b'N')
    )
}

fn push_word(word: &str, words: &mut Vec<String>) {
    if word.chars().count() > MAX_WORD_CHARS {
        return;
    }
    let cyrillic = word.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
    let mut latin = word.chars().filter(char::is_ascii_lowercase).peekable();
    let folds = cyrillic
        && latin.peek().is_some()
        && latin.all(|c| LOOKALIKES.iter().any(|(l, _)| *l == c));
    if folds {
        let folded = word
            .chars()
            .map(|c| {
                LOOKALIKES
                    .iter()
                    .find(|(l, _)| *l == c)
                    .map_or(c, |(_, cyr)| *cyr)
            })
            .collect();
        words.push(folded);
    } else {
        words.push(word.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case the Python reference wrote (`semantic-model/tokenizer_cases.py`).
    #[test]
    fn agrees_with_the_reference_tokenizer() {
        let cases = include_str!("../../semantic-model/tokenizer_cases.tsv");
        let mut checked = 0;
        for line in cases.lines().filter(|l| !l.is_empty()) {
            let (input, expected) = line.split_once('\t').expect("input, tab, tokens");
            let input: String = serde_json::from_str(input).expect("a JSON string");
            let expected: Vec<String> = serde_json::from_str(expected).expect("a JSON list");
            assert_eq!(tokenize(&input), expected, "{input:?}");
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} cases");
    }

    #[test]
    fn folds_lookalikes_only_in_cyrillic_words() {
        assert_eq!(tokenize("Дoбpый iphone"), ["добрый", "iphone"]);
        assert_eq!(tokenize("iphoneа"), ["iphoneа"]);
    }
}
