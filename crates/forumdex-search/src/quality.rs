//! Quality signals computed once, at index time, from a post's text, links and merit. All
//! scores are in `0..=1`. They are heuristics, documented here and unit-tested below; none
//! of them is a trained model.
//!
//! - [`spam_score`]: link density, bounty / signature-campaign / referral boilerplate, very
//!   short generic replies ("nice project"), shouting in capitals. Each signal adds a fixed
//!   weight; the sum is capped at 1.
//! - [`ai_score`]: the share of stock phrases typical of machine-written text ("it is
//!   important to note", "in conclusion", "delve") per sentence, plus a small bonus for very
//!   uniform sentence lengths. A weak signal: many people write like that too, so it only
//!   lowers the health score a little and never filters a post on its own.
//! - [`health_score`]: length and merit raise it, spam and (a little) AI style lower it.
//!
//! A reply is *low quality* (left out of search results unless `include_low_quality=1`) when
//! its spam score is at least [`SPAM_THRESHOLD`], its health score is below
//! [`HEALTH_THRESHOLD`], or it repeats, word for word after normalisation, an earlier post by
//! the same author. Opening posts are never filtered.

use aho_corasick::AhoCorasick;
use sha2::{Digest, Sha256};

/// Spam score from which a reply is low quality.
pub const SPAM_THRESHOLD: f64 = 0.6;
/// Health score below which a reply is low quality.
pub const HEALTH_THRESHOLD: f64 = 0.15;

/// The quality signals of one post.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quality {
    /// Spam likelihood.
    pub spam: f64,
    /// Machine-written style likelihood (weak).
    pub ai: f64,
    /// Overall usefulness.
    pub health: f64,
}

impl Quality {
    /// Scores a post from its plain `text`, its `html` (for links) and its merit.
    pub fn of(text: &str, html: &str, merit: i64) -> Self {
        Self::scored(&Words::of(text), html, merit)
    }

    /// The scores of a post and its near-duplicate key ([`duplicate_key`]), from one pass
    /// over its words.
    pub fn with_duplicate_key(
        author: &str,
        text: &str,
        html: &str,
        merit: i64,
    ) -> (Self, Option<u64>) {
        let words = Words::of(text);
        (
            Self::scored(&words, html, merit),
            duplicate_key_of(author, &words.list),
        )
    }

    fn scored(words: &Words<'_>, html: &str, merit: i64) -> Self {
        let spam = spam_of(words, html);
        let ai = ai_of(words);
        Self {
            spam,
            ai,
            health: health_of(words.list.len(), merit, spam, ai),
        }
    }

    /// Whether a reply with these scores is left out of results by default.
    pub fn is_low(&self) -> bool {
        self.spam >= SPAM_THRESHOLD || self.health < HEALTH_THRESHOLD
    }
}

const BOILERPLATE: &[&str] = &[
    "bounty",
    "signature campaign",
    "sig campaign",
    "referral",
    "ref link",
    "ref code",
    "promo code",
    "airdrop",
    "join our telegram",
    "telegram group",
    "whitelist",
    "presale",
    "pre-sale",
    "free tokens",
    "sign up",
    "register now",
    "limited time",
    "100x",
    "to the moon",
    "buy now",
    "investment opportunity",
    "guaranteed profit",
    "double your",
];

const GENERIC_REPLIES: &[&str] = &[
    "nice project",
    "great project",
    "good project",
    "awesome project",
    "nice idea",
    "great idea",
    "good idea",
    "nice post",
    "great post",
    "thanks for sharing",
    "thank you for sharing",
    "good luck",
    "good luck dev",
    "to the moon",
    "nice",
    "great",
    "interesting",
    "agree",
    "i agree",
    "bump",
    "up",
    "+1",
    "me too",
    "following",
    "watching",
    "thanks",
    "thank you",
    "good job",
    "great job",
    "keep it up",
    "nice one",
];

const AI_PHRASES: &[&str] = &[
    "as an ai",
    "it is important to note",
    "it's important to note",
    "it is worth noting",
    "it's worth noting",
    "in conclusion",
    "in summary",
    "overall,",
    "delve",
    "furthermore",
    "moreover",
    "additionally",
    "plays a crucial role",
    "crucial role",
    "ever-evolving",
    "rapidly evolving",
    "landscape",
    "navigate the",
    "in today's",
    "a testament to",
    "seamless",
    "leverage",
    "unlock the",
    "embark",
];

/// Whether `c` separates words.
fn separates(c: char) -> bool {
    !c.is_alphanumeric() && c != '+'
}

/// Lowercased words of `text` (letters and digits only, and `+`).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(separates)
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// How many words [`words`] finds in `text`, without making them.
fn word_count(text: &str) -> usize {
    text.split(separates).filter(|w| !w.is_empty()).count()
}

/// What every score reads of a text, made once: the text, its words and the stock phrases
/// of its lowercase.
struct Words<'a> {
    text: &'a str,
    list: Vec<String>,
    phrases: PhraseCounts,
}

impl<'a> Words<'a> {
    fn of(text: &'a str) -> Self {
        Self {
            text,
            list: words(text),
            phrases: PhraseCounts::of(&text.to_lowercase()),
        }
    }
}

/// The phrase lists the scores count, as one automaton's patterns in this order.
const PHRASE_LISTS: [&[&str]; 3] = [AI_PHRASES, BOILERPLATE, LINK_MARKS];
/// What marks a link in plain text.
const LINK_MARKS: &[&str] = &["http://", "https://", "www."];

/// How often the phrases of [`PHRASE_LISTS`] occur in a lowercased text, found in one pass
/// (a post's text was scanned once per phrase before, about fifty times). Each phrase counts
/// as `str::matches` would: occurrences of the same phrase do not overlap.
#[derive(Debug, Default, PartialEq)]
struct PhraseCounts {
    /// Occurrences of AI stock phrases, all phrases together.
    ai: usize,
    /// Distinct boilerplate phrases present.
    boilerplate: usize,
    /// Occurrences of link marks.
    links: usize,
}

impl PhraseCounts {
    fn of(lower: &str) -> Self {
        static AUTOMATON: std::sync::LazyLock<AhoCorasick> = std::sync::LazyLock::new(|| {
            AhoCorasick::new(PHRASE_LISTS.concat()).expect("the phrases make an automaton")
        });
        let mut counts = Self::default();
        let mut ends = [0usize; AI_PHRASES.len() + BOILERPLATE.len() + LINK_MARKS.len()];
        let mut seen = [false; BOILERPLATE.len()];
        for found in AUTOMATON.find_overlapping_iter(lower) {
            let pattern = found.pattern().as_usize();
            // Same-phrase occurrences come in order; one overlapping the last counted is
            // not counted.
            if ends[pattern] > found.start() {
                continue;
            }
            ends[pattern] = found.end();
            match pattern.checked_sub(AI_PHRASES.len()) {
                None => counts.ai += 1,
                Some(boilerplate) if boilerplate < BOILERPLATE.len() => {
                    if !std::mem::replace(&mut seen[boilerplate], true) {
                        counts.boilerplate += 1;
                    }
                }
                Some(_) => counts.links += 1,
            }
        }
        counts
    }
}

/// Spam likelihood: links (more than one per 25 words, or more than 5), boilerplate phrases
/// (0.25 each, two or more count 0.6), a generic reply of at most 6 words (0.7), mostly
/// capitals over 20+ letters (0.3).
pub fn spam_score(text: &str, html: &str) -> f64 {
    spam_of(&Words::of(text), html)
}

fn spam_of(words: &Words<'_>, html: &str) -> f64 {
    let (text, word_list) = (words.text, &words.list);
    let word_count = word_list.len().max(1);
    let links = html.matches("href=").count().max(words.phrases.links);
    let mut score = 0.0;
    if links > 5 || (links > 0 && links * 25 > word_count) {
        score += 0.35;
    }
    if links > 0 && links * 8 > word_count {
        score += 0.25;
    }
    score += match words.phrases.boilerplate {
        0 => 0.0,
        1 => 0.25,
        _ => 0.6,
    };
    if word_list.len() <= 6 {
        let normalized = word_list.join(" ");
        if GENERIC_REPLIES.iter().any(|g| {
            normalized == *g
                || normalized
                    .strip_prefix(g)
                    .is_some_and(|rest| rest.starts_with(' '))
        }) {
            score += 0.7;
        }
    }
    let (letters, upper) = letters_and_capitals(text);
    if letters >= 20 && upper * 10 >= letters * 7 {
        score += 0.3;
    }
    f64::min(score, 1.0)
}

/// The letters of `text` and how many of them are capitals; ASCII text (most posts) is
/// counted byte by byte, with the same result.
fn letters_and_capitals(text: &str) -> (usize, usize) {
    if text.is_ascii() {
        return text.bytes().fold((0, 0), |(letters, upper), b| {
            (
                letters + usize::from(b.is_ascii_alphabetic()),
                upper + usize::from(b.is_ascii_uppercase()),
            )
        });
    }
    text.chars()
        .filter(|c| c.is_alphabetic())
        .fold((0, 0), |(letters, upper), c| {
            (letters + 1, upper + usize::from(c.is_uppercase()))
        })
}

/// Machine-written style: stock phrases per sentence (saturating at one phrase per two
/// sentences), plus 0.2 when five or more sentences all have nearly the same length. Texts
/// under 40 words score 0: too short to say.
pub fn ai_score(text: &str) -> f64 {
    ai_of(&Words::of(text))
}

fn ai_of(words: &Words<'_>) -> f64 {
    if words.list.len() < 40 {
        return 0.0;
    }
    let hits = words.phrases.ai;
    let sentences: Vec<usize> = words
        .text
        .split(['.', '!', '?', '\n'])
        .map(word_count)
        .filter(|&n| n > 0)
        .collect();
    let sentence_count = sentences.len().max(1);
    let mut score = f64::min(1.0, hits as f64 * 2.0 / sentence_count as f64) * 0.8;
    if sentences.len() >= 5 {
        let mean = sentences.iter().sum::<usize>() as f64 / sentences.len() as f64;
        let variance = sentences
            .iter()
            .map(|&n| (n as f64 - mean).powi(2))
            .sum::<f64>()
            / sentences.len() as f64;
        if mean >= 10.0 && variance.sqrt() / mean < 0.25 {
            score += 0.2;
        }
    }
    f64::min(score, 1.0)
}

/// Usefulness: `(0.2 + 0.5 * length + 0.3 * merit) * (1 - spam) - 0.1 * ai`, clamped to
/// `0..=1`, where `length = ln(1 + words) / ln(201)` and `merit = ln(1 + merit) / ln(51)`,
/// each capped at 1 (200 words or 50 merit count fully).
pub fn health_score(text: &str, merit: i64, spam: f64, ai: f64) -> f64 {
    health_of(word_count(text), merit, spam, ai)
}

fn health_of(word_count: usize, merit: i64, spam: f64, ai: f64) -> f64 {
    let word_count = word_count as f64;
    let length = f64::min(1.0, (1.0 + word_count).ln() / 201f64.ln());
    let merit = f64::min(1.0, (1.0 + merit.max(0) as f64).ln() / 51f64.ln());
    ((0.2 + 0.5 * length + 0.3 * merit) * (1.0 - spam) - 0.1 * ai).clamp(0.0, 1.0)
}

/// The near-duplicate key of a post: the first 8 bytes of SHA-256 over the author and the
/// text lowercased with everything but letters and digits removed. `None` for texts under 3
/// words (too short for a repeat to mean anything beyond the generic-reply rule).
///
/// A number rather than hex text: an 8-byte term, whose term dictionary is much cheaper to
/// build and merge than one of 32-character keys (BENCHMARKS.md, the fifth round). Among
/// ten million distinct posts the odds that any two share a key are about 3 in a million
/// (n^2 / 2^65); such a pair would hide the later reply as a repeat.
pub fn duplicate_key(author: &str, text: &str) -> Option<u64> {
    duplicate_key_of(author, &words(text))
}

fn duplicate_key_of(author: &str, word_list: &[String]) -> Option<u64> {
    if word_list.len() < 3 {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(author.to_lowercase().as_bytes());
    hasher.update([0]);
    hasher.update(word_list.join(" ").as_bytes());
    let digest = hasher.finalize();
    Some(u64::from_be_bytes(
        digest[..8].try_into().expect("SHA-256 has 32 bytes"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_capitals_count_ascii_as_unicode_does() {
        let by_chars = |text: &str| {
            text.chars()
                .filter(|c| c.is_alphabetic())
                .fold((0, 0), |(l, u), c| {
                    (l + 1, u + usize::from(c.is_uppercase()))
                })
        };
        for text in [
            "",
            "BUY NOW 100x!!",
            "Hello, World 42",
            "Grüße AUS Köln",
            "ΑΒΓ abc",
        ] {
            assert_eq!(letters_and_capitals(text), by_chars(text), "{text}");
        }
    }

    const GOOD: &str = "The difficulty adjustment happens every 2016 blocks. If blocks came faster \
        than ten minutes on average, the target shrinks so that mining gets harder; otherwise it \
        grows. You can check the next estimate on any block explorer.";

    #[test]
    fn generic_short_replies_are_spam() {
        assert!(spam_score("Nice project!", "Nice project!") >= SPAM_THRESHOLD);
        assert!(spam_score("good luck dev", "good luck dev") >= SPAM_THRESHOLD);
        assert!(spam_score(GOOD, GOOD) < 0.1);
    }

    #[test]
    fn links_and_boilerplate_are_spam() {
        let text = "Join our bounty and airdrop now: https://x.example/ref";
        let html = "Join our bounty and airdrop now: <a href=\"https://x.example/ref\">link</a>";
        assert!(spam_score(text, html) >= SPAM_THRESHOLD);
        let one = "I read the whitepaper of the bounty program and found the vesting unclear.";
        assert!(spam_score(one, one) < SPAM_THRESHOLD);
    }

    #[test]
    fn shouting_adds_to_spam() {
        let text = "THIS COIN IS GOING TO EXPLODE BUY BEFORE IT IS TOO LATE";
        assert!(spam_score(text, text) >= 0.3);
    }

    #[test]
    fn ai_phrases_raise_the_ai_score_only_for_long_texts() {
        let stock = "It is important to note that the crypto landscape is ever-evolving. \
            Furthermore, security plays a crucial role. Moreover, users must navigate the risks. \
            Additionally, wallets matter a lot for everyone involved here. In conclusion, \
            we should delve into best practices before we invest any money in these markets.";
        assert!(ai_score(stock) > 0.5, "{}", ai_score(stock));
        assert_eq!(ai_score(GOOD), 0.0);
        assert_eq!(ai_score("In conclusion, delve."), 0.0);
    }

    #[test]
    fn health_rewards_length_and_merit_and_punishes_spam() {
        let q = Quality::of(GOOD, GOOD, 0);
        let merited = Quality::of(GOOD, GOOD, 20);
        assert!(merited.health > q.health);
        assert!(!q.is_low());
        let spam = Quality::of("Nice project!", "Nice project!", 0);
        assert!(spam.is_low());
        assert!(spam.health < q.health);
    }

    #[test]
    fn one_pass_scores_equal_the_separate_ones() {
        let stock = "It is important to note that the crypto landscape is ever-evolving. \
            Furthermore, security plays a crucial role. Moreover, users must navigate the risks.";
        for (text, merit) in [(GOOD, 3), ("Nice project!", 0), (stock, 0), ("", 0)] {
            let (quality, key) = Quality::with_duplicate_key("Bob", text, text, merit);
            let spam = spam_score(text, text);
            let ai = ai_score(text);
            assert_eq!(quality, Quality::of(text, text, merit));
            assert_eq!((quality.spam, quality.ai), (spam, ai));
            assert_eq!(quality.health, health_score(text, merit, spam, ai));
            assert_eq!(key, duplicate_key("Bob", text));
        }
    }

    #[test]
    fn phrases_count_as_one_scan_per_phrase_would() {
        let naive = |lower: &str| PhraseCounts {
            ai: AI_PHRASES.iter().map(|p| lower.matches(p).count()).sum(),
            boilerplate: BOILERPLATE.iter().filter(|p| lower.contains(*p)).count(),
            links: LINK_MARKS.iter().map(|p| lower.matches(p).count()).sum(),
        };
        for text in [
            "",
            "moreover, furthermore moreovermoreover in conclusion",
            "join our telegram group: telegram group bounty bounty airdrop",
            "https://www.example.com http://x https://https://",
            "www.www.www. to the moon to the moon",
            "a sig campaign and a signature campaign, ref link ref code",
            "overall,overall, landscape landscapes leverage seamlessly embarking",
        ] {
            assert_eq!(PhraseCounts::of(text), naive(text), "{text}");
        }
    }

    #[test]
    fn duplicate_keys_ignore_case_and_punctuation() {
        let a = duplicate_key("bob", "Great project, will join!");
        assert_eq!(a, duplicate_key("Bob", "great project will join"));
        assert_ne!(a, duplicate_key("alice", "great project will join"));
        assert_eq!(duplicate_key("bob", "nice"), None);
    }
}
