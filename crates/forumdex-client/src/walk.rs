//! [`Walk`]: every post of a collection as a [`Stream`], following the contract's cursor
//! rules (continue until `next_cursor` is null, never stop on an empty page, restart on 410).

use std::collections::{HashSet, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use forumdex_types::Post;
use futures_util::Stream;
use futures_util::stream::unfold;

use crate::client::{Client, Scope};
use crate::error::Error;
use crate::options::{ForumId, ProfilePostsOptions, TopicPostsOptions};

/// Consecutive 410s (without a page in between) after which a walk gives up and yields the
/// [`Error::Gone`]: a snapshot that expires before even a first page arrives will not get
/// better by asking again.
pub const MAX_CONSECUTIVE_RESTARTS: u32 = 3;

/// What a walk has cost so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Pages received (200s), counting pages fetched again after a restart.
    pub pages: u64,
    /// Credits charged for them (`X-Credits-Charged`; one per page, including an empty
    /// terminal page).
    pub credits: u64,
    /// Times the walk started again from the first page after a 410.
    pub restarts: u64,
    /// Posts yielded.
    pub posts: u64,
}

/// Every post of a topic or profile, in the collection's order, as a stream of
/// `Result<Post, Error>`; made by [`Client::walk_topic_posts`] and
/// [`Client::walk_profile_posts`].
///
/// - It sends the options with the first request only, then each `next_cursor` as it came,
///   until `next_cursor` is null. Empty or short pages do not end it.
/// - On 410 (the cursor or its snapshot expired) it starts again without a cursor, which
///   freezes a new snapshot. **Each post ID is yielded at most once per walk**: posts already
///   yielded are skipped on the pages fetched again (the walk keeps the set of yielded IDs,
///   8 bytes per post). A post that changed between the snapshots is therefore yielded as
///   first seen, and a post that appeared in the new snapshot before the point reached is
///   still yielded, later than its place in the order. After
///   [`MAX_CONSECUTIVE_RESTARTS`] 410s in a row it yields the error.
/// - Any other error is yielded once and ends the stream (retries happen below, in the
///   client, where they are safe).
///
/// [`Walk::stats`] reports pages and credits used so far, also after an error.
pub struct Walk {
    stream: Pin<Box<dyn Stream<Item = Result<Post, Error>> + Send>>,
    stats: Arc<Mutex<WalkStats>>,
}

impl std::fmt::Debug for Walk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

struct State {
    client: Client,
    scope: Scope,
    first: Vec<(&'static str, String)>,
    cursor: Option<String>,
    buffer: VecDeque<Post>,
    seen: HashSet<i64>,
    done: bool,
    consecutive_restarts: u32,
    stats: Arc<Mutex<WalkStats>>,
}

impl Client {
    /// Every post of a topic, as a stream that follows the cursors; see [`Walk`].
    pub fn walk_topic_posts(&self, id: ForumId, options: &TopicPostsOptions) -> Walk {
        Walk::new(self.clone(), Scope::Topic(id), options.query())
    }

    /// Every post of a profile, as a stream that follows the cursors; see [`Walk`].
    pub fn walk_profile_posts(&self, id: ForumId, options: &ProfilePostsOptions) -> Walk {
        Walk::new(self.clone(), Scope::Profile(id), options.query())
    }
}

impl Walk {
    pub(crate) fn new(client: Client, scope: Scope, first: Vec<(&'static str, String)>) -> Self {
        let stats = Arc::new(Mutex::new(WalkStats::default()));
        let state = State {
            client,
            scope,
            first,
            cursor: None,
            buffer: VecDeque::new(),
            seen: HashSet::new(),
            done: false,
            consecutive_restarts: 0,
            stats: Arc::clone(&stats),
        };
        Self {
            stream: Box::pin(unfold(state, next)),
            stats,
        }
    }

    /// Pages, credits, restarts and posts so far.
    pub fn stats(&self) -> WalkStats {
        *self.stats.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Stream for Walk {
    type Item = Result<Post, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}

impl State {
    fn update(&self, change: impl FnOnce(&mut WalkStats)) {
        change(&mut self.stats.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// The next post, fetching pages until one holds an unseen post or the walk ends.
async fn next(mut state: State) -> Option<(Result<Post, Error>, State)> {
    loop {
        if let Some(post) = state.buffer.pop_front() {
            state.update(|stats| stats.posts += 1);
            return Some((Ok(post), state));
        }
        if state.done {
            return None;
        }
        let fetched = state
            .client
            .page(state.scope, &state.first, state.cursor.as_deref())
            .await;
        match fetched {
            Ok((page, meter)) => {
                state.consecutive_restarts = 0;
                state.update(|stats| {
                    stats.pages += 1;
                    stats.credits += meter.credits_charged.unwrap_or(1);
                });
                for post in page.data {
                    if state.seen.insert(post.summary.post_id) {
                        state.buffer.push_back(post);
                    }
                }
                match page.next_cursor {
                    Some(cursor) => state.cursor = Some(cursor),
                    None => state.done = true,
                }
            }
            Err(Error::Gone(_)) if state.consecutive_restarts < MAX_CONSECUTIVE_RESTARTS => {
                state.consecutive_restarts += 1;
                state.cursor = None;
                state.update(|stats| stats.restarts += 1);
            }
            Err(err) => {
                state.done = true;
                return Some((Err(err), state));
            }
        }
    }
}
