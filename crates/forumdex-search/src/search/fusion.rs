//! Fusion of the lexical and the semantic leg.
//!
//! - Lexical hits that hold every word of the query (typos allowed) stay first, in lexical
//!   order: a known-item query that names its post's words keeps its answer on top, whatever
//!   the semantic leg thinks.
//! - The rest are ordered by reciprocal rank fusion over each leg's best [`LEG_DEPTH`]:
//!   `score = 1 / (RRF_K + lexical rank) + w / (RRF_K + semantic rank)`, ranks from 1, a
//!   leg that did not return the post adding nothing; ties go to the smaller post ID.
//!   `w` is 1, or [`CROSS_LANGUAGE_WEIGHT`] when the query's script is one the lexical hits
//!   are not written in (BM25 is noise for such queries).

use std::collections::HashMap;

/// The `k` of reciprocal rank fusion (the usual constant; 20 measured no better).
pub const RRF_K: f64 = 60.0;
/// Hits of each leg that take part.
pub const LEG_DEPTH: usize = 100;
/// The semantic leg's weight for a query in another script than its lexical hits.
pub const CROSS_LANGUAGE_WEIGHT: f64 = 3.0;

/// One post of the fused order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fused {
    /// Forum post ID.
    pub post_id: i64,
    /// Its place in the lexical list (0-based), when there.
    pub lexical: Option<usize>,
    /// Its place in the semantic list (0-based), when there.
    pub semantic: Option<usize>,
    /// Whether it holds every query word (kept first).
    pub complete: bool,
    /// Its fusion score (0 for complete lexical hits, which are ordered apart).
    pub score: f64,
}

/// `lexical` and `semantic` (post IDs, best first; the first `complete` lexical ones hold
/// every query word) in one order, best first.
pub fn fuse(
    lexical: &[i64],
    complete: usize,
    semantic: &[i64],
    semantic_weight: f64,
) -> Vec<Fused> {
    let mut fused: Vec<Fused> = lexical[..complete.min(lexical.len())]
        .iter()
        .enumerate()
        .map(|(at, &post_id)| Fused {
            post_id,
            lexical: Some(at),
            semantic: None,
            complete: true,
            score: 0.0,
        })
        .collect();
    let mut rest: HashMap<i64, Fused> = HashMap::new();
    for (at, &post_id) in lexical.iter().enumerate().take(LEG_DEPTH).skip(complete) {
        rest.entry(post_id).or_insert(Fused {
            post_id,
            lexical: Some(at),
            semantic: None,
            complete: false,
            score: 1.0 / (RRF_K + at as f64 + 1.0),
        });
    }
    for (at, &post_id) in semantic.iter().enumerate().take(LEG_DEPTH) {
        if let Some(kept) = fused.iter_mut().find(|f| f.post_id == post_id) {
            kept.semantic.get_or_insert(at);
            continue;
        }
        let entry = rest.entry(post_id).or_insert(Fused {
            post_id,
            lexical: None,
            semantic: None,
            complete: false,
            score: 0.0,
        });
        if entry.semantic.is_none() {
            entry.semantic = Some(at);
            entry.score += semantic_weight / (RRF_K + at as f64 + 1.0);
        }
    }
    let mut rest: Vec<Fused> = rest.into_values().collect();
    rest.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.post_id.cmp(&b.post_id)));
    fused.extend(rest);
    fused
}

/// Whether `query` is written mostly in a script (Cyrillic or Latin) that none of the
/// indexes of the best lexical hits (`hit_indexes`, language keys such as `en`, `ru`) is
/// written in; `und` (undetermined) says nothing. With no lexical hit, a Cyrillic query
/// counts as crossing (most of the corpus is English).
pub fn crosses_script<'a>(query: &str, hit_indexes: impl IntoIterator<Item = &'a str>) -> bool {
    let Some(script) = main_script(query) else {
        return false;
    };
    let mut any = false;
    for key in hit_indexes {
        let Some(hit_script) = script_of_index(key) else {
            continue;
        };
        any = true;
        if hit_script == script {
            return false;
        }
    }
    any || script == Script::Cyrillic
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
}

/// Languages written in Cyrillic (ISO 639-1).
const CYRILLIC_LANGUAGES: [&str; 10] = ["ru", "uk", "bg", "be", "mk", "sr", "kk", "ky", "mn", "tg"];

fn script_of_index(key: &str) -> Option<Script> {
    match key {
        "und" => None,
        key if CYRILLIC_LANGUAGES.contains(&key) => Some(Script::Cyrillic),
        _ => Some(Script::Latin),
    }
}

fn main_script(text: &str) -> Option<Script> {
    let (mut latin, mut cyrillic) = (0usize, 0usize);
    for ch in text.chars() {
        if ch.is_ascii_alphabetic() {
            latin += 1;
        } else if ('\u{0400}'..='\u{04FF}').contains(&ch) {
            cyrillic += 1;
        }
    }
    match (latin, cyrillic) {
        (0, 0) => None,
        (l, c) if c > l => Some(Script::Cyrillic),
        _ => Some(Script::Latin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fused: &[Fused]) -> Vec<i64> {
        fused.iter().map(|f| f.post_id).collect()
    }

    #[test]
    fn complete_lexical_hits_stay_first_whatever_the_semantic_leg_says() {
        let fused = fuse(&[10, 11, 12, 13], 2, &[13, 12, 11, 99], 1.0);
        assert_eq!(&ids(&fused)[..2], &[10, 11]);
        assert!(fused[0].complete && fused[1].complete);
        assert_eq!(fused[1].semantic, Some(2));
        // 13: lexical 4th + semantic 1st (1/64 + 1/61) beats 12: 3rd + 2nd (1/63 + 1/62).
        assert_eq!(ids(&fused)[2..], [13, 12, 99]);
    }

    #[test]
    fn both_legs_agreeing_beat_one_leg_alone() {
        let fused = fuse(&[1, 2, 3], 0, &[3, 4, 5], 1.0);
        // 2 and 4 are both second of their leg: the smaller ID first.
        assert_eq!(ids(&fused), [3, 1, 2, 4, 5]);
        let top = fused[0];
        let expected = 1.0 / 63.0 + 1.0 / 61.0;
        assert!((top.score - expected).abs() < 1e-12, "{top:?}");
        assert_eq!((top.lexical, top.semantic), (Some(2), Some(0)));
    }

    #[test]
    fn a_heavier_semantic_leg_leads_and_ties_go_to_the_smaller_id() {
        let fused = fuse(&[7, 8], 0, &[9, 6], 3.0);
        assert_eq!(ids(&fused), [9, 6, 7, 8]);
        let tie = fuse(&[5], 0, &[4], 1.0);
        assert_eq!(ids(&tie), [4, 5]);
    }

    #[test]
    fn only_each_legs_best_take_part() {
        let lexical: Vec<i64> = (0..150).collect();
        let fused = fuse(&lexical, 0, &[], 1.0);
        assert_eq!(fused.len(), LEG_DEPTH);
        assert!(fuse(&[], 0, &[], 1.0).is_empty());
    }

    #[test]
    fn scripts_are_compared_with_the_hits() {
        assert!(crosses_script("когда выплата бонусов", ["en", "und"]));
        assert!(crosses_script("когда выплата", std::iter::empty()));
        assert!(!crosses_script("когда выплата", ["en", "ru"]));
        assert!(!crosses_script("bounty payout", ["en"]));
        assert!(!crosses_script("bounty payout", std::iter::empty()));
        assert!(crosses_script("bounty payout", ["ru", "uk"]));
        assert!(!crosses_script("1234", ["ru"]));
    }
}
