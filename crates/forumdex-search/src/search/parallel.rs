//! One search's work shared among the node's cores: the semantic scan, the lexical walk and
//! the count each take their segments one at a time on as many threads as the work is
//! worth, so a node's latency comes from its own cores (issue #40).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::SearchError;

/// The threads one search step may use at `units` of work (documents, postings) over
/// `items` items: one per `per_thread` units, at least one, at most the node's cores and
/// the items.
pub(super) fn threads_for(units: u64, per_thread: u64, items: usize) -> usize {
    let wanted = usize::try_from(units / per_thread.max(1)).unwrap_or(usize::MAX);
    wanted.clamp(1, cores()).min(items.max(1))
}

/// The cores this process may run on (read once).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `work` done on each of `items` (with its place), on `threads` threads (the caller's
/// among them) that each take the next item not taken yet; the results in `items`' order.
pub(super) fn each_in_parallel<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    work: impl Fn(usize, &T) -> Result<R, SearchError> + Sync,
) -> Result<Vec<R>, SearchError> {
    let next = AtomicUsize::new(0);
    let some = || -> Result<Vec<(usize, R)>, SearchError> {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(at) else {
                return Ok(done);
            };
            done.push((at, work(at, item)?));
        }
    };
    let mut done = if threads <= 1 {
        some()?
    } else {
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(some)).collect();
            let mut done = some()?;
            for helper in helpers {
                done.extend(helper.join().expect("search work does not panic")?);
            }
            Ok::<_, SearchError>(done)
        })?
    };
    done.sort_unstable_by_key(|(at, _)| *at);
    Ok(done.into_iter().map(|(_, result)| result).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_shared_between_threads_comes_back_in_order_with_its_first_error() {
        let items: Vec<usize> = (0..50).collect();
        for threads in [1, 2, 3] {
            let doubled = each_in_parallel(threads, &items, |at, &item| {
                assert_eq!(at, item);
                Ok(item * 2)
            })
            .unwrap();
            assert_eq!(doubled, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        }
        let failed = each_in_parallel(2, &items, |_, &item| {
            if item == 7 {
                Err(SearchError::Index("item 7".into()))
            } else {
                Ok(item)
            }
        });
        assert!(failed.is_err());
    }

    #[test]
    fn threads_follow_the_work_within_the_cores_and_the_items() {
        assert_eq!(threads_for(0, 100, 8), 1);
        assert_eq!(threads_for(99, 100, 8), 1);
        assert_eq!(threads_for(u64::MAX, 100, 8), cores().min(8));
        assert_eq!(threads_for(u64::MAX, 100, 1), 1);
        assert_eq!(threads_for(u64::MAX, 100, 0), 1);
        assert_eq!(threads_for(200, 100, 8), 2.min(cores()));
        assert_eq!(threads_for(5, 0, 8), cores().min(5).min(8));
    }
}
