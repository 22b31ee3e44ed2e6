//! One-letter misspellings: a substitution, deletion, insertion or transposition, never of
//! the first letter (people rarely mistype it, and spelling correction may rely on it).

use rand::Rng;
use rand::seq::SliceRandom;

/// Fewest letters of a word that gets misspelled.
pub const MIN_TYPO_LETTERS: usize = 5;

/// Letters a typo may bring in: a-z for ASCII words, а-я for Cyrillic ones, else the word's
/// own letters.
fn alphabet(word: &[char]) -> Vec<char> {
    if word.iter().all(char::is_ascii) {
        return ('a'..='z').collect();
    }
    if word.iter().any(|c| ('\u{0400}'..='\u{04FF}').contains(c)) {
        return ('а'..='я').collect();
    }
    let mut own: Vec<char> = word.iter().flat_map(|c| c.to_lowercase()).collect();
    own.sort_unstable();
    own.dedup();
    own
}

/// `word` with one random edit past its first letter, or `None` when the edit drawn changes
/// nothing (a transposition of two equal letters, a substitution with no other letter) or
/// the word is shorter than [`MIN_TYPO_LETTERS`].
pub fn misspell(word: &str, rng: &mut impl Rng) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let n = chars.len();
    if n < MIN_TYPO_LETTERS {
        return None;
    }
    let alphabet = alphabet(&chars);
    let mut out = chars.clone();
    match rng.gen_range(0..4) {
        0 => {
            let at = rng.gen_range(1..n);
            let other: Vec<char> = alphabet
                .iter()
                .copied()
                .filter(|c| c.to_lowercase().ne(chars[at].to_lowercase()))
                .collect();
            out[at] = *other.choose(rng)?;
        }
        1 => {
            out.remove(rng.gen_range(1..n));
        }
        2 => {
            let letter = *alphabet.choose(rng)?;
            out.insert(rng.gen_range(1..=n), letter);
        }
        _ => {
            let at = rng.gen_range(1..n - 1);
            out.swap(at, at + 1);
        }
    }
    let typo: String = out.into_iter().collect();
    (typo.to_lowercase() != word.to_lowercase()).then_some(typo)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Edit distance with transpositions (optimal string alignment).
    fn distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1)
                    .min(d[i][j - 1] + 1)
                    .min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn typos_are_one_edit_away_and_keep_the_first_letter() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for word in ["smurfing", "delisted", "биржами", "Ωμέγαλο", "aaaaa"] {
            let mut made = 0;
            for _ in 0..200 {
                let Some(typo) = misspell(word, &mut rng) else {
                    continue;
                };
                made += 1;
                assert_eq!(distance(word, &typo), 1, "{word} -> {typo}");
                assert_eq!(typo.chars().next(), word.chars().next(), "{word} -> {typo}");
            }
            assert!(made >= 100, "{word}: {made}");
        }
        assert_eq!(misspell("word", &mut rng), None);
    }

    #[test]
    fn cyrillic_words_get_cyrillic_letters() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..100 {
            if let Some(typo) = misspell("биржами", &mut rng) {
                assert!(typo.chars().all(|c| ('а'..='я').contains(&c)), "{typo}");
            }
        }
    }
}
