//! Keyset listings compared with listings computed here from the fixture, for every filter,
//! both orders and several page sizes, incl. undated posts and equal timestamps.

use forumdex_corpus::*;

use super::fixtures::*;
use crate::Fresh;

fn expected(posts: &[ListedPost], scope: Scope, order: Order, filters: &ListFilters) -> Vec<i64> {
    let mut matching: Vec<&ListedPost> = posts
        .iter()
        .filter(|f| match scope {
            Scope::Topic(id) => f.topic_id == id,
            Scope::Profile(id) => f.author == Some(id),
        })
        .filter(|f| {
            let effective_board = f.board.or(if f.topic_id == 10 { Some(9) } else { None });
            filters.board_id.is_none_or(|b| effective_board == Some(b))
                && filters.author_id.is_none_or(|a| f.author == Some(a))
                && filters.topic_id.is_none_or(|t| f.topic_id == t)
                && filters
                    .date_from
                    .is_none_or(|from| f.posted_at.is_some_and(|at| at >= from.0))
                && filters
                    .date_to
                    .is_none_or(|to| f.posted_at.is_some_and(|at| at < to.0))
        })
        .collect();
    matching.sort_by_key(|f| (f.posted_at.unwrap_or(i64::MIN), f.post_id));
    if order == Order::Desc {
        matching.reverse();
    }
    matching.iter().map(|f| f.post_id).collect()
}

fn walk(
    store: &dyn CorpusWrite,
    scope: Scope,
    order: Order,
    filters: ListFilters,
    limit: usize,
    budget: usize,
) -> Vec<i64> {
    let seq = latest(store);
    let mut out = Vec::new();
    let mut after = None;
    for _ in 0..10_000 {
        let request = ListRequest {
            scope,
            order,
            filters,
            limit,
            after,
            scan_budget: budget,
        };
        let page = store.list_posts(&request, seq).unwrap();
        assert!(page.posts.len() <= limit);
        out.extend(page.posts.iter().map(|p| p.post_id));
        match page.next {
            Some(next) => after = Some(next),
            None => return out,
        }
    }
    panic!("the walk did not end");
}

/// Walking every listing page by page, for every filter, both orders and several page
/// sizes (and a tight scan budget), gives the listing computed here from the fixture.
pub fn walks_match_independent_listings_for_every_filter_order_and_size<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let posts = listing_corpus(&store);
    let day = |d: &str| Some(Millis(ms(d)));
    let topic_filters = [
        ListFilters::default(),
        ListFilters {
            author_id: Some(2),
            ..Default::default()
        },
        ListFilters {
            board_id: Some(7),
            ..Default::default()
        },
        ListFilters {
            board_id: Some(9),
            ..Default::default()
        },
        ListFilters {
            date_from: day("2021-01-02T00:00:00Z"),
            ..Default::default()
        },
        ListFilters {
            date_to: day("2021-01-03T00:00:00Z"),
            ..Default::default()
        },
        ListFilters {
            date_from: day("2021-01-02T00:00:00Z"),
            date_to: day("2021-01-03T12:00:00Z"),
            board_id: Some(8),
            author_id: Some(3),
            ..Default::default()
        },
    ];
    let profile_filters = [
        ListFilters::default(),
        ListFilters {
            topic_id: Some(20),
            ..Default::default()
        },
        ListFilters {
            board_id: Some(8),
            topic_id: Some(10),
            ..Default::default()
        },
        ListFilters {
            date_from: day("2021-01-02T00:00:00Z"),
            date_to: day("2021-01-04T00:00:00Z"),
            ..Default::default()
        },
    ];
    let cases = topic_filters
        .iter()
        .flat_map(|f| [(Scope::Topic(10), *f), (Scope::Topic(20), *f)])
        .chain(
            profile_filters
                .iter()
                .flat_map(|f| [(Scope::Profile(2), *f), (Scope::Profile(4), *f)]),
        );
    let (mut checked, mut non_empty) = (0, 0);
    for (scope, filters) in cases {
        for order in [Order::Asc, Order::Desc] {
            let want = expected(&posts, scope, order, &filters);
            non_empty += usize::from(!want.is_empty());
            for limit in [1, 7, 50, 100] {
                assert_eq!(
                    walk(&store, scope, order, filters, limit, 10_000),
                    want,
                    "{scope:?} {order:?} {filters:?} limit {limit}"
                );
            }
            // A tight scan budget gives short or empty pages but the same listing.
            assert_eq!(
                walk(&store, scope, order, filters, 5, 3),
                want,
                "{scope:?} {order:?} {filters:?} budget 3"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 44);
    assert!(
        non_empty >= 40,
        "the fixture exercises the filters: {non_empty}"
    );
}

/// Undated posts sort first ascending and last descending.
pub fn undated_posts_come_first_ascending_and_last_descending<
    S: CorpusWrite + CorpusMaintenance,
>(
    fresh: &Fresh<'_, S>,
) {
    let store = fresh.backend();
    let posts = listing_corpus(&store);
    let asc = walk(
        &store,
        Scope::Topic(10),
        Order::Asc,
        ListFilters::default(),
        50,
        1_000,
    );
    let undated: Vec<i64> = {
        let mut ids: Vec<i64> = posts
            .iter()
            .filter(|f| f.topic_id == 10 && f.posted_at.is_none())
            .map(|f| f.post_id)
            .collect();
        ids.sort();
        ids
    };
    assert!(!undated.is_empty());
    assert_eq!(&asc[..undated.len()], undated.as_slice());
    let desc = walk(
        &store,
        Scope::Topic(10),
        Order::Desc,
        ListFilters::default(),
        50,
        1_000,
    );
    assert_eq!(desc.iter().rev().copied().collect::<Vec<_>>(), asc);
}
