//! The re-rank of the best matches of each index: within a tier ([`super::tiers`]), BM25
//! times the quality, freshness and answer factors; across tiers, the tiers alone.

use std::cmp::Ordering;

use tantivy::DocAddress;

use super::tiers::{Signals, Tier};

/// Half-life of the freshness decay, in days.
const HALF_LIFE_DAYS: f64 = 180.0;
/// Factor of replies when the query is a question.
pub const ANSWER_BOOST: f64 = 1.5;
const DAY_MS: f64 = 86_400_000.0;

/// A match before its stored document is read: what re-ranking needs, from fast fields.
/// Only the best candidates get their document loaded.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// The target it came from.
    pub at: usize,
    /// The document.
    pub address: DocAddress,
    /// Forum post ID.
    pub post_id: i64,
    /// `posted_at`, else `indexed_at`, in ms.
    pub date: i64,
    /// Whether it opens its topic.
    pub is_op: bool,
    /// Usefulness, 0..1.
    pub health_score: f64,
    /// Its tiers and BM25 part.
    pub tier: Tier,
    /// The tiers that ordered its index's matches.
    pub signals: Signals,
    /// BM25 times the factors, rounded to 6 decimals.
    pub score: f64,
}

/// The factors of the re-rank.
#[derive(Debug, Clone, Copy)]
pub struct Factors {
    /// Prefer newer posts.
    pub freshness: bool,
    /// Boost replies (the query is a question).
    pub answer_seeking: bool,
}

/// Sorts `hits` by tier, then by BM25 times `0.75 + 0.5 x health`, times the freshness
/// decay (`0.3 + 0.7 x 0.5^(age / 180 days)`, the age counted from the newest candidate)
/// and [`ANSWER_BOOST`] for replies when asked; ties by post ID. A post found in two
/// indexes keeps its better place.
pub fn rerank(mut hits: Vec<Candidate>, factors: Factors) -> Vec<Candidate> {
    let newest = hits.iter().map(|h| h.date).max().unwrap_or(0);
    for hit in &mut hits {
        let mut score = hit.tier.bm25 * (0.75 + 0.5 * hit.health_score);
        if factors.freshness {
            let age_days = (newest - hit.date).max(0) as f64 / DAY_MS;
            score *= 0.3 + 0.7 * 0.5f64.powf(age_days / HALF_LIFE_DAYS);
        }
        if factors.answer_seeking && !hit.is_op {
            score *= ANSWER_BOOST;
        }
        hit.score = (score * 1e6).round() / 1e6;
    }
    hits.sort_by(order);
    let mut seen = std::collections::HashSet::new();
    hits.retain(|h| seen.insert(h.post_id));
    hits
}

/// Better first: the lower tier key, then the higher score, then the lower post ID.
fn order(a: &Candidate, b: &Candidate) -> Ordering {
    a.tier
        .key()
        .cmp(&b.tier.key())
        .then(b.score.total_cmp(&a.score))
        .then(a.post_id.cmp(&b.post_id))
}
