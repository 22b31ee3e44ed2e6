//! What the store returns: canonical documents at a snapshot, with the derived values of
//! corpus-format.md "How API fields derive". URLs are not built here (they depend on
//! settings); the API turns these into wire types.

use crate::record::MeritCounts;
use crate::time::Millis;

/// A frozen point in the corpus: an import sequence number plus when it was frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// The last import batch the snapshot sees (0 = the empty corpus).
    pub seq: i64,
    /// When the snapshot was taken.
    pub taken_at: Millis,
}

/// A board as posts, topics and listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardRef {
    /// Board ID; `None` when neither the post nor its topic names one.
    pub board_id: Option<i64>,
    /// The board record's name; `""` when the board has no record.
    pub name: String,
}

/// Merit with the time it was observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merit {
    /// The counts.
    pub counts: MeritCounts,
    /// When they were observed; `None` when nothing was.
    pub observed_at: Option<Millis>,
}

/// A canonical post at a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct PostDoc {
    /// Forum message ID.
    pub post_id: i64,
    /// Topic ID.
    pub topic_id: i64,
    /// Position shown by the forum.
    pub post_number: Option<i64>,
    /// Whether it opens its topic (the record's flag, else smallest post ID of the topic).
    pub is_op: bool,
    /// Post subject.
    pub title: String,
    /// Author profile ID (`None` for guests).
    pub author_id: Option<i64>,
    /// Author username.
    pub author_name: String,
    /// Effective board: the post's, else its topic's.
    pub board: BoardRef,
    /// Language code.
    pub language: Option<String>,
    /// Posting time.
    pub posted_at: Option<Millis>,
    /// Rendered HTML as imported (image URLs not yet rewritten).
    pub content_html: String,
    /// When the canonical observation was imported.
    pub indexed_at: Millis,
    /// Merit, observed at the canonical observation's `observed_at`.
    pub merit: Merit,
}

/// View counter of a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Views {
    /// The counter as observed (0 when never observed).
    pub observed: i64,
    /// When (`None` when never observed).
    pub observed_at: Option<Millis>,
}

/// A topic with its derived values.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicDoc {
    /// Topic ID.
    pub topic_id: i64,
    /// The record's title, else the opening post's.
    pub title: String,
    /// The record's board, else the board of its posts.
    pub board: BoardRef,
    /// The opening post's language.
    pub language: Option<String>,
    /// Posting time of the opening post.
    pub created_at: Option<Millis>,
    /// Greatest posting time.
    pub last_post_at: Option<Millis>,
    /// Canonical posts in the topic.
    pub post_count: i64,
    /// The record's page count, else ceil(post_count / 20).
    pub page_count: i64,
    /// View counter.
    pub views: Views,
    /// Merit summed over its posts.
    pub merit: Merit,
    /// The opening post, when indexed.
    pub first_post: Option<PostDoc>,
    /// The post with the greatest (posted_at, post_id).
    pub latest_post: Option<PostDoc>,
}

/// Corpus-derived activity of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileActivity {
    /// Canonical posts by the profile.
    pub post_count: i64,
    /// Distinct topics among them.
    pub topic_count: i64,
    /// Least posting time.
    pub first_post_at: Option<Millis>,
    /// Greatest posting time.
    pub last_post_at: Option<Millis>,
}

/// A profile with its derived values.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileDoc {
    /// Forum user ID.
    pub profile_id: i64,
    /// The record's username, else the author name on its latest post.
    pub username: Option<String>,
    /// Activity in the corpus.
    pub activity: ProfileActivity,
    /// Its 10 latest posts by (posted_at, post_id), newest first.
    pub recent_posts: Vec<PostDoc>,
}

/// Number of posts in a profile's `recent_posts`.
pub const RECENT_POSTS: usize = 10;

/// Whose posts a listing walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The posts of a topic.
    Topic(i64),
    /// The posts of a profile.
    Profile(i64),
}

/// Listing order by (posted_at, post_id); posts without a date sort before every dated post.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Oldest first.
    Asc,
    /// Newest first.
    Desc,
}

/// Filters of a listing; dates bound `posted_at` (from inclusive, to exclusive) and leave
/// out undated posts when either is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ListFilters {
    /// Inclusive lower bound of posted_at.
    pub date_from: Option<Millis>,
    /// Exclusive upper bound of posted_at.
    pub date_to: Option<Millis>,
    /// Only posts whose effective board is this one.
    pub board_id: Option<i64>,
    /// Only posts by this profile (topic scope).
    pub author_id: Option<i64>,
    /// Only posts in this topic (profile scope).
    pub topic_id: Option<i64>,
}

/// A place in a listing's order: the sort key of the last post a page covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// The post's sort time (`posted_at` in ms; [`UNDATED`] for none).
    pub sort_at: i64,
    /// The post ID.
    pub post_id: i64,
}

/// The sort time of a post without `posted_at`: before every real date.
pub const UNDATED: i64 = i64::MIN;

/// One page request of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    /// Whose posts.
    pub scope: Scope,
    /// Which way.
    pub order: Order,
    /// Filters.
    pub filters: ListFilters,
    /// Posts per page (1..=100).
    pub limit: usize,
    /// Continue after this place; `None` starts at the beginning.
    pub after: Option<Position>,
    /// The most index entries one page may examine before it returns a short page.
    pub scan_budget: usize,
}

impl ListRequest {
    /// What a page walks, the same for every backend: the scope's id, the place to start
    /// after, and the `sort_at` range the date filters allow (`low` inclusive, `high`
    /// exclusive; with a date filter, undated posts are outside every range).
    pub fn window(&self) -> ListWindow {
        let dated = self.filters.date_from.is_some() || self.filters.date_to.is_some();
        let low = match self.filters.date_from {
            Some(from) => from.0,
            None if dated => UNDATED + 1,
            None => UNDATED,
        };
        let start = self.after.unwrap_or(match self.order {
            Order::Asc => Position {
                sort_at: UNDATED,
                post_id: i64::MIN,
            },
            Order::Desc => Position {
                sort_at: i64::MAX,
                post_id: i64::MAX,
            },
        });
        ListWindow {
            scope_id: match self.scope {
                Scope::Topic(id) | Scope::Profile(id) => id,
            },
            start,
            low,
            high: self.filters.date_to.map_or(i64::MAX, |to| to.0),
        }
    }
}

/// A listing page being walked, row by row of the scope's index from its window's start,
/// for every backend: keeps the served posts that pass the board filter until it holds
/// `limit` and finds one more (then the next page starts after its last post), or until it
/// has examined `scan_budget` rows (then a short, even empty, page resumes after the last
/// place examined, never between two versions of one post).
#[derive(Debug)]
pub struct ListWalk<'r> {
    request: &'r ListRequest,
    posts: Vec<PostDoc>,
    scanned: usize,
    last_position: Option<Position>,
}

impl<'r> ListWalk<'r> {
    /// A walk for `request`, nothing examined yet.
    pub fn new(request: &'r ListRequest) -> Self {
        Self {
            request,
            posts: Vec::with_capacity(request.limit),
            scanned: 0,
            last_position: None,
        }
    }

    /// Examines the next row, a post version at `position`, `served` or not; `post` reads
    /// it (asked only for a served one). `Some(next)` when the page is complete, with where
    /// the next one starts.
    pub fn examine<E>(
        &mut self,
        position: Position,
        served: bool,
        post: impl FnOnce() -> Result<PostDoc, E>,
    ) -> Result<Option<Option<Position>>, E> {
        if self.scanned >= self.request.scan_budget && self.last_position != Some(position) {
            return Ok(Some(self.last_position));
        }
        self.scanned += 1;
        if served {
            let post = post()?;
            let board_ok = self
                .request
                .filters
                .board_id
                .is_none_or(|board| post.board.board_id == Some(board));
            if board_ok {
                if let Some(last) = self.posts.last()
                    && self.posts.len() == self.request.limit
                {
                    return Ok(Some(Some(Position::of(last))));
                }
                self.posts.push(post);
            }
        }
        self.last_position = Some(position);
        Ok(None)
    }

    /// The page: the posts kept, and where the next page starts (`None`: the listing is
    /// complete).
    pub fn page(self, next: Option<Position>) -> ListPage {
        ListPage {
            posts: self.posts,
            next,
        }
    }
}

impl Position {
    /// The place of a post in a listing.
    pub fn of(post: &PostDoc) -> Self {
        Self {
            sort_at: post.posted_at.map_or(UNDATED, |at| at.0),
            post_id: post.post_id,
        }
    }
}

/// Where a listing page walks ([`ListRequest::window`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListWindow {
    /// The topic's or the profile's id.
    pub scope_id: i64,
    /// The page starts after this place.
    pub start: Position,
    /// The smallest `sort_at` allowed.
    pub low: i64,
    /// The first `sort_at` no longer allowed.
    pub high: i64,
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    /// The posts, in order.
    pub posts: Vec<PostDoc>,
    /// Where the next page starts; `None` when the listing is complete.
    pub next: Option<Position>,
}

/// How many canonical entities a snapshot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CorpusCounts {
    /// Distinct posts.
    pub posts: i64,
    /// Topics (with a record or named by a post).
    pub topics: i64,
    /// Profiles (with a record or named by a post).
    pub profiles: i64,
    /// Boards with a record.
    pub boards: i64,
    /// Image URLs with a record.
    pub images: i64,
}

impl From<[i64; 5]> for CorpusCounts {
    /// The counts in field order: posts, topics, profiles, boards, images.
    fn from([posts, topics, profiles, boards, images]: [i64; 5]) -> Self {
        Self {
            posts,
            topics,
            profiles,
            boards,
            images,
        }
    }
}

/// What one import batch changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchOutcome {
    /// The sequence number the batch got; `None` when it held nothing new.
    pub seq: Option<i64>,
    /// Observations seen for the first time.
    pub new_observations: usize,
    /// Observations already in the corpus (re-imports).
    pub known_observations: usize,
    /// New observations that became canonical.
    pub became_canonical: usize,
}

/// A place in the stream of post changes: the sequence that made a version canonical and
/// the post ID (see [`crate::CorpusRead::posts_changed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChangePosition {
    /// The version's `valid_from` sequence.
    pub seq: i64,
    /// The post ID.
    pub post_id: i64,
}

/// What became of a post in a range of sequences (see
/// [`crate::CorpusRead::posts_changed`]).
#[derive(Debug, Clone, PartialEq)]
pub enum PostChange {
    /// Its canonical version is now this document (boxed: the other variant is an ID).
    Current(Box<PostDoc>),
    /// Its canonical version is a deletion (corpus-format.md, post field `deleted`): the
    /// post is served as absent.
    Deleted {
        /// The post ID.
        post_id: i64,
    },
}

impl PostChange {
    /// The post the change is about.
    pub fn post_id(&self) -> i64 {
        match self {
            Self::Current(post) => post.post_id,
            Self::Deleted { post_id } => *post_id,
        }
    }

    /// The current document, unless the post is deleted.
    pub fn current(self) -> Option<PostDoc> {
        match self {
            Self::Current(post) => Some(*post),
            Self::Deleted { .. } => None,
        }
    }
}

/// An image record whose file has not become a cached image object yet (see
/// [`crate::CorpusWrite::pending_images`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingImage {
    /// The version's row ID: pending images are listed in this order.
    pub vid: i64,
    /// SHA-256 of the image record's line: the key its object is recorded under.
    pub line_sha256: Vec<u8>,
    /// The URL as it appears in posts' `src` attributes.
    pub source_url: String,
    /// Absolute path of the original file (the importer resolved it).
    pub file: String,
}

/// A stored AVIF object: its content address and size.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageObject {
    /// Lowercase hex SHA-256 of the AVIF bytes.
    pub sha256: String,
    /// Size of the AVIF bytes.
    pub bytes: u64,
}

/// The cached object of an image URL at a snapshot, with its NSFW score.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedImage {
    /// The AVIF object.
    pub object: ImageObject,
    /// Upstream classifier score in 0..1, when the corpus has one.
    pub nsfw_score: Option<f64>,
}
