//! Fusion of the lexical and the semantic leg.
//!
//! - Lexical hits that hold every word of the query (typos allowed) stay first, in lexical
//!   order: a known-item query that names its post's words keeps its answer on top, whatever
//!   the semantic leg thinks. When the query names a thread, the caller puts its complete
//!   hits before other threads' that do not hold the query whole ([`named_first`]).
//! - The rest are ordered by reciprocal rank fusion over each leg's best [`LEG_DEPTH`]:
//!   `score = 1 / (RRF_K + lexical rank) + w / (RRF_K + semantic rank)`, ranks from 1, a
//!   leg that did not return the post adding nothing; ties go to the smaller post ID.
//!   `w` is [`SEMANTIC_WEIGHT`].
//! - The caller adds [`NAMED_BONUS`] to the score of a post of a thread the query names
//!   (`super::named`, [`Fused::name`]) and sorts again by [`order`]: those come before the
//!   other posts that do not hold every word; and a named thread's opening post
//!   ([`Fused::open`]) takes part as a leg of its own, weighing [`OPENER_WEIGHT`].

use std::collections::HashMap;

/// The `k` of reciprocal rank fusion (the usual constant; 20 measured no better).
pub const RRF_K: f64 = 60.0;
/// Hits of each leg that take part.
pub const LEG_DEPTH: usize = 100;
/// The semantic leg's weight: on the tuning half of the other-words set (1.4M corpus),
/// MRR@10 0.132 with 1, 0.159 with 2, 0.164 with 3 without keeping complete matches first
/// (BENCHMARKS.md, "Semantic search").
pub const SEMANTIC_WEIGHT: f64 = 2.0;
/// Added to the fusion score of a post of a thread the query names: more than any fusion
/// score, so those posts come first (BENCHMARKS.md, "The named thread").
pub const NAMED_BONUS: f64 = 1.0;
/// The weight of the named threads' opening posts as a leg of the fusion of their own (at
/// rank 1): the lexical leg's. A project's opening post says what the project is and does,
/// which a question about the project most often asks; replies that repeat the project's
/// pitch, and questions, otherwise come first. On the tuning halves (1.4M corpus): other
/// words MRR@10 0.259 -> 0.372 (14 queries helped, 3 hurt), cross-language 0.198 -> 0.173
/// (2 hurt), needs nDCG@10 0.616 -> 0.619; weight 2 or more, which puts it above nearly
/// every post of its thread: 0.386 and 0.151 (BENCHMARKS.md, "The named thread's opening
/// post"). Not when the query asks how things stand: the later word leads then.
pub const OPENER_WEIGHT: f64 = 1.0;

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
    /// Its place among the complete hits, which are in this order: their lexical place until
    /// [`named_first`] puts the named threads' first.
    pub place: usize,
    /// Its fusion score (0 for complete lexical hits, which are ordered apart).
    pub score: f64,
    /// Whether it is a post of a thread the query names ([`Fused::name`]).
    pub named: bool,
    /// Whether it is the opening post of a thread the query names ([`Fused::open`]).
    pub opener: bool,
}

impl Fused {
    /// Marks the post as one of a thread the query names: [`NAMED_BONUS`] is added to its
    /// score.
    pub fn name(&mut self) {
        if !self.named {
            self.named = true;
            self.score += NAMED_BONUS;
        }
    }

    /// Marks a named thread's post as its thread's opening post: it takes part in the fusion
    /// as the first of a leg of its own, `OPENER_WEIGHT / (RRF_K + 1)` added to its score.
    pub fn open(&mut self) {
        if self.named && !self.opener {
            self.opener = true;
            self.score += OPENER_WEIGHT / (RRF_K + 1.0);
        }
    }

    /// Multiplies the fusion score by `factor`, a named thread's bonus kept: the post moves
    /// within its block (the named threads' posts, or the others), down for a factor below
    /// 1, up above it.
    pub fn scale(&mut self, factor: f64) {
        let bonus = if self.named { NAMED_BONUS } else { 0.0 };
        self.score = bonus + (self.score - bonus) * factor;
    }
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
            place: at,
            score: 0.0,
            named: false,
            opener: false,
        })
        .collect();
    let mut rest: HashMap<i64, Fused> = HashMap::new();
    for (at, &post_id) in lexical.iter().enumerate().take(LEG_DEPTH).skip(complete) {
        rest.entry(post_id).or_insert(Fused {
            post_id,
            lexical: Some(at),
            semantic: None,
            complete: false,
            place: 0,
            score: 1.0 / (RRF_K + at as f64 + 1.0),
            named: false,
            opener: false,
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
            place: 0,
            score: 0.0,
            named: false,
            opener: false,
        });
        if entry.semantic.is_none() {
            entry.semantic = Some(at);
            entry.score += semantic_weight / (RRF_K + at as f64 + 1.0);
        }
    }
    let mut rest: Vec<Fused> = rest.into_values().collect();
    rest.sort_by(order);
    fused.extend(rest);
    fused
}

/// Orders the complete hits: first those that hold the query whole (`whole` of a lexical
/// place: [`super::tiers::Tier::holds_whole`]), then the others; in each, the threads the
/// query names ([`Fused::name`]) first, lexical order otherwise. A post of another thread
/// that holds the words, the name among them in passing, with a common word missing or the
/// words apart (a project's announcement that mentions the named one) comes after the named
/// thread's; one that holds the query whole (the post a known-item query names) keeps its
/// place. On the tuning needs (1.4M corpus): nDCG@10 0.589 -> 0.622, P@10 0.418 -> 0.443 (3
/// needs helped, 1 hurt); known items 0.910 -> 0.911. Without the exception for whole
/// matches, one known item of 1,800 fell out of its top 10 (BENCHMARKS.md, "A named thread's
/// complete matches").
pub fn named_first(fused: &mut [Fused], whole: impl Fn(usize) -> bool) {
    let mut complete: Vec<&mut Fused> = fused.iter_mut().filter(|f| f.complete).collect();
    complete.sort_by_key(|f| {
        let at = f.lexical.unwrap_or(usize::MAX);
        (!whole(at), !f.named, at)
    });
    for (place, f) in complete.into_iter().enumerate() {
        f.place = place;
    }
}

/// The fused order: complete lexical hits first, by [`Fused::place`], then by score, ties to
/// the smaller post ID.
pub fn order(a: &Fused, b: &Fused) -> std::cmp::Ordering {
    match (a.complete, b.complete) {
        (true, true) => a.place.cmp(&b.place),
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => b.score.total_cmp(&a.score).then(a.post_id.cmp(&b.post_id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fused: &[Fused]) -> Vec<i64> {
        fused.iter().map(|f| f.post_id).collect()
    }

    #[test]
    fn a_named_threads_complete_hits_come_before_other_threads_after_whole_ones() {
        // Complete: 10 (other thread, whole), 11 (other), 12 (named), 13 (named, whole).
        let mut fused = fuse(&[10, 11, 12, 13, 14], 4, &[14], 1.0);
        for f in fused.iter_mut().filter(|f| [12, 13].contains(&f.post_id)) {
            f.name();
        }
        named_first(&mut fused, |at| at == 0 || at == 3);
        fused.sort_by(order);
        assert_eq!(ids(&fused), [13, 10, 12, 11, 14]);
        assert!(fused[..4].iter().all(|f| f.complete));
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
    fn a_demoted_post_goes_down_within_its_block() {
        let fused = fuse(&[1, 2, 3], 0, &[], 1.0);
        let (mut first, mut second, third) = (fused[0], fused[1], fused[2]);
        first.name();
        second.name();
        first.scale(0.5);
        // Still a named thread's post: above every other thread's post.
        assert!(first.named && first.score > NAMED_BONUS && first.score < second.score);
        assert!((first.score - (NAMED_BONUS + 0.5 / 61.0)).abs() < 1e-12);
        let mut third = third;
        third.scale(0.5);
        assert!((third.score - 0.5 / 63.0).abs() < 1e-12);
        assert!(third.score < first.score);
    }

    #[test]
    fn a_named_threads_opening_post_takes_part_as_a_leg_of_its_own() {
        let mut fused = fuse(&[1, 2, 3], 0, &[3, 2, 1], 1.0);
        for f in &mut fused {
            f.name();
        }
        let opener = fused.iter_mut().find(|f| f.post_id == 2).unwrap();
        let before = opener.score;
        opener.open();
        opener.open();
        assert!((opener.score - before - OPENER_WEIGHT / 61.0).abs() < 1e-12);
        fused.sort_by(order);
        assert_eq!(
            ids(&fused),
            [2, 1, 3],
            "second in both legs, first in its own"
        );
        let mut other = fuse(&[4], 0, &[], 1.0);
        other[0].open();
        assert!(!other[0].opener, "only a named thread's post");
    }

    #[test]
    fn only_each_legs_best_take_part() {
        let lexical: Vec<i64> = (0..150).collect();
        let fused = fuse(&lexical, 0, &[], 1.0);
        assert_eq!(fused.len(), LEG_DEPTH);
        assert!(fuse(&[], 0, &[], 1.0).is_empty());
    }
}
