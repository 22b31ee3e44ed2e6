//! The conformance suite of the corpus seams (`CorpusRead`, `CorpusWrite`,
//! `CorpusMaintenance`): the canonical rule, derived values, keyset listings, MVCC
//! snapshots, deletions and takedowns, topic documents across imports, each case on fresh,
//! empty stores.
//! [`corpus_store_conformance!`](crate::corpus_store_conformance) runs every case.

pub mod canonical;
pub mod derived;
pub mod fixtures;
pub mod listing;
pub mod removals;
pub mod snapshots;
pub mod topics;

pub use canonical::*;
pub use derived::*;
pub use listing::*;
pub use removals::*;
pub use snapshots::*;
pub use topics::*;

/// Runs every case of [`corpus`](crate::corpus) as a `#[test]` in a module
/// `corpus_store_conformance`, on stores made by `$make` (`|dir: &Path| -> impl CorpusWrite
/// + CorpusMaintenance`, an empty store using the temporary folder `dir`).
#[macro_export]
macro_rules! corpus_store_conformance {
    ($make:expr) => {
        $crate::__conformance_tests!(corpus_store_conformance, [$crate::corpus], $make;
            latest_observation_wins_in_any_order,
            equal_observed_at_ties_break_on_smallest_line_sha256,
            reimport_is_a_no_op_without_a_sequence,
            an_older_observation_after_the_canonical_one_changes_nothing,
            topic_with_a_record_and_listed_senders,
            topic_without_a_record_falls_back_to_its_posts,
            explicit_is_op_wins_over_the_smallest_post_id,
            profiles_with_and_without_records,
            posts_reads_many_at_once,
            counts_of_canonical_entities,
            walks_match_independent_listings_for_every_filter_order_and_size,
            undated_posts_come_first_ascending_and_last_descending,
            snapshot_reads_stay_stable_while_a_concurrent_import_adds_and_updates,
            superseded_versions_are_collected_after_the_horizon_only,
            reads_before_a_post_existed_do_not_see_it,
            posts_changed_lists_what_became_canonical_in_a_range,
            a_deleted_canonical_post_is_served_as_absent,
            takedowns_hold_at_every_snapshot_until_lifted,
            topic_values_at_an_older_snapshot_stay_after_later_imports,
            deleting_posts_updates_their_topic_at_each_snapshot,
            a_takedown_inside_a_topic_leaves_its_posts_out_of_the_topic,
            a_large_topic_matches_a_model_of_its_posts_at_every_snapshot,
        );
    };
}
