//! The SQL both backends (`forumdex-sqlite`, `forumdex-postgres`) share, written once, with
//! the two dialects' differences named in [`Dialect`]. The domain crates hold no SQL; the
//! backends open transactions and run these statements in them.
//!
//! - [`Sql`] ([`exec`]): a transaction as both backends offer it, so that a statement and the
//!   steps around it are written once.
//! - [`accounts`]: every statement of the accounts and dashboard stores.
//! - [`post_vectors`]: the post vectors of the semantic leg (`forumdex_corpus::VectorStore`).
//! - [`topic_posts`]: the aggregates of a topic's posts both ways to a topic document share.
//! - The predicates every read of posts goes through:
//!   - [`visible`]: a version row is visible at sequence S when
//!     `valid_from <= S AND (valid_to IS NULL OR valid_to > S)` (ARCHITECTURE.md, "MVCC
//!     visibility").
//!   - [`live`]: a post version visible and not a deletion.
//!   - [`served`]: live, and neither the post, its topic nor its author under a takedown in
//!     force: the predicate of every post read.
//!   - [`derived_is_op`]: a post's `is_op` (its record's, else the smallest post ID of its
//!     topic, whatever is served).
#![forbid(unsafe_code)]

use forumdex_corpus::{Order, Scope};

pub mod accounts;
mod dialect;
pub mod exec;
pub mod post_vectors;
pub mod topic_posts;

/// What [`impl_account_stores!`] names from other crates, so a backend needs no more imports.
#[doc(hidden)]
pub mod reexport {
    pub use chrono;
    pub use forumdex_accounts;
    /// An instant, as the stores take them.
    pub type Instant = chrono::DateTime<chrono::Utc>;
}

pub use dialect::Dialect;
pub use exec::{
    AnyDb, Cell, CellError, Db, DynSql, Erased, Failure, FromCell, Param, Row, Sql,
    numbered_parameters,
};

/// Whether the version row of table alias `t` is visible at the sequence.
pub fn visible(dialect: Dialect, t: &str) -> String {
    let seq = dialect.seq();
    format!("({t}.valid_from <= {seq} AND ({t}.valid_to IS NULL OR {t}.valid_to > {seq}))")
}

/// Whether the post version of alias `p` is live at the sequence: visible and not a
/// deletion. What is served is the live posts not under a takedown ([`served`]).
pub fn live(dialect: Dialect, p: &str) -> String {
    format!(
        "({} AND {})",
        visible(dialect, p),
        dialect.is_false(&format!("{p}.deleted"))
    )
}

/// Whether the post version of alias `p` is served at the sequence: live, and neither it,
/// its topic nor its author under a takedown in force. With no takedown in force the row
/// checks are skipped: both databases run the uncorrelated `EXISTS` once per statement
/// (SQLite: a 3,753-post topic aggregate costs 1.1 ms instead of 2.3 ms; PostgreSQL: an
/// initplan); otherwise each check is one probe of the `takedown_in_force` index.
pub fn served(dialect: Dialect, p: &str) -> String {
    format!(
        "({live}
          AND (NOT EXISTS (SELECT 1 FROM takedowns WHERE lifted_at IS NULL)
               OR (NOT EXISTS (SELECT 1 FROM takedowns k WHERE k.kind = 'post'
                               AND k.entity_id = {p}.post_id AND k.lifted_at IS NULL)
                   AND NOT EXISTS (SELECT 1 FROM takedowns k WHERE k.kind = 'topic'
                                   AND k.entity_id = {p}.topic_id AND k.lifted_at IS NULL)
                   AND ({p}.author_id IS NULL
                        OR NOT EXISTS (SELECT 1 FROM takedowns k WHERE k.kind = 'profile'
                                       AND k.entity_id = {p}.author_id
                                       AND k.lifted_at IS NULL)))))",
        live = live(dialect, p),
    )
}

/// The `is_op` of the post version of alias `p` at the sequence: its record's, else whether
/// it has the smallest post ID of its topic, whatever is served (corpus-format.md; so a
/// deletion or a takedown never makes another post the opening one).
pub fn derived_is_op(dialect: Dialect, p: &str) -> String {
    format!(
        "COALESCE({p}.is_op, {p}.post_id = (SELECT q.post_id FROM post_versions q
                                          WHERE q.topic_id = {p}.topic_id AND {vq}
                                          ORDER BY q.post_id LIMIT 1))",
        vq = visible(dialect, "q"),
    )
}

/// The columns a post read takes, for a `post_versions` alias `p`, in the order of
/// `PostDoc`'s fields with `sort_at` last. The effective board falls back to the topic's; a
/// missing `is_op` is derived ([`derived_is_op`]).
pub fn post_columns(dialect: Dialect) -> String {
    format!(
        "p.post_id, p.topic_id, p.post_number, p.title, p.author_id, p.author_name,
         COALESCE(p.board_id, (SELECT t.board_id FROM topic_versions t
                               WHERE t.topic_id = p.topic_id AND {vt})) AS board_id,
         p.language, p.posted_at, p.content_html, p.indexed_at, p.observed_at,
         p.merit_total, p.merit_distinct, p.merit_tx, {is_op} AS is_op, p.sort_at",
        vt = visible(dialect, "t"),
        is_op = derived_is_op(dialect, "p"),
    )
}

/// A profile's recorded username (one row when it has a record), the profile named by the
/// parameter `profile`.
pub fn profile_record_sql(dialect: Dialect, profile: &str) -> String {
    format!(
        "SELECT r.username FROM profile_versions r WHERE r.profile_id = {profile} AND {}",
        visible(dialect, "r")
    )
}

/// A profile's activity over its served posts: their count, distinct topics, first and
/// last `posted_at`; the profile named by the parameter `profile`.
pub fn profile_activity_sql(dialect: Dialect, profile: &str) -> String {
    format!(
        "SELECT COUNT(*), COUNT(DISTINCT p.topic_id), MIN(p.posted_at), MAX(p.posted_at)
         FROM post_versions p WHERE p.author_id = {profile} AND {}",
        served(dialect, "p")
    )
}

/// Whether the listing's topic or profile, named by the parameter `id`, has a visible
/// record or a served post.
pub fn scope_exists_sql(dialect: Dialect, scope: Scope, id: &str) -> String {
    let (records, posts) = match scope {
        Scope::Topic(_) => ("topic_versions r WHERE r.topic_id", "p.topic_id"),
        Scope::Profile(_) => ("profile_versions r WHERE r.profile_id", "p.author_id"),
    };
    format!(
        "SELECT EXISTS (SELECT 1 FROM {records} = {id} AND {vr})
             OR EXISTS (SELECT 1 FROM post_versions p WHERE {posts} = {id} AND {vp})",
        vr = visible(dialect, "r"),
        vp = served(dialect, "p"),
    )
}

/// The columns of a takedown row, in the order of `StoredTakedown`'s fields.
pub const TAKEDOWN_COLUMNS: &str =
    "takedown_id, kind, entity_id, reason, created_at, lifted_at, lifted_reason";

/// Inserts into `takedown_topics` the `(takedown, topic)` pairs `select` gives, keeping the
/// pairs already there.
fn insert_takedown_topics(dialect: Dialect, select: &str) -> String {
    match dialect {
        Dialect::Sqlite => {
            format!("INSERT OR IGNORE INTO takedown_topics (takedown_id, topic_id) {select}")
        }
        Dialect::Postgres => format!(
            "INSERT INTO takedown_topics (takedown_id, topic_id) {select} ON CONFLICT DO NOTHING"
        ),
    }
}

/// Lists in `takedown_topics` the topics of every version of the posts of the post and
/// profile takedowns in force that `which` (a condition on takedown alias `k`) selects.
pub fn record_takedown_topics_sql(dialect: Dialect, which: &str) -> String {
    insert_takedown_topics(
        dialect,
        &format!(
            "SELECT k.takedown_id, p.topic_id FROM takedowns k
             JOIN post_versions p ON p.post_id = k.entity_id
             WHERE k.kind = 'post' AND k.lifted_at IS NULL AND {which}
             UNION ALL
             SELECT k.takedown_id, p.topic_id FROM takedowns k
             JOIN post_versions p ON p.author_id = k.entity_id
             WHERE k.kind = 'profile' AND k.lifted_at IS NULL AND {which}"
        ),
    )
}

/// Lists in `takedown_topics` the topics of the post versions opened at the sequence
/// parameter `seq` whose post or author is under a takedown in force.
pub fn record_new_versions_sql(dialect: Dialect, seq: &str) -> String {
    insert_takedown_topics(
        dialect,
        &format!(
            "SELECT k.takedown_id, p.topic_id FROM post_versions p
             JOIN takedowns k ON k.kind = 'post' AND k.entity_id = p.post_id
                             AND k.lifted_at IS NULL
             WHERE p.valid_from = {seq}
             UNION ALL
             SELECT k.takedown_id, p.topic_id FROM post_versions p
             JOIN takedowns k ON k.kind = 'profile' AND k.entity_id = p.author_id
                             AND k.lifted_at IS NULL
             WHERE p.valid_from = {seq}"
        ),
    )
}

/// The tables of versioned documents, whose superseded rows garbage collection deletes.
pub const VERSION_TABLES: [&str; 5] = [
    "board_versions",
    "profile_versions",
    "topic_versions",
    "post_versions",
    "image_versions",
];

/// The statement that reads the posts served at the sequence which `where_order` selects
/// and orders (it follows `... FROM post_versions p WHERE <served> AND`), with the columns of
/// [`post_columns`].
pub fn posts_where_sql(dialect: Dialect, where_order: &str) -> String {
    format!(
        "SELECT {} FROM post_versions p WHERE {} AND {where_order}",
        post_columns(dialect),
        served(dialect, "p")
    )
}

/// The statement that reads the live posts at the sequence which `where_order` selects and
/// orders, takedowns included (it follows `... FROM post_versions p WHERE <live> AND`): what
/// the search sync indexes, as [`posts_changed_sql`] lists it. The columns of
/// [`post_columns`].
pub fn live_posts_where_sql(dialect: Dialect, where_order: &str) -> String {
    format!(
        "SELECT {} FROM post_versions p WHERE {} AND {where_order}",
        post_columns(dialect),
        live(dialect, "p")
    )
}

/// How a listing page walks the scope's index: the column that names the scope, the
/// comparison with the start position, and the direction.
pub fn list_walk(scope: Scope, order: Order) -> (&'static str, &'static str, &'static str) {
    let scope_column = match scope {
        Scope::Topic(_) => "p.topic_id",
        Scope::Profile(_) => "p.author_id",
    };
    let (cmp, dir) = match order {
        Order::Asc => (">", "ASC"),
        Order::Desc => ("<", "DESC"),
    };
    (scope_column, cmp, dir)
}

/// The post versions that became visible after sequence parameter `since`, up to the
/// dialect's sequence parameter, after the position (`after_seq`, `after_post`), at most
/// `limit` of them, in order: the columns of [`post_columns`], then `valid_from` and
/// `deleted`.
pub fn posts_changed_sql(
    dialect: Dialect,
    [since, after_seq, after_post, limit]: [&str; 4],
) -> String {
    format!(
        "SELECT {cols}, p.valid_from, p.deleted FROM post_versions p
         WHERE p.valid_from > {since} AND p.valid_from <= {seq} AND {vp}
           AND (p.valid_from, p.post_id) > ({after_seq}, {after_post})
         ORDER BY p.valid_from, p.post_id LIMIT {limit}",
        cols = post_columns(dialect),
        seq = dialect.seq(),
        vp = visible(dialect, "p"),
    )
}

/// The statements that count what a snapshot holds, one integer each, in the order of
/// `CorpusCounts`' fields: posts served; topics and profiles (with a record or named by a
/// served post, not under a takedown); boards; images.
pub fn count_statements(dialect: Dialect) -> [String; 5] {
    let (visible_r, served_p) = (visible(dialect, "r"), served(dialect, "p"));
    [
        format!("SELECT COUNT(*) FROM post_versions p WHERE {served_p}"),
        format!(
            "SELECT COUNT(*) FROM (SELECT r.topic_id FROM topic_versions r WHERE {visible_r}
                                   UNION SELECT p.topic_id FROM post_versions p WHERE {served_p}) c
             WHERE NOT EXISTS (SELECT 1 FROM takedowns k WHERE k.kind = 'topic'
                               AND k.entity_id = c.topic_id AND k.lifted_at IS NULL)"
        ),
        format!(
            "SELECT COUNT(*) FROM (SELECT r.profile_id FROM profile_versions r WHERE {visible_r}
                                   UNION SELECT p.author_id FROM post_versions p
                                         WHERE p.author_id IS NOT NULL AND {served_p}) c
             WHERE NOT EXISTS (SELECT 1 FROM takedowns k WHERE k.kind = 'profile'
                               AND k.entity_id = c.profile_id AND k.lifted_at IS NULL)"
        ),
        format!("SELECT COUNT(*) FROM board_versions r WHERE {visible_r}"),
        format!("SELECT COUNT(*) FROM image_versions r WHERE {visible_r}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialects_differ_only_in_the_sequence_parameter_and_booleans() {
        assert_eq!(
            visible(Dialect::Sqlite, "v"),
            "(v.valid_from <= :seq AND (v.valid_to IS NULL OR v.valid_to > :seq))"
        );
        assert_eq!(
            visible(Dialect::Postgres, "v"),
            "(v.valid_from <= $1 AND (v.valid_to IS NULL OR v.valid_to > $1))"
        );
        assert!(live(Dialect::Sqlite, "p").ends_with("AND p.deleted = 0)"));
        assert!(live(Dialect::Postgres, "p").ends_with("AND NOT p.deleted)"));
        let sqlite = served(Dialect::Sqlite, "p")
            .replace(":seq", "$1")
            .replace("p.deleted = 0", "NOT p.deleted");
        assert_eq!(sqlite, served(Dialect::Postgres, "p"));
        assert!(derived_is_op(Dialect::Postgres, "p").contains("q.valid_to > $1"));
    }
}
