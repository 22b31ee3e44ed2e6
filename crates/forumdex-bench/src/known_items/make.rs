//! One known-item query of each kind, from one post (or one quoted post) of a [`Corpus`].

use std::collections::HashMap;

use rand::Rng;
use rand::seq::SliceRandom;

use super::corpus::Corpus;
use super::quotes::without_headers;
use super::typo::{MIN_TYPO_LETTERS, misspell};
use super::words::{is_address, is_query_word, questions, word_runs};

/// Draws tried per post before giving up on it.
const ATTEMPTS: usize = 20;
/// Words of a copied phrase.
const PHRASE_WORDS: std::ops::RangeInclusive<usize> = 4..=6;
/// Words of a question.
const QUESTION_WORDS: std::ops::RangeInclusive<usize> = 4..=14;
/// The question templates of `question-template` queries (`{}` = a distinctive word).
const TEMPLATES: &[&str] = &[
    "how does {} {} work?",
    "what is {} {}?",
    "where can i find {} {}?",
    "is there any news about {} {}?",
    "what do you think about {} and {}?",
];

/// Makes queries over one corpus: its document frequencies and the posts holding each
/// distinctive word.
pub struct Maker<'a> {
    corpus: &'a Corpus,
    max_df: u32,
    /// Posts holding each distinctive word, ascending.
    holding: HashMap<u32, Vec<u32>>,
}

impl<'a> Maker<'a> {
    /// A maker whose distinctive words are held by 2 to `max_df` posts.
    pub fn new(corpus: &'a Corpus, max_df: u32) -> Self {
        let mut holding: HashMap<u32, Vec<u32>> = HashMap::new();
        for (index, post) in corpus.posts.iter().enumerate() {
            for &word in post.words.iter() {
                if (2..=max_df).contains(&corpus.df[word as usize]) {
                    holding.entry(word).or_default().push(index as u32);
                }
            }
        }
        Self {
            corpus,
            max_df,
            holding,
        }
    }

    /// Whether the token `id` is distinctive: in at least 2 posts (so no word alone names
    /// the post) and at most `max_df`.
    pub fn distinctive(&self, id: u32) -> bool {
        (2..=self.max_df).contains(&self.corpus.df[id as usize])
    }

    /// The distinctive query words of the post at `post`.
    pub fn distinctive_words(&self, post: u32) -> Vec<u32> {
        let words = &self.corpus.posts[post as usize].query_words;
        words
            .iter()
            .copied()
            .filter(|&w| self.distinctive(w))
            .collect()
    }

    /// Whether every post holding all of `words` (token ids, at least one distinctive) is
    /// one of `allowed`; `false` when none of `words` is distinctive.
    fn names_only(&self, words: &[u32], allowed: &[u32]) -> bool {
        let Some(rarest) = words
            .iter()
            .filter(|&&w| self.distinctive(w))
            .min_by_key(|&&w| self.corpus.df[w as usize])
        else {
            return false;
        };
        let holding = self.corpus.holding_all(&self.holding[rarest], words);
        holding.iter().all(|p| allowed.contains(p))
    }

    /// Ids of the lowercase forms of `words`, when every one is a token of the corpus.
    fn ids(&self, words: &[&str]) -> Option<Vec<u32>> {
        words
            .iter()
            .map(|w| self.corpus.id(&w.to_lowercase()))
            .collect()
    }

    /// `n` distinctive words of the post that occur together in no other post (lowercase,
    /// in the order drawn).
    pub fn words(&self, rng: &mut impl Rng, post: u32, n: usize) -> Option<Vec<String>> {
        let candidates = self.distinctive_words(post);
        if candidates.len() < n {
            return None;
        }
        for _ in 0..ATTEMPTS {
            let drawn: Vec<u32> = candidates.choose_multiple(rng, n).copied().collect();
            if self.names_only(&drawn, &[post]) {
                let vocabulary = &self.corpus.vocabulary;
                return Some(
                    drawn
                        .iter()
                        .map(|&w| vocabulary[w as usize].to_string())
                        .collect(),
                );
            }
        }
        None
    }

    /// A run of 4 to 6 consecutive words of `text` (the post's plain text), as written, with a
    /// distinctive word, whose words occur together in no other post.
    pub fn phrase(&self, rng: &mut impl Rng, post: u32, text: &str) -> Option<String> {
        let runs: Vec<Vec<&str>> = word_runs(text)
            .into_iter()
            .filter(|run| run.len() >= *PHRASE_WORDS.start())
            .collect();
        if runs.is_empty() {
            return None;
        }
        for _ in 0..ATTEMPTS {
            let run = runs.choose(rng)?;
            let len = rng.gen_range(PHRASE_WORDS).min(run.len());
            let start = rng.gen_range(0..=run.len() - len);
            let words = &run[start..start + len];
            let Some(ids) = self.ids(words) else {
                continue;
            };
            if self.names_only(&ids, &[post]) {
                return Some(words.join(" "));
            }
        }
        None
    }

    /// A question asked in `text` (the plain text of the post at `post`) whose words of 4+
    /// letters, two of them distinctive, occur together only in that post and in `quoting`
    /// (the posts quoting it): the words as written, then `?`.
    pub fn question(&self, post: u32, quoting: &[u32], text: &str) -> Option<String> {
        let mut allowed = quoting.to_vec();
        allowed.push(post);
        let text = without_headers(text);
        questions(&text).into_iter().find_map(|chunks| {
            if !QUESTION_WORDS.contains(&chunks.len()) || chunks.iter().any(|c| is_address(c)) {
                return None;
            }
            let content: Vec<&str> = chunks
                .iter()
                .copied()
                .filter(|c| is_query_word(c))
                .collect();
            let ids = self.ids(&content)?;
            let distinctive = ids.iter().filter(|&&w| self.distinctive(w)).count();
            (distinctive >= 2 && self.names_only(&ids, &allowed))
                .then(|| format!("{}?", chunks.join(" ")))
        })
    }

    /// A question template around two distinctive words of the post that occur together in
    /// no other post.
    pub fn template(&self, rng: &mut impl Rng, post: u32) -> Option<String> {
        let words = self.words(rng, post, 2)?;
        let template = TEMPLATES.choose(rng)?;
        Some(
            template
                .replacen("{}", &words[0], 1)
                .replacen("{}", &words[1], 1),
        )
    }

    /// `query` with one of its words of 5+ letters misspelled into a word no post holds.
    pub fn typo(&self, rng: &mut impl Rng, query: &str) -> Option<String> {
        let words: Vec<&str> = query.split(' ').collect();
        let typable: Vec<usize> = (0..words.len())
            .filter(|&i| is_query_word(words[i]) && words[i].chars().count() >= MIN_TYPO_LETTERS)
            .collect();
        for _ in 0..ATTEMPTS {
            let &at = typable.choose(rng)?;
            let Some(typo) = misspell(words[at], rng) else {
                continue;
            };
            if self.corpus.occurs(&typo.to_lowercase()) {
                continue;
            }
            let mut out = words.clone();
            out[at] = &typo;
            return Some(out.join(" "));
        }
        None
    }
}
