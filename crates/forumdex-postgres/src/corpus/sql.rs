//! The predicates every read of posts goes through ([`forumdex_sql`], written once for both
//! backends), in this backend's dialect.

use forumdex_sql::Dialect;

pub(super) const DIALECT: Dialect = Dialect::Postgres;

/// Whether the version row of alias `t` is visible at the read's sequence.
pub(super) fn visible(t: &str) -> String {
    forumdex_sql::visible(DIALECT, t)
}

/// Whether the post version of alias `p` is served (live, not under a takedown in force).
pub(super) fn served(p: &str) -> String {
    forumdex_sql::served(DIALECT, p)
}
