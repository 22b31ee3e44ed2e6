//! Takedowns: content an operator removed from the service. A takedown is not versioned with
//! the corpus: from the moment it is recorded, every read at any snapshot leaves the content
//! out, and no later import brings it back (operator-interface.md, `forumdex takedown`).

use std::fmt;

use crate::model::Scope;
use crate::time::Millis;

/// What a takedown removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TakedownTarget {
    /// One post.
    Post(i64),
    /// A topic and every post in it.
    Topic(i64),
    /// A profile and every post it wrote.
    Profile(i64),
}

impl TakedownTarget {
    /// The kind as stored and printed: `post`, `topic` or `profile`.
    pub fn kind(self) -> &'static str {
        match self {
            Self::Post(_) => "post",
            Self::Topic(_) => "topic",
            Self::Profile(_) => "profile",
        }
    }

    /// The forum ID of the post, topic or profile.
    pub fn id(self) -> i64 {
        match self {
            Self::Post(id) | Self::Topic(id) | Self::Profile(id) => id,
        }
    }

    /// The target of a stored `kind` and ID (`None` for an unknown kind).
    pub fn from_parts(kind: &str, id: i64) -> Option<Self> {
        match kind {
            "post" => Some(Self::Post(id)),
            "topic" => Some(Self::Topic(id)),
            "profile" => Some(Self::Profile(id)),
            _ => None,
        }
    }
}

impl fmt::Display for TakedownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.id())
    }
}

/// One recorded takedown, with its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Takedown {
    /// Its ID (what `forumdex takedown remove` takes).
    pub takedown_id: i64,
    /// What it removes.
    pub target: TakedownTarget,
    /// Why, as the operator wrote it.
    pub reason: String,
    /// When it was recorded.
    pub at: Millis,
    /// When it was lifted, and why; `None` while in force.
    pub lifted: Option<Lifted>,
}

/// A takedown as stored, column by column (`lifted_reason` empty when lifted without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTakedown {
    /// `takedown_id`.
    pub takedown_id: i64,
    /// `kind`: `post`, `topic` or `profile`.
    pub kind: String,
    /// `entity_id`.
    pub entity_id: i64,
    /// `reason`.
    pub reason: String,
    /// `created_at`, Unix milliseconds.
    pub created_at: i64,
    /// `lifted_at`, Unix milliseconds.
    pub lifted_at: Option<i64>,
    /// `lifted_reason`.
    pub lifted_reason: Option<String>,
}

impl Takedown {
    /// The takedown a stored row holds; `None` for a kind this binary does not know.
    pub fn from_stored(row: StoredTakedown) -> Option<Self> {
        Some(Self {
            takedown_id: row.takedown_id,
            target: TakedownTarget::from_parts(&row.kind, row.entity_id)?,
            reason: row.reason,
            at: Millis(row.created_at),
            lifted: row.lifted_at.map(|at| Lifted {
                at: Millis(at),
                reason: row.lifted_reason.unwrap_or_default(),
            }),
        })
    }

    /// Whether the content is out of the service now.
    pub fn in_force(&self) -> bool {
        self.lifted.is_none()
    }
}

/// When and why a takedown was lifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lifted {
    /// When.
    pub at: Millis,
    /// Why (may be empty).
    pub reason: String,
}

/// The takedowns in force, as lists of IDs by kind: what a search leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TakedownSet {
    /// Posts taken down one by one.
    pub posts: Vec<i64>,
    /// Topics taken down with all their posts.
    pub topics: Vec<i64>,
    /// Profiles taken down with all their posts.
    pub profiles: Vec<i64>,
}

impl TakedownSet {
    /// Adds a takedown in force of `target`.
    pub fn insert(&mut self, target: TakedownTarget) {
        match target {
            TakedownTarget::Post(id) => self.posts.push(id),
            TakedownTarget::Topic(id) => self.topics.push(id),
            TakedownTarget::Profile(id) => self.profiles.push(id),
        }
    }

    /// Whether nothing is taken down.
    pub fn is_empty(&self) -> bool {
        self.posts.is_empty() && self.topics.is_empty() && self.profiles.is_empty()
    }
}

/// Why a takedown change was refused.
#[derive(Debug, thiserror::Error)]
pub enum TakedownError {
    /// The target already has a takedown in force.
    #[error("{target} is already taken down (takedown {takedown_id})")]
    AlreadyTakenDown {
        /// The target.
        target: TakedownTarget,
        /// The takedown in force.
        takedown_id: i64,
    },
    /// No takedown in force has this ID.
    #[error("no takedown {0} is in force")]
    NotInForce(i64),
    /// The reason is empty or too long.
    #[error("the reason must be 1 to {MAX_REASON_CHARS} characters")]
    BadReason,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] crate::error::StoreError),
}

/// The longest reason, in characters.
pub const MAX_REASON_CHARS: usize = 1_000;

/// The reason as stored: trimmed, 1 to [`MAX_REASON_CHARS`] characters (or empty when not
/// `required`, as when a takedown is lifted).
pub fn check_reason(reason: &str, required: bool) -> Result<&str, TakedownError> {
    let reason = reason.trim();
    let length = reason.chars().count();
    if (required && length == 0) || length > MAX_REASON_CHARS {
        return Err(TakedownError::BadReason);
    }
    Ok(reason)
}

impl From<Scope> for TakedownTarget {
    /// What a takedown of the listing's topic or profile targets.
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::Topic(id) => Self::Topic(id),
            Scope::Profile(id) => Self::Profile(id),
        }
    }
}
