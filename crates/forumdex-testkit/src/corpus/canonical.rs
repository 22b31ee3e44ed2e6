//! The canonical rule: latest observed_at, ties broken by the smallest line SHA-256,
//! whatever the import order; re-imports add nothing.

use forumdex_corpus::{CorpusMaintenance, CorpusWrite, Millis};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::fixtures::*;
use crate::Fresh;

fn content(store: &dyn CorpusWrite, post_id: i64) -> String {
    store
        .post(post_id, latest(store))
        .unwrap()
        .unwrap()
        .content_html
}

/// The observation with the latest `observed_at` is canonical, whichever came first, in
/// two batches or in one.
pub fn latest_observation_wins_in_any_order<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let old = post(
        1,
        10,
        Some(3),
        Some("2020-01-01T00:00:00Z"),
        json!({"content_html": "old", "observed_at": "2024-01-01T00:00:00Z"}),
    );
    let new = post(
        1,
        10,
        Some(3),
        Some("2020-01-01T00:00:00Z"),
        json!({"content_html": "new", "observed_at": "2024-02-01T00:00:00+01:00"}),
    );
    for order in [[&old, &new], [&new, &old]] {
        let store = fresh.backend();
        import(&store, &[order[0].clone()], 1);
        import(&store, &[order[1].clone()], 2);
        assert_eq!(content(&store, 1), "new");
        // One batch holding both, either way round.
        let together = fresh.backend();
        import(&together, &[order[0].clone(), order[1].clone()], 1);
        assert_eq!(content(&together, 1), "new");
    }
}

/// Equal `observed_at`: the line with the smallest SHA-256 wins, in either order.
pub fn equal_observed_at_ties_break_on_smallest_line_sha256<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let a = post(1, 10, Some(3), None, json!({"content_html": "alpha"}));
    let b = post(1, 10, Some(3), None, json!({"content_html": "beta"}));
    let sha = |line: &String| hex::encode(Sha256::digest(line.as_bytes()));
    let expected = if sha(&a) < sha(&b) { "alpha" } else { "beta" };
    for order in [[&a, &b], [&b, &a]] {
        let store = fresh.backend();
        import(&store, &[order[0].clone()], 1);
        import(&store, &[order[1].clone()], 2);
        assert_eq!(content(&store, 1), expected);
    }
}

/// A batch with nothing new takes no sequence.
pub fn reimport_is_a_no_op_without_a_sequence<S: CorpusWrite + CorpusMaintenance>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let lines = vec![
        post(1, 10, Some(3), None, json!({})),
        line(
            json!({"kind": "board", "board_id": 7, "name": "Mining", "observed_at": "2024-03-01T12:00:00Z"}),
        ),
    ];
    assert_eq!(import(&store, &lines, 1), Some(1));
    let again = store
        .import_batch(&observations(&lines), Millis(2))
        .unwrap();
    assert_eq!(again.seq, None);
    assert_eq!(again.known_observations, 2);
    assert_eq!(again.new_observations, 0);
    assert_eq!(latest(&store), 1);
}

/// An older observation imported after the canonical one takes a sequence but changes no
/// document.
pub fn an_older_observation_after_the_canonical_one_changes_nothing<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let new = post(
        1,
        10,
        Some(3),
        None,
        json!({"content_html": "new", "observed_at": "2024-02-01T00:00:00Z"}),
    );
    let old = post(
        1,
        10,
        Some(3),
        None,
        json!({"content_html": "old", "observed_at": "2024-01-01T00:00:00Z"}),
    );
    import(&store, &[new], 1);
    let seq = import(&store, &[old], 2).expect("a new observation takes a sequence");
    assert_eq!(content(&store, 1), "new");
    assert_eq!(store.post(1, seq).unwrap().unwrap().indexed_at.0, 1);
}
