//! Near-duplicate posts: a team's canned reply posted again and again, the same report
//! form, empty posts. On the semantic path, among the fused posts read for the answers
//! rule ([`super::answers::LOOKED_AT`]), a post that repeats one before it goes down to the
//! end of its block ([`NEAR_DUPLICATE_FACTOR`]): the reader has seen what it says. It is
//! not left out (`total` does not change). A post repeats an earlier one when the Jaccard
//! similarity of their sets of three consecutive words is at least [`NEAR_DUPLICATE`] and
//! it adds at most [`NEW_TRIPLES_AT_MOST`] triples of its own: a greeting before a canned
//! answer adds two or three, while a reply that quotes a post and answers it, even in one
//! line, or an announcement posted again with an update, adds a sentence. (Allowing a
//! quarter of a post's triples as its own kept more of a thread's canned answers out of
//! the needs' top 10s, nDCG@10 0.555 against 0.541 on the tuning half, but a one-line
//! answer under a long quote would go down too: an answer is worth more than a repeat.) Images count as words (their
//! `src`), so posts of different images are not one another's repeats. (The post vectors
//! cannot tell repeats: the posts of a thread are all embedded with its title, and their
//! cosines are mostly 0.95 and more.) BENCHMARKS.md, "Near duplicates".

use std::collections::BTreeSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::quality;

/// The Jaccard similarity of two posts' word triples from which one may repeat the other.
pub const NEAR_DUPLICATE: f64 = 0.5;
/// The triples a repeat may add to the post it repeats.
pub const NEW_TRIPLES_AT_MOST: usize = 4;
/// What a repeat keeps of its fusion score (beyond a named thread's bonus): it goes below
/// the posts that do not repeat, in its own order.
pub const NEAR_DUPLICATE_FACTOR: f64 = 1e-3;

/// The word triples of a post (hashed): the words of its text ([`quality::words`]), three at
/// a time, and each of its images; a post of fewer than three words is one triple.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shingles(BTreeSet<u64>);

impl Shingles {
    /// The triples of a post of `text` and `images` (their `src`).
    pub fn of(text: &str, images: &[&str]) -> Self {
        let words = quality::words(text);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let mut set: BTreeSet<u64> = words.windows(3.min(words.len()).max(1)).map(hash).collect();
        set.extend(images.iter().map(|src| hash(&["<img>", src])));
        if set.is_empty() {
            set.insert(hash(&[]));
        }
        Self(set)
    }

    /// Whether `self`, a later post, repeats `earlier`.
    pub fn repeats(&self, earlier: &Self) -> bool {
        let shared = self.0.intersection(&earlier.0).count();
        let either = self.0.len() + earlier.0.len() - shared;
        let added = self.0.len() - shared;
        shared as f64 >= NEAR_DUPLICATE * either as f64 && added <= NEW_TRIPLES_AT_MOST
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

    fn of(text: &str) -> Shingles {
        Shingles::of(text, &[])
    }

    #[test]
    fn a_canned_reply_with_another_greeting_repeats_it() {
        let first = of(&format!("Hello, lexusin. {CANNED}"));
        let again = of(&format!("Hello, Shuman! {CANNED}"));
        assert!(again.repeats(&first));
        assert!(first.repeats(&again));
    }

    #[test]
    fn a_reply_that_quotes_a_post_and_answers_it_is_no_repeat() {
        let question = "Quote from: holder on May 2, 2018. When will the bounty rewards be \
                        paid? The sheet was closed two weeks ago and the campaign manager \
                        has not said a word since then in this thread or on Telegram, and \
                        the token is already trading on two exchanges.";
        let answer = format!("{question} They were sent today, check your wallet.");
        assert!(!of(&answer).repeats(&of(question)));
        // After the answer, which quoted it whole, the question says nothing new.
        assert!(of(question).repeats(&of(&answer)));
    }

    #[test]
    fn an_announcement_posted_again_with_an_update_is_no_repeat() {
        let announcement = format!("Token sale of the project. {CANNED}");
        let updated =
            format!("UPDATE: listing postponed to 20 June on two exchanges. {announcement}");
        assert!(!of(&updated).repeats(&of(&announcement)));
    }

    #[test]
    fn empty_posts_repeat_each_other_but_posts_of_other_images_do_not() {
        assert!(of("").repeats(&of("  ")));
        assert!(of("Thanks!").repeats(&of("thanks")));
        assert!(!of("Thanks!").repeats(&of("")));
        assert!(!of(CANNED).repeats(&of("")));
        let chart = Shingles::of("Image \u{E000}", &["https://img.example/chart.png"]);
        let photo = Shingles::of("Image \u{E000}", &["https://img.example/photo.png"]);
        let again = Shingles::of("image \u{E000}", &["https://img.example/chart.png"]);
        assert!(!photo.repeats(&chart));
        assert!(again.repeats(&chart));
    }
}
