//! Words as the generator sees them: the tokens whose co-occurrence it counts, the words a
//! user would type, and runs of them (phrases, questions).

use forumdex_search::analysis::is_cjk;

/// Fewest letters of a query word.
pub const MIN_LETTERS: usize = 4;

/// The tokens of `text` co-occurrence is counted over: maximal runs of letters and digits,
/// lowercased (a superset of what any analyzer makes a word of, so "occurs in no other post"
/// holds for the search engine too).
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// `token` lowercased into `into` (cleared first), without allocating when it fits.
pub fn lowercase_into(token: &str, into: &mut String) {
    into.clear();
    into.extend(token.chars().flat_map(char::to_lowercase));
}

/// Whether `chunk` (a whitespace-separated piece of text) is or holds an address: a URL, a
/// domain, an e-mail or a path (`://`, `@`, `/`, or a dot between two letters or digits).
pub fn is_address(chunk: &str) -> bool {
    if chunk.contains("://") || chunk.contains('@') || chunk.contains('/') {
        return true;
    }
    let chars: Vec<char> = chunk.chars().collect();
    chars
        .windows(3)
        .any(|w| w[1] == '.' && w[0].is_alphanumeric() && w[2].is_alphanumeric())
}

/// `chunk` without the punctuation around it (`"word,"` -> `word`).
pub fn trim_punctuation(chunk: &str) -> &str {
    chunk.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Whether `word` is one a user would type as a query word: letters only (no digits, no
/// CJK runs, which are not words), at least [`MIN_LETTERS`] of them.
pub fn is_query_word(word: &str) -> bool {
    word.chars().count() >= MIN_LETTERS && word.chars().all(|c| c.is_alphabetic() && !is_cjk(c))
}

/// The words of `text` a user would type, in order, as written: whitespace-separated
/// chunks stripped of surrounding punctuation that are [`is_query_word`]s, outside
/// addresses.
pub fn query_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter(|chunk| !is_address(chunk))
        .map(trim_punctuation)
        .filter(|word| is_query_word(word))
}

/// Runs of consecutive plain words of `text` as written: a run ends at a sentence or clause
/// mark (`.`, `!`, `?`, `,`, `;`, `:`, brackets, quotes), a line break, and at any chunk that
/// is not letters only (numbers, addresses, words with inner marks).
pub fn word_runs(text: &str) -> Vec<Vec<&str>> {
    let mut runs = Vec::new();
    for line in text.lines() {
        let mut run: Vec<&str> = Vec::new();
        for chunk in line.split_whitespace() {
            let word = trim_punctuation(chunk);
            let plain = !word.is_empty() && word.chars().all(|c| c.is_alphabetic() && !is_cjk(c));
            // A mark before the word, or a chunk that is not a plain word, ends the run.
            if !plain || !chunk.starts_with(word) {
                runs.push(std::mem::take(&mut run));
            }
            if !plain {
                continue;
            }
            run.push(word);
            if !chunk.ends_with(word) {
                runs.push(std::mem::take(&mut run));
            }
        }
        runs.push(run);
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// The questions of `text`: sentences ending with `?`, as whitespace-separated chunks
/// without surrounding punctuation (inner marks kept: `don't`), in order.
pub fn questions(text: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if !matches!(c, '.' | '!' | '?' | '\n') {
            continue;
        }
        let sentence = &text[start..at];
        start = at + c.len_utf8();
        if c == '?' {
            let chunks: Vec<&str> = sentence
                .split_whitespace()
                .map(trim_punctuation)
                .filter(|w| !w.is_empty())
                .collect();
            if !chunks.is_empty() {
                out.push(chunks);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_alphanumeric_runs() {
        let t: Vec<&str> = tokens("Mid-range 1ST, e.g. x.io/a?").collect();
        assert_eq!(t, ["Mid", "range", "1ST", "e", "g", "x", "io", "a"]);
        let mut s = String::new();
        lowercase_into("БИРЖА", &mut s);
        assert_eq!(s, "биржа");
    }

    #[test]
    fn query_words_skip_numbers_addresses_and_short_words() {
        let words: Vec<&str> = query_words(
            "Visit https://firstblood.io or firstblood.io, (Delisted!) 1ST tokens e.g. jieba 中文词语 биржа",
        )
        .collect();
        assert_eq!(words, ["Visit", "Delisted", "tokens", "jieba", "биржа"]);
    }

    #[test]
    fn runs_end_at_marks_and_non_words() {
        let runs = word_runs("The quick brown fox, jumps over 2 lazy dogs.\nNext line here");
        assert_eq!(
            runs,
            vec![
                vec!["The", "quick", "brown", "fox"],
                vec!["jumps", "over"],
                vec!["lazy", "dogs"],
                vec!["Next", "line", "here"],
            ]
        );
        assert_eq!(
            word_runs("(quoted) words"),
            vec![vec!["quoted"], vec!["words"]]
        );
    }

    #[test]
    fn questions_are_sentences_ending_with_a_question_mark() {
        let q = questions("Hello there. How does \"smurfing\" get addressed? Fine!\nWhy not?");
        assert_eq!(
            q,
            vec![
                vec!["How", "does", "smurfing", "get", "addressed"],
                vec!["Why", "not"],
            ]
        );
    }
}
