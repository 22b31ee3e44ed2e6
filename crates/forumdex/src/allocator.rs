//! Tuning of the process's allocator, mimalloc (installed in `main.rs`), for batch commands.

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// mimalloc's `mi_option_purge_delay`: the milliseconds freed memory waits before it is
/// returned to the system. The C enum's value; `libmimalloc-sys` names no constant for it,
/// so [`keep_freed_memory`] checks it against the option's default before use.
const PURGE_DELAY: mi_option_t = 15;
/// mimalloc's default purge delay, in milliseconds.
const DEFAULT_PURGE_DELAY_MS: std::ffi::c_long = 1_000;

/// Keeps the memory the process frees for its own reuse until it exits, instead of returning
/// it to the system after mimalloc's purge delay (1 s). An import allocates and frees the
/// index writers' buffers (hundreds of MB) in every sync window; returned to the system,
/// each window faulted them back in as freshly zeroed pages: about 4 s of system CPU of
/// the 1.4M-post import (BENCHMARKS.md, "The seventh round"). The price is resident memory:
/// the peak stays resident until the command ends.
///
/// Only for commands that end when their batch is done (`import`), never for `serve`.
/// Returns whether it changed the option: it leaves alone an option that does not hold its
/// default, because the operator set `MIMALLOC_PURGE_DELAY` (which then stands) or another
/// mimalloc numbers its options differently.
#[expect(
    unsafe_code,
    reason = "mimalloc's options are set through its C interface; no safe wrapper exists"
)]
pub fn keep_freed_memory() -> bool {
    // SAFETY: both calls only read or store one integer of mimalloc's option table; the
    // option is read again each time memory is about to be purged.
    unsafe {
        if mi_option_get(PURGE_DELAY) != DEFAULT_PURGE_DELAY_MS {
            return false;
        }
        mi_option_set(PURGE_DELAY, -1);
        mi_option_get(PURGE_DELAY) == -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(
        unsafe_code,
        reason = "reads mimalloc's option through its C interface"
    )]
    fn the_purge_delay_option_is_where_mimalloc_documents_it() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads one integer of the option table.
        let delay = unsafe { mi_option_get(PURGE_DELAY) };
        assert_eq!(delay, DEFAULT_PURGE_DELAY_MS);
        assert!(keep_freed_memory());
        assert!(!keep_freed_memory(), "already changed: left alone");
    }
}
