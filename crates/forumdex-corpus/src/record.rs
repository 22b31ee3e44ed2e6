//! Corpus format v1 records (corpus-format.md): one JSON object per line, validated field by
//! field into an [`Observation`]. Unknown fields are ignored; a broken rule is a
//! [`RecordError`] naming the field and what was wrong.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::id::{ForumId, MAX_ID};
use crate::lang::LangCode;
use crate::time::Millis;

/// Why a line was rejected: a short, lowercase sentence naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RecordError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, RecordError> {
    Err(RecordError(message.into()))
}

/// One accepted record: what was seen, when, and the identity of the line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// SHA-256 of the line as read (without its line terminator): the tie-break of the
    /// canonical rule and the key that makes re-imports idempotent.
    pub line_sha256: [u8; 32],
    /// When the entity was observed.
    pub observed_at: Millis,
    /// What was observed.
    pub record: Record,
}

/// The five kinds of record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A board.
    Board(BoardRecord),
    /// A forum user.
    Profile(ProfileRecord),
    /// A topic.
    Topic(TopicRecord),
    /// A post.
    Post(PostRecord),
    /// An image URL bound to its bytes.
    Image(ImageRecord),
}

/// A `board` record.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardRecord {
    /// Board ID.
    pub board_id: ForumId,
    /// Board name.
    pub name: String,
    /// Parent board, when nested.
    pub parent_board_id: Option<ForumId>,
}

/// A `profile` record.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRecord {
    /// Forum user ID.
    pub profile_id: ForumId,
    /// Username, when known.
    pub username: Option<String>,
}

/// A `topic` record.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRecord {
    /// Topic ID.
    pub topic_id: ForumId,
    /// Board the topic was in when observed.
    pub board_id: Option<ForumId>,
    /// Topic title.
    pub title: String,
    /// View counter as seen.
    pub views: Option<i64>,
    /// Forum pages as seen.
    pub page_count: Option<i64>,
}

/// Merit counts of a post, derived from `senders` when the record lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MeritCounts {
    /// Sum of merit points.
    pub total: i64,
    /// Distinct users who sent merit.
    pub distinct_senders: i64,
    /// Merit transactions.
    pub transactions: i64,
}

impl MeritCounts {
    /// A post's merit counts from its `senders` list: the sum of the amounts, the number of
    /// distinct sending profiles, and the number of transactions (corpus-format.md, "How
    /// API fields derive").
    pub fn from_senders(senders: &[MeritSender]) -> Self {
        let mut distinct: Vec<i64> = senders.iter().map(|s| s.profile_id.get()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        Self {
            total: senders.iter().map(|s| s.amount).sum(),
            distinct_senders: distinct.len() as i64,
            transactions: senders.len() as i64,
        }
    }
}

/// One merit transaction of a post's `senders` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeritSender {
    /// Who sent it.
    pub profile_id: ForumId,
    /// Points sent.
    pub amount: i64,
}

/// Merit senders as every corpus store keeps them: a JSON array of `[profile_id, amount]`
/// pairs, in the record's order.
pub fn merit_senders_json(senders: &[MeritSender]) -> String {
    let pairs: Vec<[i64; 2]> = senders
        .iter()
        .map(|s| [s.profile_id.get(), s.amount])
        .collect();
    serde_json::to_string(&pairs).expect("integers always serialize")
}

/// A `post` record.
#[derive(Debug, Clone, PartialEq)]
pub struct PostRecord {
    /// Forum message ID.
    pub post_id: ForumId,
    /// Topic of the post.
    pub topic_id: ForumId,
    /// Board, when the record names one (else the topic's).
    pub board_id: Option<ForumId>,
    /// Position shown by the forum (0 = opening post).
    pub post_number: Option<i64>,
    /// Whether this is the opening post, when the record says.
    pub is_op: Option<bool>,
    /// Post subject.
    pub title: String,
    /// Author profile ID; `None` for guests.
    pub author_id: Option<ForumId>,
    /// Author username as shown on the post.
    pub author_name: String,
    /// Posting time, when known.
    pub posted_at: Option<Millis>,
    /// Rendered HTML as published.
    pub content_html: String,
    /// Merit counts (zeros when absent).
    pub merit: MeritCounts,
    /// Merit transactions, when the record lists them.
    pub merit_senders: Option<Vec<MeritSender>>,
    /// Language code; the importer fills it by detection when the record has none.
    pub language: Option<String>,
    /// The post was seen gone from the forum: as the canonical version it is served as
    /// absent (corpus-format.md, post field `deleted`).
    pub deleted: bool,
}

/// An `image` record.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageRecord {
    /// The URL exactly as it appears in `src` attributes.
    pub source_url: String,
    /// Path of the original, relative to the corpus file's folder.
    pub file: Option<String>,
    /// Upstream NSFW score in 0..=1.
    pub nsfw_score: Option<f64>,
}

impl Observation {
    /// Parses one line (without its terminator) into an observation.
    pub fn parse_line(line: &[u8]) -> Result<Self, RecordError> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(err) => return fail(format!("not valid JSON: {err}")),
        };
        let Value::Object(object) = value else {
            return fail("not a JSON object");
        };
        let fields = Fields(&object);
        let observed_at = fields.time("observed_at")?;
        let record = match fields.string("kind")?.as_str() {
            "board" => Record::Board(BoardRecord {
                board_id: fields.id("board_id")?,
                name: fields.string("name")?,
                parent_board_id: fields.opt_id("parent_board_id")?,
            }),
            "profile" => Record::Profile(ProfileRecord {
                profile_id: fields.id("profile_id")?,
                username: fields.opt_string("username")?,
            }),
            "topic" => Record::Topic(TopicRecord {
                topic_id: fields.id("topic_id")?,
                board_id: fields.opt_id("board_id")?,
                title: fields.string("title")?,
                views: fields.opt_count("views")?,
                page_count: fields.opt_count("page_count")?,
            }),
            "post" => Record::Post(parse_post(&fields)?),
            "image" => Record::Image(parse_image(&fields)?),
            other => return fail(format!("field `kind`: unknown kind {other:?}")),
        };
        Ok(Self {
            line_sha256: Sha256::digest(line).into(),
            observed_at,
            record,
        })
    }
}

fn parse_post(fields: &Fields<'_>) -> Result<PostRecord, RecordError> {
    let author = match fields.0.get("author") {
        Some(Value::Object(author)) => Fields(author),
        _ => return fail("field `author`: must be an object"),
    };
    let (merit, merit_senders) = parse_merit(fields.0.get("merit"))?;
    let language = fields.opt_string("language")?;
    if let Some(code) = &language
        && LangCode::parse(code).is_none()
    {
        return fail(format!(
            "field `language`: {code:?} does not match ^[a-z]{{2}}(-[A-Z]{{2}})?$"
        ));
    }
    Ok(PostRecord {
        post_id: fields.id("post_id")?,
        topic_id: fields.id("topic_id")?,
        board_id: fields.opt_id("board_id")?,
        post_number: fields.opt_count("post_number")?,
        is_op: fields.opt_bool("is_op")?,
        title: fields.string("title")?,
        author_id: author
            .opt_id("profile_id")
            .map_err(|e| nested("author", e))?,
        author_name: author.string("username").map_err(|e| nested("author", e))?,
        posted_at: fields.opt_time("posted_at")?,
        content_html: fields.string("content_html")?,
        merit,
        merit_senders,
        language,
        deleted: fields.opt_bool("deleted")?.unwrap_or(false),
    })
}

fn nested(parent: &str, err: RecordError) -> RecordError {
    RecordError(err.0.replacen("field `", &format!("field `{parent}."), 1))
}

fn parse_merit(
    value: Option<&Value>,
) -> Result<(MeritCounts, Option<Vec<MeritSender>>), RecordError> {
    let merit = match value {
        None | Some(Value::Null) => return Ok((MeritCounts::default(), None)),
        Some(Value::Object(merit)) => Fields(merit),
        Some(_) => return fail("field `merit`: must be an object or null"),
    };
    let senders = match merit.0.get("senders") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => {
            let mut senders = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let Value::Object(sender) = item else {
                    return fail(format!("field `merit.senders[{index}]`: must be an object"));
                };
                let sender = Fields(sender);
                let at = |e: RecordError| nested(&format!("merit.senders[{index}]"), e);
                senders.push(MeritSender {
                    profile_id: sender.id("profile_id").map_err(at)?,
                    amount: sender.count("amount").map_err(at)?,
                });
            }
            Some(senders)
        }
        Some(_) => return fail("field `merit.senders`: must be an array"),
    };
    let counts = match &senders {
        Some(senders) => MeritCounts::from_senders(senders),
        None => {
            let count = |name| {
                merit
                    .opt_count(name)
                    .map(Option::unwrap_or_default)
                    .map_err(|e| nested("merit", e))
            };
            MeritCounts {
                total: count("total")?,
                distinct_senders: count("distinct_senders")?,
                transactions: count("transactions")?,
            }
        }
    };
    Ok((counts, senders))
}

fn parse_image(fields: &Fields<'_>) -> Result<ImageRecord, RecordError> {
    let source_url = fields.string("source_url")?;
    if source_url.is_empty() {
        return fail("field `source_url`: must not be empty");
    }
    let nsfw_score = match fields.0.get("nsfw_score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(score) if (0.0..=1.0).contains(&score) => Some(score),
            _ => return fail("field `nsfw_score`: must be a number in 0..1"),
        },
        Some(_) => return fail("field `nsfw_score`: must be a number in 0..1"),
    };
    let file = fields.opt_string("file")?;
    if let Some(path) = &file
        && (path.is_empty() || path.starts_with('/') || path.split(['/', '\\']).any(|p| p == ".."))
    {
        return fail("field `file`: must be a relative path inside the corpus file's folder");
    }
    Ok(ImageRecord {
        source_url,
        file,
        nsfw_score,
    })
}

/// Typed access to a record's fields, with errors that name the field.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn present(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    fn string(&self, name: &str) -> Result<String, RecordError> {
        match self.0.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => fail(format!("field `{name}`: required string is missing")),
            Some(_) => fail(format!("field `{name}`: must be a string")),
        }
    }

    fn opt_string(&self, name: &str) -> Result<Option<String>, RecordError> {
        match self.present(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => fail(format!("field `{name}`: must be a string or null")),
        }
    }

    fn opt_bool(&self, name: &str) -> Result<Option<bool>, RecordError> {
        match self.present(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => fail(format!("field `{name}`: must be a boolean or null")),
        }
    }

    fn id(&self, name: &str) -> Result<ForumId, RecordError> {
        match self.opt_id(name)? {
            Some(id) => Ok(id),
            None => fail(format!("field `{name}`: required integer is missing")),
        }
    }

    fn opt_id(&self, name: &str) -> Result<Option<ForumId>, RecordError> {
        match self.present(name) {
            None => Ok(None),
            Some(value) => match value.as_u64().and_then(ForumId::new) {
                Some(id) => Ok(Some(id)),
                None => fail(format!(
                    "field `{name}`: must be an integer in 1..{MAX_ID}, got {value}"
                )),
            },
        }
    }

    fn count(&self, name: &str) -> Result<i64, RecordError> {
        match self.opt_count(name)? {
            Some(count) => Ok(count),
            None => fail(format!("field `{name}`: required integer is missing")),
        }
    }

    fn opt_count(&self, name: &str) -> Result<Option<i64>, RecordError> {
        match self.present(name) {
            None => Ok(None),
            Some(value) => match value.as_u64().filter(|n| *n <= MAX_ID) {
                Some(n) => Ok(Some(n as i64)),
                None => fail(format!(
                    "field `{name}`: must be an integer in 0..{MAX_ID}, got {value}"
                )),
            },
        }
    }

    fn time(&self, name: &str) -> Result<Millis, RecordError> {
        match self.opt_time(name)? {
            Some(at) => Ok(at),
            None => fail(format!("field `{name}`: required date-time is missing")),
        }
    }

    fn opt_time(&self, name: &str) -> Result<Option<Millis>, RecordError> {
        match self.present(name) {
            None => Ok(None),
            Some(Value::String(text)) => match Millis::parse_rfc3339(text) {
                Some(at) => Ok(Some(at)),
                None => fail(format!(
                    "field `{name}`: {text:?} is not an RFC 3339 date-time with an offset"
                )),
            },
            Some(_) => fail(format!(
                "field `{name}`: must be an RFC 3339 date-time string"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Record, String> {
        Observation::parse_line(line.as_bytes())
            .map(|o| o.record)
            .map_err(|e| e.0)
    }

    #[test]
    fn parses_the_spec_example_post() {
        let line = r#"{"kind":"post","post_id":28,"topic_id":5,"post_number":0,"title":"Welcome","author":{"profile_id":3,"username":"satoshi"},"posted_at":"2009-11-22T18:51:31Z","content_html":"Hi","merit":{"total":12,"distinct_senders":4,"transactions":5},"observed_at":"2024-03-01T12:00:00Z","extra":1}"#;
        let Record::Post(post) = parse(line).unwrap() else {
            panic!("not a post")
        };
        assert_eq!(post.post_id.get(), 28);
        assert_eq!(post.author_id.map(ForumId::get), Some(3));
        assert_eq!(
            post.merit,
            MeritCounts {
                total: 12,
                distinct_senders: 4,
                transactions: 5
            }
        );
    }

    #[test]
    fn senders_define_the_merit_counts() {
        let line = r#"{"kind":"post","post_id":1,"topic_id":1,"title":"t","author":{"profile_id":null,"username":"g"},"content_html":"","merit":{"total":99,"senders":[{"profile_id":7,"amount":2},{"profile_id":7,"amount":1},{"profile_id":8,"amount":5}]},"observed_at":"2024-03-01T12:00:00Z"}"#;
        let Record::Post(post) = parse(line).unwrap() else {
            panic!("not a post")
        };
        assert_eq!(
            post.merit,
            MeritCounts {
                total: 8,
                distinct_senders: 2,
                transactions: 3
            }
        );
        assert_eq!(post.author_id, None);
    }

    #[test]
    fn rejections_name_the_field() {
        let cases = [
            ("{", "not valid JSON"),
            ("[1]", "not a JSON object"),
            (
                r#"{"kind":"board","board_id":1,"name":"x"}"#,
                "`observed_at`",
            ),
            (
                r#"{"kind":"board","board_id":0,"name":"x","observed_at":"2024-03-01T12:00:00Z"}"#,
                "`board_id`",
            ),
            (
                r#"{"kind":"board","board_id":1.5,"name":"x","observed_at":"2024-03-01T12:00:00Z"}"#,
                "`board_id`",
            ),
            (
                r#"{"kind":"thread","observed_at":"2024-03-01T12:00:00Z"}"#,
                "unknown kind",
            ),
            (
                r#"{"kind":"board","board_id":1,"name":"x","observed_at":"2024-03-01T12:00:00"}"#,
                "offset",
            ),
            (
                r#"{"kind":"topic","topic_id":1,"title":"t","views":-1,"observed_at":"2024-03-01T12:00:00Z"}"#,
                "`views`",
            ),
            (
                r#"{"kind":"post","post_id":1,"topic_id":1,"title":"t","author":{"username":"u"},"content_html":"","language":"EN","observed_at":"2024-03-01T12:00:00Z"}"#,
                "`language`",
            ),
            (
                r#"{"kind":"post","post_id":1,"topic_id":1,"title":"t","author":{"profile_id":"3","username":"u"},"content_html":"","observed_at":"2024-03-01T12:00:00Z"}"#,
                "`author.profile_id`",
            ),
            (
                r#"{"kind":"image","source_url":"http://x/a.png","nsfw_score":1.5,"observed_at":"2024-03-01T12:00:00Z"}"#,
                "`nsfw_score`",
            ),
            (
                r#"{"kind":"image","source_url":"http://x/a.png","file":"../etc/passwd","observed_at":"2024-03-01T12:00:00Z"}"#,
                "`file`",
            ),
        ];
        for (line, needle) in cases {
            let err = parse(line).unwrap_err();
            assert!(err.contains(needle), "{line} -> {err}");
        }
    }
}
