//! Reads at a sequence number. Every query filters versions with [`visible`], whose
//! sequence is always parameter `$1`, so a read at sequence S sees exactly the canonical
//! documents current at S.

use std::collections::{BTreeSet, HashMap};

use forumdex_corpus::derive::{self, ProfileSource};
use forumdex_corpus::record::MeritCounts;
use forumdex_corpus::{
    BoardRef, CachedImage, ChangePosition, CorpusCounts, ImageObject, ListPage, ListRequest,
    ListWalk, Merit, Millis, PendingImage, Position, PostChange, PostDoc, ProfileActivity,
    ProfileDoc, Scope, StoreError, TakedownTarget,
};
use postgres::types::ToSql;
use postgres::{Row, Transaction};

use forumdex_sql::{
    count_statements, list_walk, live_posts_where_sql, post_columns, posts_changed_sql,
    posts_where_sql, profile_activity_sql, profile_record_sql, scope_exists_sql,
};

use super::sql::{DIALECT, served, visible};
use super::takedowns::taken_down;
use super::{Step, corrupt, to_i64};
use crate::pool::Failure;

/// A bound parameter.
pub(super) type Param<'a> = &'a (dyn ToSql + Sync);

pub(super) fn latest_seq(tx: &mut Transaction<'_>) -> Step<i64> {
    Ok(tx
        .query_one("SELECT COALESCE(MAX(seq), 0) FROM sequences", &[])?
        .get(0))
}

pub(super) fn sequence_created_at(tx: &mut Transaction<'_>, seq: i64) -> Step<Option<Millis>> {
    let row = tx.query_opt("SELECT created_at FROM sequences WHERE seq = $1", &[&seq])?;
    Ok(row.map(|row| Millis(row.get(0))))
}

/// A post row before its board name is filled in ([`fill_boards`]).
fn post_from_row(row: &Row) -> Step<PostDoc> {
    let post_id: i64 = row.get(0);
    let is_op: Option<bool> = row.get(15);
    Ok(PostDoc {
        post_id,
        topic_id: row.get(1),
        post_number: row.get(2),
        title: row.get(3),
        author_id: row.get(4),
        author_name: row.get(5),
        board: BoardRef {
            board_id: row.get(6),
            name: String::new(),
        },
        language: row.get(7),
        posted_at: row.get::<_, Option<i64>>(8).map(Millis),
        content_html: row.get(9),
        indexed_at: Millis(row.get(10)),
        merit: Merit {
            counts: MeritCounts {
                total: row.get(12),
                distinct_senders: row.get(13),
                transactions: row.get(14),
            },
            observed_at: Some(Millis(row.get(11))),
        },
        is_op: is_op.ok_or_else(|| corrupt(format!("post {post_id} has no opening flag")))?,
    })
}

/// The names of boards `board_ids` at `seq` (no entry for a board without a record).
fn board_names(
    tx: &mut Transaction<'_>,
    seq: i64,
    board_ids: &[i64],
) -> Step<HashMap<i64, String>> {
    if board_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = tx.query(
        &format!(
            "SELECT b.board_id, b.name FROM board_versions b
             WHERE b.board_id = ANY($2) AND {}",
            visible("b")
        ),
        &[&seq, &board_ids],
    )?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// The name of board `board_id` at `seq` ("" for none or no record).
pub(super) fn board_name(
    tx: &mut Transaction<'_>,
    seq: i64,
    board_id: Option<i64>,
) -> Step<String> {
    let Some(id) = board_id else {
        return Ok(String::new());
    };
    Ok(board_names(tx, seq, &[id])?.remove(&id).unwrap_or_default())
}

/// Fills the board names of `posts` at `seq`, in one query.
fn fill_boards(tx: &mut Transaction<'_>, seq: i64, posts: Vec<&mut PostDoc>) -> Step<()> {
    let ids: BTreeSet<i64> = posts
        .iter()
        .filter_map(|post| post.board.board_id)
        .collect();
    let names = board_names(tx, seq, &ids.into_iter().collect::<Vec<_>>())?;
    for post in posts {
        if let Some(name) = post.board.board_id.and_then(|id| names.get(&id)) {
            post.board.name = name.clone();
        }
    }
    Ok(())
}

/// Runs a post query (`where_order` follows `FROM post_versions p WHERE <served> AND`; its
/// parameters are `$2` on, after the sequence).
fn posts_where(
    tx: &mut Transaction<'_>,
    seq: i64,
    where_order: &str,
    params: &[Param<'_>],
) -> Step<Vec<PostDoc>> {
    read_posts(tx, seq, &posts_where_sql(DIALECT, where_order), params)
}

/// Runs the post query `sql` at `seq` with `params`.
fn read_posts(
    tx: &mut Transaction<'_>,
    seq: i64,
    sql: &str,
    params: &[Param<'_>],
) -> Step<Vec<PostDoc>> {
    let mut all: Vec<Param<'_>> = vec![&seq];
    all.extend_from_slice(params);
    let rows = tx.query(sql, &all)?;
    let mut posts = rows.iter().map(post_from_row).collect::<Step<Vec<_>>>()?;
    fill_boards(tx, seq, posts.iter_mut().collect())?;
    Ok(posts)
}

pub(super) fn post(tx: &mut Transaction<'_>, post_id: i64, seq: i64) -> Step<Option<PostDoc>> {
    Ok(posts_where(tx, seq, "p.post_id = $2", &[&post_id])?
        .into_iter()
        .next())
}

pub(super) fn posts(
    tx: &mut Transaction<'_>,
    post_ids: &[i64],
    seq: i64,
) -> Step<HashMap<i64, PostDoc>> {
    let found = posts_where(tx, seq, "p.post_id = ANY($2)", &[&post_ids])?;
    Ok(found.into_iter().map(|post| (post.post_id, post)).collect())
}

/// The live posts among `post_ids`, takedowns included (`CorpusRead::live_posts`).
pub(super) fn live_posts(
    tx: &mut Transaction<'_>,
    post_ids: &[i64],
    seq: i64,
) -> Step<HashMap<i64, PostDoc>> {
    let sql = live_posts_where_sql(DIALECT, "p.post_id = ANY($2)");
    let found = read_posts(tx, seq, &sql, &[&post_ids])?;
    Ok(found.into_iter().map(|post| (post.post_id, post)).collect())
}

pub(super) fn profile(
    tx: &mut Transaction<'_>,
    profile_id: i64,
    seq: i64,
) -> Step<Option<ProfileDoc>> {
    derive::profile_document(&mut Snapshot { tx, seq }, profile_id)
}

/// A read's transaction at its sequence.
struct Snapshot<'a, 't> {
    tx: &'a mut Transaction<'t>,
    seq: i64,
}

impl ProfileSource for Snapshot<'_, '_> {
    type Error = Failure<StoreError>;

    fn profile_taken_down(&mut self, profile_id: i64) -> Step<bool> {
        taken_down(self.tx, TakedownTarget::Profile(profile_id))
    }

    fn record(&mut self, profile_id: i64) -> Step<Option<Option<String>>> {
        let sql = profile_record_sql(DIALECT, "$2");
        let row = self.tx.query_opt(&sql, &[&self.seq, &profile_id])?;
        Ok(row.map(|row| row.get(0)))
    }

    fn activity(&mut self, profile_id: i64) -> Step<ProfileActivity> {
        let sql = profile_activity_sql(DIALECT, "$2");
        let row = self.tx.query_one(&sql, &[&self.seq, &profile_id])?;
        Ok(ProfileActivity {
            post_count: row.get(0),
            topic_count: row.get(1),
            first_post_at: row.get::<_, Option<i64>>(2).map(Millis),
            last_post_at: row.get::<_, Option<i64>>(3).map(Millis),
        })
    }

    fn recent_posts(&mut self, profile_id: i64, limit: usize) -> Step<Vec<PostDoc>> {
        let limit = to_i64(limit);
        posts_where(
            self.tx,
            self.seq,
            "p.author_id = $2 ORDER BY p.sort_at DESC, p.post_id DESC LIMIT $3",
            &[&profile_id, &limit],
        )
    }
}

pub(super) fn scope_exists(tx: &mut Transaction<'_>, scope: Scope, seq: i64) -> Step<bool> {
    if taken_down(tx, scope.into())? {
        return Ok(false);
    }
    let id = TakedownTarget::from(scope).id();
    let row = tx.query_one(&scope_exists_sql(DIALECT, scope, "$2"), &[&seq, &id])?;
    Ok(row.get(0))
}

/// The cursor a listing page walks.
const LIST_CURSOR: &str = "list_page";

/// The parameters of [`list_sql`] for `request` at `seq`, in order.
struct ListParams {
    seq: i64,
    scope: i64,
    start: Position,
    low: i64,
    high: i64,
    author: Option<i64>,
    topic: Option<i64>,
}

impl ListParams {
    fn of(request: &ListRequest, seq: i64) -> Self {
        let window = request.window();
        Self {
            seq,
            scope: window.scope_id,
            start: window.start,
            low: window.low,
            high: window.high,
            author: request.filters.author_id,
            topic: request.filters.topic_id,
        }
    }

    fn bound(&self) -> [Param<'_>; 8] {
        [
            &self.seq,
            &self.scope,
            &self.start.sort_at,
            &self.start.post_id,
            &self.low,
            &self.high,
            &self.author,
            &self.topic,
        ]
    }
}

/// One keyset page: walks the scope's index from the position through a cursor (planned
/// for its first rows, fetched a page at a time), keeps visible rows that pass the filters,
/// and stops after `limit + 1` matches or `scan_budget` rows, whichever first.
pub(super) fn list_posts(
    tx: &mut Transaction<'_>,
    request: &ListRequest,
    seq: i64,
) -> Step<ListPage> {
    let params = ListParams::of(request, seq);
    tx.execute(
        &format!(
            "DECLARE {LIST_CURSOR} NO SCROLL CURSOR FOR {}",
            list_sql(request)
        ),
        &params.bound(),
    )?;
    let fetch = tx.prepare(&format!(
        "FETCH {} FROM {LIST_CURSOR}",
        request.limit.saturating_add(1)
    ))?;
    let mut walk = ListWalk::new(request);
    let mut next = None;
    while next.is_none() {
        let rows = tx.query(&fetch, &[])?;
        if rows.is_empty() {
            next = Some(None);
        }
        for row in &rows {
            let position = Position {
                sort_at: row.get(16),
                post_id: row.get(0),
            };
            next = walk.examine(position, row.get(17), || post_from_row(row))?;
            if next.is_some() {
                break;
            }
        }
    }
    let mut page = walk.page(next.flatten());
    fill_boards(tx, seq, page.posts.iter_mut().collect())?;
    Ok(page)
}

/// The SQL of one listing page (parameters as [`ListParams::bound`] binds them).
fn list_sql(request: &ListRequest) -> String {
    let (scope_column, cmp, dir) = list_walk(request.scope, request.order);
    format!(
        "SELECT {cols}, {vp} AS visible FROM post_versions p
         WHERE {scope_column} = $2 AND (p.sort_at, p.post_id) {cmp} ($3, $4)
           AND p.sort_at >= $5 AND p.sort_at < $6
           AND ($7::BIGINT IS NULL OR p.author_id = $7)
           AND ($8::BIGINT IS NULL OR p.topic_id = $8)
         ORDER BY p.sort_at {dir}, p.post_id {dir}",
        cols = post_columns(DIALECT),
        vp = served("p"),
    )
}

/// `EXPLAIN` of the cursor of a listing page at `seq`: one line per plan node.
pub(super) fn explain_list(
    tx: &mut Transaction<'_>,
    request: &ListRequest,
    seq: i64,
) -> Step<Vec<String>> {
    let params = ListParams::of(request, seq);
    let rows = tx.query(
        &format!(
            "EXPLAIN DECLARE {LIST_CURSOR} NO SCROLL CURSOR FOR {}",
            list_sql(request)
        ),
        &params.bound(),
    )?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

pub(super) fn posts_changed(
    tx: &mut Transaction<'_>,
    since: i64,
    upto: i64,
    after: ChangePosition,
    limit: usize,
) -> Step<Vec<(ChangePosition, PostChange)>> {
    let sql = posts_changed_sql(DIALECT, ["$2", "$3", "$4", "$5"]);
    let rows = tx.query(
        &sql,
        &[&upto, &since, &after.seq, &after.post_id, &to_i64(limit)],
    )?;
    let mut changes = Vec::with_capacity(rows.len());
    for row in &rows {
        let position = ChangePosition {
            seq: row.get(17),
            post_id: row.get(0),
        };
        let deleted: bool = row.get(18);
        let post = (!deleted).then(|| post_from_row(row)).transpose()?;
        changes.push((position, post));
    }
    fill_boards(
        tx,
        upto,
        changes
            .iter_mut()
            .filter_map(|(_, post)| post.as_mut())
            .collect(),
    )?;
    Ok(changes
        .into_iter()
        .map(|(position, post)| {
            let change = match post {
                Some(post) => PostChange::Current(Box::new(post)),
                None => PostChange::Deleted {
                    post_id: position.post_id,
                },
            };
            (position, change)
        })
        .collect())
}

pub(super) fn counts(tx: &mut Transaction<'_>, seq: i64) -> Step<CorpusCounts> {
    let mut counts = [0; 5];
    for (count, sql) in counts.iter_mut().zip(count_statements(DIALECT)) {
        *count = tx.query_one(&sql, &[&seq])?.get(0);
    }
    Ok(CorpusCounts::from(counts))
}

pub(super) fn pending_images(
    tx: &mut Transaction<'_>,
    after_vid: i64,
    limit: usize,
) -> Step<Vec<PendingImage>> {
    let rows = tx.query(
        "SELECT v.vid, v.sha256, v.source_url, v.file FROM image_versions v
         WHERE v.vid > $1 AND v.valid_to IS NULL AND v.file IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM image_objects o WHERE o.line_sha256 = v.sha256)
         ORDER BY v.vid LIMIT $2",
        &[&after_vid, &to_i64(limit)],
    )?;
    Ok(rows
        .iter()
        .map(|row| PendingImage {
            vid: row.get(0),
            line_sha256: row.get(1),
            source_url: row.get(2),
            file: row.get(3),
        })
        .collect())
}

pub(super) fn cached_images(
    tx: &mut Transaction<'_>,
    source_urls: &[&str],
    seq: i64,
) -> Step<HashMap<String, CachedImage>> {
    let rows = tx.query(
        &format!(
            "SELECT v.source_url, o.avif_sha256, o.avif_bytes, v.nsfw_score
             FROM image_versions v JOIN image_objects o ON o.line_sha256 = v.sha256
             WHERE v.source_url = ANY($2) AND {}",
            visible("v")
        ),
        &[&seq, &source_urls],
    )?;
    let mut found = HashMap::with_capacity(rows.len());
    for row in &rows {
        let bytes: i64 = row.get(2);
        let image = CachedImage {
            object: ImageObject {
                sha256: row.get(1),
                bytes: u64::try_from(bytes)
                    .map_err(|_| corrupt(format!("image object of {bytes} bytes")))?,
            },
            nsfw_score: row.get(3),
        };
        found.insert(row.get(0), image);
    }
    Ok(found)
}
