//! The versions an import batch opens: one `INSERT ... SELECT FROM unnest(...)` per kind,
//! its columns bound as arrays.

use forumdex_corpus::record::{
    BoardRecord, ImageRecord, Observation, PostRecord, ProfileRecord, Record, TopicRecord,
    merit_senders_json,
};
use forumdex_corpus::{Millis, UNDATED};
use postgres::Transaction;
use postgres::types::ToSql;

use super::Step;

/// The kinds of versions, with their tables and keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Board,
    Profile,
    Topic,
    Post,
    Image,
}

impl Kind {
    pub(super) fn of(record: &Record) -> Self {
        match record {
            Record::Board(_) => Self::Board,
            Record::Profile(_) => Self::Profile,
            Record::Topic(_) => Self::Topic,
            Record::Post(_) => Self::Post,
            Record::Image(_) => Self::Image,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Board => "board",
            Self::Profile => "profile",
            Self::Topic => "topic",
            Self::Post => "post",
            Self::Image => "image",
        }
    }

    pub(super) fn table(self) -> &'static str {
        match self {
            Self::Board => "board_versions",
            Self::Profile => "profile_versions",
            Self::Topic => "topic_versions",
            Self::Post => "post_versions",
            Self::Image => "image_versions",
        }
    }

    pub(super) fn key_column(self) -> &'static str {
        match self {
            Self::Board => "board_id",
            Self::Profile => "profile_id",
            Self::Topic => "topic_id",
            Self::Post => "post_id",
            Self::Image => "source_url",
        }
    }
}

/// A column of fresh versions: its name, its SQL type and its values, one per version.
type Column<'v> = (&'static str, &'static str, Box<dyn ToSql + Sync + 'v>);

/// The observations of `winners` of one kind, with their records.
fn of_kind<'o, R>(
    winners: &[&'o Observation],
    pick: impl Fn(&'o Record) -> Option<&'o R>,
) -> (Vec<&'o Observation>, Vec<&'o R>) {
    winners
        .iter()
        .filter_map(|o| pick(&o.record).map(|r| (*o, r)))
        .unzip()
}

/// The values of one column of `records`.
fn column<R, T: ToSql + Sync + 'static>(
    records: &[&R],
    value: impl Fn(&R) -> T,
) -> Box<dyn ToSql + Sync> {
    Box::new(records.iter().map(|r| value(r)).collect::<Vec<T>>())
}

/// The versions a batch opens at `seq`, imported at `now`: one insert per kind.
pub(super) struct NewVersions {
    /// The batch's sequence.
    pub seq: i64,
    /// When the batch is imported.
    pub now: Millis,
}

impl NewVersions {
    pub(super) fn boards(&self, tx: &mut Transaction<'_>, winners: &[&Observation]) -> Step<()> {
        let (observations, records) = of_kind(winners, |r| match r {
            Record::Board(r) => Some(r),
            _ => None,
        });
        let columns: Vec<Column<'_>> = vec![
            (
                "board_id",
                "BIGINT",
                column(&records, |r: &BoardRecord| r.board_id.get()),
            ),
            (
                "name",
                "TEXT",
                column(&records, |r: &BoardRecord| r.name.clone()),
            ),
            (
                "parent_board_id",
                "BIGINT",
                column(&records, |r: &BoardRecord| {
                    r.parent_board_id.map(|id| id.get())
                }),
            ),
        ];
        self.insert(tx, Kind::Board, &observations, &columns)
    }

    pub(super) fn profiles(&self, tx: &mut Transaction<'_>, winners: &[&Observation]) -> Step<()> {
        let (observations, records) = of_kind(winners, |r| match r {
            Record::Profile(r) => Some(r),
            _ => None,
        });
        let columns: Vec<Column<'_>> = vec![
            (
                "profile_id",
                "BIGINT",
                column(&records, |r: &ProfileRecord| r.profile_id.get()),
            ),
            (
                "username",
                "TEXT",
                column(&records, |r: &ProfileRecord| r.username.clone()),
            ),
        ];
        self.insert(tx, Kind::Profile, &observations, &columns)
    }

    pub(super) fn topics(&self, tx: &mut Transaction<'_>, winners: &[&Observation]) -> Step<()> {
        let (observations, records) = of_kind(winners, |r| match r {
            Record::Topic(r) => Some(r),
            _ => None,
        });
        let columns: Vec<Column<'_>> = vec![
            (
                "topic_id",
                "BIGINT",
                column(&records, |r: &TopicRecord| r.topic_id.get()),
            ),
            (
                "board_id",
                "BIGINT",
                column(&records, |r: &TopicRecord| r.board_id.map(|id| id.get())),
            ),
            (
                "title",
                "TEXT",
                column(&records, |r: &TopicRecord| r.title.clone()),
            ),
            (
                "views",
                "BIGINT",
                column(&records, |r: &TopicRecord| r.views),
            ),
            (
                "page_count",
                "BIGINT",
                column(&records, |r: &TopicRecord| r.page_count),
            ),
        ];
        self.insert(tx, Kind::Topic, &observations, &columns)
    }

    pub(super) fn posts(&self, tx: &mut Transaction<'_>, winners: &[&Observation]) -> Step<()> {
        let (observations, records) = of_kind(winners, |r| match r {
            Record::Post(r) => Some(r),
            _ => None,
        });
        let id = |value: fn(&PostRecord) -> i64| column(&records, value);
        let optional = |value: fn(&PostRecord) -> Option<i64>| column(&records, value);
        let text = |value: fn(&PostRecord) -> &String| column(&records, move |r| value(r).clone());
        let columns: Vec<Column<'_>> = vec![
            ("post_id", "BIGINT", id(|r| r.post_id.get())),
            ("topic_id", "BIGINT", id(|r| r.topic_id.get())),
            (
                "board_id",
                "BIGINT",
                optional(|r| r.board_id.map(|id| id.get())),
            ),
            ("post_number", "BIGINT", optional(|r| r.post_number)),
            (
                "is_op",
                "BOOLEAN",
                column(&records, |r: &PostRecord| r.is_op),
            ),
            ("title", "TEXT", text(|r| &r.title)),
            (
                "author_id",
                "BIGINT",
                optional(|r| r.author_id.map(|id| id.get())),
            ),
            ("author_name", "TEXT", text(|r| &r.author_name)),
            (
                "posted_at",
                "BIGINT",
                optional(|r| r.posted_at.map(|at| at.0)),
            ),
            (
                "sort_at",
                "BIGINT",
                id(|r| r.posted_at.map_or(UNDATED, |at| at.0)),
            ),
            ("content_html", "TEXT", text(|r| &r.content_html)),
            (
                "language",
                "TEXT",
                column(&records, |r: &PostRecord| r.language.clone()),
            ),
            ("merit_total", "BIGINT", id(|r| r.merit.total)),
            ("merit_distinct", "BIGINT", id(|r| r.merit.distinct_senders)),
            ("merit_tx", "BIGINT", id(|r| r.merit.transactions)),
            (
                "merit_senders",
                "TEXT",
                column(&records, |r: &PostRecord| {
                    r.merit_senders.as_deref().map(merit_senders_json)
                }),
            ),
            (
                "deleted",
                "BOOLEAN",
                column(&records, |r: &PostRecord| r.deleted),
            ),
        ];
        self.insert(tx, Kind::Post, &observations, &columns)
    }

    pub(super) fn images(&self, tx: &mut Transaction<'_>, winners: &[&Observation]) -> Step<()> {
        let (observations, records) = of_kind(winners, |r| match r {
            Record::Image(r) => Some(r),
            _ => None,
        });
        let columns: Vec<Column<'_>> = vec![
            (
                "source_url",
                "TEXT",
                column(&records, |r: &ImageRecord| r.source_url.clone()),
            ),
            (
                "file",
                "TEXT",
                column(&records, |r: &ImageRecord| r.file.clone()),
            ),
            (
                "nsfw_score",
                "FLOAT8",
                column(&records, |r: &ImageRecord| r.nsfw_score),
            ),
        ];
        self.insert(tx, Kind::Image, &observations, &columns)
    }

    /// Inserts one version per observation of `observations` (in their order, so row IDs
    /// follow it), with the kind's `columns`, in one statement.
    fn insert(
        &self,
        tx: &mut Transaction<'_>,
        kind: Kind,
        observations: &[&Observation],
        columns: &[Column<'_>],
    ) -> Step<()> {
        if observations.is_empty() {
            return Ok(());
        }
        let observed: Vec<i64> = observations.iter().map(|o| o.observed_at.0).collect();
        let lines: Vec<&[u8]> = observations.iter().map(|o| &o.line_sha256[..]).collect();
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&self.seq, &self.now.0, &observed, &lines];
        let mut names = vec!["observed_at", "sha256"];
        let mut arrays = vec!["$3::BIGINT[]".to_owned(), "$4::BYTEA[]".to_owned()];
        for (name, sql_type, column) in columns {
            params.push(column.as_ref());
            names.push(name);
            arrays.push(format!("${}::{sql_type}[]", params.len()));
        }
        let names = names.join(", ");
        tx.execute(
            &format!(
                "INSERT INTO {table} (valid_from, indexed_at, {names})
                 SELECT $1, $2, {names} FROM unnest({arrays}) WITH ORDINALITY
                   AS u({names}, ordinal)
                 ORDER BY u.ordinal",
                table = kind.table(),
                arrays = arrays.join(", "),
            ),
            &params,
        )?;
        Ok(())
    }
}
