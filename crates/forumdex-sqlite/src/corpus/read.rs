//! Reads at a sequence number. Every query filters versions with [`visible`], so a read at
//! sequence S sees exactly the canonical documents current at S.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use forumdex_corpus::derive::{self, ProfileSource};
use forumdex_corpus::model::*;
use forumdex_corpus::record::MeritCounts;
use forumdex_corpus::takedown::TakedownTarget;
use forumdex_corpus::time::Millis;

use forumdex_sql::{
    count_statements, list_walk, live_posts_where_sql, post_columns, posts_changed_sql,
    posts_where_sql, profile_activity_sql, profile_record_sql, scope_exists_sql,
};

use super::sql::{DIALECT, served, visible};
use super::takedowns::taken_down;

pub(super) fn latest_seq(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM sequences", [], |row| {
        row.get(0)
    })
}

pub(super) fn sequence_created_at(conn: &Connection, seq: i64) -> rusqlite::Result<Option<Millis>> {
    conn.query_row(
        "SELECT created_at FROM sequences WHERE seq = ?1",
        [seq],
        |row| row.get(0).map(Millis),
    )
    .optional()
}

/// A post row before its board name is filled in.
fn post_from_row(row: &Row<'_>) -> rusqlite::Result<PostDoc> {
    Ok(PostDoc {
        post_id: row.get(0)?,
        topic_id: row.get(1)?,
        post_number: row.get(2)?,
        title: row.get(3)?,
        author_id: row.get(4)?,
        author_name: row.get(5)?,
        board: BoardRef {
            board_id: row.get(6)?,
            name: String::new(),
        },
        language: row.get(7)?,
        posted_at: row.get::<_, Option<i64>>(8)?.map(Millis),
        content_html: row.get(9)?,
        indexed_at: Millis(row.get(10)?),
        merit: Merit {
            counts: MeritCounts {
                total: row.get(12)?,
                distinct_senders: row.get(13)?,
                transactions: row.get(14)?,
            },
            observed_at: Some(Millis(row.get(11)?)),
        },
        is_op: row.get(15)?,
    })
}

/// Fills board names, looking each board up once.
pub(super) struct BoardNames<'c> {
    conn: &'c Connection,
    seq: i64,
    cache: HashMap<i64, String>,
}

impl<'c> BoardNames<'c> {
    pub(super) fn new(conn: &'c Connection, seq: i64) -> Self {
        Self {
            conn,
            seq,
            cache: HashMap::new(),
        }
    }

    /// The name of board `board_id` ("" for none or no record).
    pub(super) fn name(&mut self, board_id: Option<i64>) -> rusqlite::Result<String> {
        let Some(id) = board_id else {
            return Ok(String::new());
        };
        if let Some(name) = self.cache.get(&id) {
            return Ok(name.clone());
        }
        let name: String = self
            .conn
            .prepare_cached(&format!(
                "SELECT b.name FROM board_versions b WHERE b.board_id = :id AND {}",
                visible("b")
            ))?
            .query_row(named_params! {":id": id, ":seq": self.seq}, |row| {
                row.get(0)
            })
            .optional()?
            .unwrap_or_default();
        self.cache.insert(id, name.clone());
        Ok(name)
    }

    fn fill(&mut self, mut post: PostDoc) -> rusqlite::Result<PostDoc> {
        post.board.name = self.name(post.board.board_id)?;
        Ok(post)
    }
}

/// Runs a post query (`where_order` follows `FROM post_versions p WHERE <visible> AND`).
pub(super) fn posts_where(
    conn: &Connection,
    seq: i64,
    where_order: &str,
    params: &[(&str, &dyn rusqlite::ToSql)],
) -> rusqlite::Result<Vec<PostDoc>> {
    read_posts(conn, seq, &posts_where_sql(DIALECT, where_order), params)
}

/// Runs the post query `sql` at `seq` with `params`.
fn read_posts(
    conn: &Connection,
    seq: i64,
    sql: &str,
    params: &[(&str, &dyn rusqlite::ToSql)],
) -> rusqlite::Result<Vec<PostDoc>> {
    let mut all: Vec<(&str, &dyn rusqlite::ToSql)> = vec![(":seq", &seq)];
    all.extend_from_slice(params);
    let mut statement = conn.prepare_cached(sql)?;
    let rows = statement.query_map(all.as_slice(), post_from_row)?;
    let mut boards = BoardNames::new(conn, seq);
    rows.map(|post| boards.fill(post?)).collect()
}

pub(super) fn post(conn: &Connection, post_id: i64, seq: i64) -> rusqlite::Result<Option<PostDoc>> {
    Ok(
        posts_where(conn, seq, "p.post_id = :id", &[(":id", &post_id)])?
            .into_iter()
            .next(),
    )
}

pub(super) fn posts(
    conn: &Connection,
    post_ids: &[i64],
    seq: i64,
) -> rusqlite::Result<HashMap<i64, PostDoc>> {
    posts_among(conn, post_ids, seq, posts_where_sql)
}

/// The live posts among `post_ids`, takedowns included (`CorpusRead::live_posts`).
pub(super) fn live_posts(
    conn: &Connection,
    post_ids: &[i64],
    seq: i64,
) -> rusqlite::Result<HashMap<i64, PostDoc>> {
    posts_among(conn, post_ids, seq, live_posts_where_sql)
}

/// The posts among `post_ids` that the statement `sql_of` makes selects.
fn posts_among(
    conn: &Connection,
    post_ids: &[i64],
    seq: i64,
    sql_of: fn(forumdex_sql::Dialect, &str) -> String,
) -> rusqlite::Result<HashMap<i64, PostDoc>> {
    let mut found = HashMap::with_capacity(post_ids.len());
    // A bounded IN list per statement (SQLite caps bound parameters); the statements of one
    // call share the caller's read transaction.
    for chunk in post_ids.chunks(500) {
        let names: Vec<String> = (0..chunk.len()).map(|i| format!(":id{i}")).collect();
        let params: Vec<(&str, &dyn rusqlite::ToSql)> = names
            .iter()
            .zip(chunk)
            .map(|(name, id)| (name.as_str(), id as &dyn rusqlite::ToSql))
            .collect();
        let condition = format!("p.post_id IN ({})", names.join(", "));
        for post in read_posts(conn, seq, &sql_of(DIALECT, &condition), &params)? {
            found.insert(post.post_id, post);
        }
    }
    Ok(found)
}

pub(super) fn profile(
    conn: &Connection,
    profile_id: i64,
    seq: i64,
) -> rusqlite::Result<Option<ProfileDoc>> {
    derive::profile_document(&mut Snapshot { conn, seq }, profile_id)
}

/// A read's connection at its sequence.
struct Snapshot<'c> {
    conn: &'c Connection,
    seq: i64,
}

impl ProfileSource for Snapshot<'_> {
    type Error = rusqlite::Error;

    fn profile_taken_down(&mut self, profile_id: i64) -> rusqlite::Result<bool> {
        taken_down(self.conn, TakedownTarget::Profile(profile_id))
    }

    fn record(&mut self, profile_id: i64) -> rusqlite::Result<Option<Option<String>>> {
        self.conn
            .prepare_cached(&profile_record_sql(DIALECT, ":id"))?
            .query_row(named_params! {":id": profile_id, ":seq": self.seq}, |row| {
                row.get(0)
            })
            .optional()
    }

    fn activity(&mut self, profile_id: i64) -> rusqlite::Result<ProfileActivity> {
        self.conn
            .prepare_cached(&profile_activity_sql(DIALECT, ":id"))?
            .query_row(named_params! {":id": profile_id, ":seq": self.seq}, |row| {
                Ok(ProfileActivity {
                    post_count: row.get(0)?,
                    topic_count: row.get(1)?,
                    first_post_at: row.get::<_, Option<i64>>(2)?.map(Millis),
                    last_post_at: row.get::<_, Option<i64>>(3)?.map(Millis),
                })
            })
    }

    fn recent_posts(&mut self, profile_id: i64, limit: usize) -> rusqlite::Result<Vec<PostDoc>> {
        let limit = limit as i64;
        posts_where(
            self.conn,
            self.seq,
            "p.author_id = :id ORDER BY p.sort_at DESC, p.post_id DESC LIMIT :limit",
            &[(":id", &profile_id), (":limit", &limit)],
        )
    }
}

pub(super) fn scope_exists(conn: &Connection, scope: Scope, seq: i64) -> rusqlite::Result<bool> {
    if taken_down(conn, scope.into())? {
        return Ok(false);
    }
    let id = TakedownTarget::from(scope).id();
    conn.prepare_cached(&scope_exists_sql(DIALECT, scope, ":id"))?
        .query_row(named_params! {":id": id, ":seq": seq}, |row| row.get(0))
}

/// One keyset page: walks the scope's index from the position, keeps visible rows that pass
/// the filters, and stops after `limit + 1` matches or `scan_budget` rows, whichever first.
pub(super) fn list_posts(
    conn: &Connection,
    request: &ListRequest,
    seq: i64,
) -> rusqlite::Result<ListPage> {
    let window = request.window();
    let sql = list_sql(request);
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = statement.query(named_params! {
        ":scope": window.scope_id,
        ":sort_at": window.start.sort_at,
        ":post_id": window.start.post_id,
        ":low": window.low,
        ":high": window.high,
        ":author": request.filters.author_id,
        ":topic": request.filters.topic_id,
        ":seq": seq,
    })?;
    let mut boards = BoardNames::new(conn, seq);
    let mut walk = ListWalk::new(request);
    while let Some(row) = rows.next()? {
        let position = Position {
            sort_at: row.get(16)?,
            post_id: row.get(0)?,
        };
        let served: bool = row.get(17)?;
        if let Some(next) = walk.examine(position, served, || boards.fill(post_from_row(row)?))? {
            return Ok(walk.page(next));
        }
    }
    Ok(walk.page(None))
}

/// The SQL of one listing page (named parameters as bound by [`list_posts`]).
fn list_sql(request: &ListRequest) -> String {
    let (scope_column, cmp, dir) = list_walk(request.scope, request.order);
    format!(
        "SELECT {cols}, {vp} AS visible FROM post_versions p
         WHERE {scope_column} = :scope AND (p.sort_at, p.post_id) {cmp} (:sort_at, :post_id)
           AND p.sort_at >= :low AND p.sort_at < :high
           AND (:author IS NULL OR p.author_id = :author)
           AND (:topic IS NULL OR p.topic_id = :topic)
         ORDER BY p.sort_at {dir}, p.post_id {dir}",
        cols = post_columns(DIALECT),
        vp = served("p"),
    )
}

/// `EXPLAIN QUERY PLAN` of a listing page: one line per plan step.
pub(super) fn explain_list(
    conn: &Connection,
    request: &ListRequest,
) -> rusqlite::Result<Vec<String>> {
    let sql = format!("EXPLAIN QUERY PLAN {}", list_sql(request));
    let mut statement = conn.prepare(&sql)?;
    let unbound: Option<i64> = None;
    let rows = statement.query_map(
        named_params! {
            ":scope": 1, ":sort_at": 0, ":post_id": 0, ":low": 0, ":high": 1,
            ":author": unbound, ":topic": unbound, ":seq": 1,
        },
        |row| row.get::<_, String>(3),
    )?;
    rows.collect()
}

pub(super) fn posts_changed(
    conn: &Connection,
    since: i64,
    upto: i64,
    after: ChangePosition,
    limit: usize,
) -> rusqlite::Result<Vec<(ChangePosition, PostChange)>> {
    let sql = posts_changed_sql(DIALECT, [":since", ":after_seq", ":after_post", ":limit"]);
    let mut statement = conn.prepare_cached(&sql)?;
    let limit = limit as i64;
    let rows = statement.query_map(
        named_params! {
            ":since": since, ":seq": upto, ":after_seq": after.seq,
            ":after_post": after.post_id, ":limit": limit,
        },
        |row| {
            let position = ChangePosition {
                seq: row.get(17)?,
                post_id: row.get(0)?,
            };
            let deleted: bool = row.get(18)?;
            Ok((
                position,
                (!deleted).then(|| post_from_row(row)).transpose()?,
            ))
        },
    )?;
    let mut boards = BoardNames::new(conn, upto);
    rows.map(|row| {
        let (position, post) = row?;
        let change = match post {
            Some(post) => PostChange::Current(Box::new(boards.fill(post)?)),
            None => PostChange::Deleted {
                post_id: position.post_id,
            },
        };
        Ok((position, change))
    })
    .collect()
}

pub(super) fn counts(conn: &Connection, seq: i64) -> rusqlite::Result<CorpusCounts> {
    let mut counts = [0; 5];
    for (count, sql) in counts.iter_mut().zip(count_statements(DIALECT)) {
        *count = conn
            .prepare_cached(&sql)?
            .query_row(named_params! {":seq": seq}, |row| row.get(0))?;
    }
    Ok(CorpusCounts::from(counts))
}

pub(super) fn pending_images(
    conn: &Connection,
    after_vid: i64,
    limit: usize,
) -> rusqlite::Result<Vec<PendingImage>> {
    let mut statement = conn.prepare_cached(
        "SELECT v.vid, v.sha256, v.source_url, v.file FROM image_versions v
         WHERE v.vid > ?1 AND v.valid_to IS NULL AND v.file IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM image_objects o WHERE o.line_sha256 = v.sha256)
         ORDER BY v.vid LIMIT ?2",
    )?;
    statement
        .query_map(rusqlite::params![after_vid, limit as i64], |row| {
            Ok(PendingImage {
                vid: row.get(0)?,
                line_sha256: row.get(1)?,
                source_url: row.get(2)?,
                file: row.get(3)?,
            })
        })?
        .collect()
}

pub(super) fn cached_images(
    conn: &Connection,
    source_urls: &[&str],
    seq: i64,
) -> rusqlite::Result<HashMap<String, CachedImage>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT o.avif_sha256, o.avif_bytes, v.nsfw_score FROM image_versions v
         JOIN image_objects o ON o.line_sha256 = v.sha256
         WHERE v.source_url = :url AND {}",
        visible("v")
    ))?;
    let mut found = HashMap::new();
    for &url in source_urls {
        if found.contains_key(url) {
            continue;
        }
        let image = statement
            .query_row(named_params! {":url": url, ":seq": seq}, |row| {
                Ok(CachedImage {
                    object: ImageObject {
                        sha256: row.get(0)?,
                        bytes: row.get::<_, i64>(1)? as u64,
                    },
                    nsfw_score: row.get(2)?,
                })
            })
            .optional()?;
        if let Some(image) = image {
            found.insert(url.to_owned(), image);
        }
    }
    Ok(found)
}
