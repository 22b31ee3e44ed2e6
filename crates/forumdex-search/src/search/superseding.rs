//! Within a named thread, the later word first when the query asks how things stand.
//!
//! A project's thread says "the sale ends on the 15th", then "extended to the 30th", then
//! "tokens distributed"; "bounty paid when", "X dead?" or "what happened to X" asks for the
//! latest of those. On the semantic path, when the query asks how things stand
//! ([`super::intent::asks_status`]), the posts of the named threads among the fused posts
//! that were read ([`super::answers::LOOKED_AT`]) are ranked newest first, and that order
//! takes part in the fusion as a third leg: `LATER_WEIGHT / (RRF_K + rank)` is added to
//! each one's score. Among posts the query matches about as well, the later one comes
//! first; a far better match keeps its place (BENCHMARKS.md, "The later word").

use std::collections::HashMap;

use super::fusion::{Fused, RRF_K};

/// The weight of the newest-first order in the fusion: the semantic leg's
/// ([`super::fusion::SEMANTIC_WEIGHT`]); on the tuning needs 1 and 2 measured nDCG@10 0.579
/// and 0.590 (BENCHMARKS.md, "The later word").
pub const LATER_WEIGHT: f64 = 2.0;

/// Adds to the fusion score of each post of `dated` (post ID, date in ms: the named
/// threads' posts that were read) its place in the newest-first order of those posts,
/// weighed by [`LATER_WEIGHT`] as a leg of the fusion (posts of one date share a place).
/// Fewer than two posts, or one date for all, change nothing.
pub fn prefer_later(fused: &mut [Fused], dated: &[(i64, i64)]) {
    let mut newest_first: Vec<i64> = dated.iter().map(|&(_, date)| date).collect();
    newest_first.sort_unstable_by(|a, b| b.cmp(a));
    newest_first.dedup();
    if newest_first.len() < 2 {
        return;
    }
    let date_of: HashMap<i64, i64> = dated.iter().copied().collect();
    for f in fused.iter_mut() {
        if let Some(date) = date_of.get(&f.post_id) {
            let place = newest_first.partition_point(|newer| newer > date);
            f.score += LATER_WEIGHT / (RRF_K + place as f64 + 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fusion::{fuse, order};

    fn named(semantic: &[i64]) -> Vec<Fused> {
        let mut fused = fuse(&[], 0, semantic, 2.0);
        for f in &mut fused {
            f.name();
        }
        fused
    }

    fn ids(fused: &[Fused]) -> Vec<i64> {
        fused.iter().map(|f| f.post_id).collect()
    }

    #[test]
    fn the_latest_post_of_a_named_thread_overtakes_a_close_earlier_match() {
        let mut fused = named(&[1, 2, 3]);
        prefer_later(&mut fused, &[(1, 1_000), (2, 3_000), (3, 2_000)]);
        fused.sort_by(order);
        assert_eq!(ids(&fused), vec![2, 1, 3]);
        assert!(fused.iter().all(|f| f.score > 1.0 && f.named));
    }

    #[test]
    fn a_far_better_match_keeps_its_place_and_unread_posts_are_left_alone() {
        let semantic: Vec<i64> = (1..=40).collect();
        let mut fused = named(&semantic);
        let before: Vec<f64> = fused.iter().map(|f| f.score).collect();
        prefer_later(&mut fused, &[(1, 1_000), (20, 5_000), (40, 9_000)]);
        fused.sort_by(order);
        assert_eq!(
            fused[0].post_id, 1,
            "the best match, posted first, stays first"
        );
        let score_of = |id: i64| fused.iter().find(|f| f.post_id == id).unwrap().score;
        assert!(score_of(40) > before[39]);
        assert!(score_of(20) - before[19] > score_of(1) - before[0]);
        assert_eq!(score_of(30), before[29], "a post not read is left alone");
    }

    #[test]
    fn one_post_or_one_date_changes_nothing() {
        let mut fused = named(&[1, 2]);
        let before = fused.clone();
        prefer_later(&mut fused, &[(2, 5_000)]);
        prefer_later(&mut fused, &[(1, 5_000), (2, 5_000)]);
        prefer_later(&mut fused, &[]);
        assert_eq!(fused, before);
    }
}
