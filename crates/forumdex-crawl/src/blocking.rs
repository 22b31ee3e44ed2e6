//! [`off_runtime`]: blocking work called from the crawl's async loop.

/// Runs `work` on a thread of its own and waits for it. The crawl loop runs on a
/// current-thread runtime and calls its stores (the crawl state, the sink's corpus) from
/// it: harmless for SQLite, but PostgreSQL's blocking client starts a runtime of its own,
/// which may not run inside another. A crawl waits a second or more between requests, so a
/// thread per call costs nothing that matters. A panic of `work` is raised again here.
pub(crate) fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| scope.spawn(work).join())
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
