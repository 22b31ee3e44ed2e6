//! Near-duplicate posts: a team's canned reply posted again and again, the same report
//! form, empty posts. On the semantic path, among the fused posts read for the answers
//! rule ([`super::answers::LOOKED_AT`]), a post whose text is a near duplicate of one
//! before it goes down to the end of its block ([`NEAR_DUPLICATE_FACTOR`]): the reader has
//! seen it already. It is not left out (`total` and the order of the rest do not change).
//! Two texts are near duplicates when the Jaccard similarity of their sets of three
//! consecutive words is at least [`NEAR_DUPLICATE`]. (The post vectors cannot tell: the
//! posts of a thread are all embedded with its title, and their cosines are mostly 0.95
//! and more.) BENCHMARKS.md, "Near-duplicates".

use std::collections::BTreeSet;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The Jaccard similarity of two posts' word triples from which they are near duplicates.
pub const NEAR_DUPLICATE: f64 = 0.5;
/// What a near duplicate keeps of its fusion score (beyond a named thread's bonus).
pub const NEAR_DUPLICATE_FACTOR: f64 = 0.0;

/// The word triples of a text (hashed): its lowercased runs of letters and digits, three
/// at a time; a text of fewer than three words is one triple.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shingles(BTreeSet<u64>);

impl Shingles {
    /// The triples of `text`.
    pub fn of(text: &str) -> Self {
        let lowered = text.to_lowercase();
        let words: Vec<&str> = lowered
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let triples = words.windows(3.min(words.len()).max(1));
        let mut set: BTreeSet<u64> = triples.map(hash).collect();
        if set.is_empty() {
            set.insert(hash(&[]));
        }
        Self(set)
    }

    /// Whether `self` and `other` are near duplicates.
    pub fn near_duplicate(&self, other: &Self) -> bool {
        let shared = self.0.intersection(&other.0).count();
        let either = self.0.len() + other.0.len() - shared;
        shared as f64 >= NEAR_DUPLICATE * either as f64
    }
}

fn hash(words: &[&str]) -> u64 {
    let mut hasher = DefaultHasher::new();
    words.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANNED: &str = "In the PoS algorithm there is no fixed volume of mining produced \
                          in one unit of time. It is not possible to calculate how much you \
                          will earn from 100 ATB per day.";

    #[test]
    fn a_canned_reply_with_another_greeting_is_a_near_duplicate() {
        let first = Shingles::of(&format!("Hello, lexusin. {CANNED}"));
        let again = Shingles::of(&format!("Hello, Shuman! {CANNED}"));
        assert!(first.near_duplicate(&again));
        assert!(again.near_duplicate(&first));
    }

    #[test]
    fn an_answer_that_quotes_a_question_is_not_a_duplicate_of_it() {
        let question = "When will the bounty rewards be paid?";
        let answer = format!(
            "Quote: {question} The rewards were sent on 12 May to every participant of \
             the signature and translation campaigns; add the token contract to your \
             wallet to see the balance, the explorer shows the transfers already."
        );
        assert!(!Shingles::of(question).near_duplicate(&Shingles::of(&answer)));
    }

    #[test]
    fn empty_and_one_word_posts_repeat_each_other_but_not_others() {
        assert!(Shingles::of("").near_duplicate(&Shingles::of("  ")));
        assert!(Shingles::of("Thanks!").near_duplicate(&Shingles::of("thanks")));
        assert!(!Shingles::of("Thanks!").near_duplicate(&Shingles::of("")));
        assert!(!Shingles::of(CANNED).near_duplicate(&Shingles::of("")));
    }
}
