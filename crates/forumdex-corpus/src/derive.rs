//! The rules of corpus-format.md "How API fields derive", in one place for every backend.
//!
//! A backend reads facts (a record's fields, counts and sums over canonical posts at a
//! snapshot) and hands them to these functions; it never re-implements a rule. Facts that
//! cost a query and are needed only in some cases are passed as closures, so a backend asks
//! for them only when the rule needs them.

use crate::model::*;
use crate::record::MeritCounts;
use crate::time::Millis;

/// Posts per forum page: a topic without a recorded page count has
/// `ceil(post_count / POSTS_PER_PAGE)` pages.
pub const POSTS_PER_PAGE: i64 = 20;

/// A topic's page count: the record's, else `ceil(post_count / 20)`.
pub fn page_count(recorded: Option<i64>, post_count: i64) -> i64 {
    recorded.unwrap_or((post_count + POSTS_PER_PAGE - 1) / POSTS_PER_PAGE)
}

/// A topic's board: the record's, else its opening post's effective board, else the board of
/// any of its posts (asked of `any_post_board` only when the first two have none).
pub fn topic_board_id<E>(
    recorded: Option<i64>,
    opening_post: Option<&PostDoc>,
    any_post_board: impl FnOnce() -> Result<Option<i64>, E>,
) -> Result<Option<i64>, E> {
    match recorded.or_else(|| opening_post.and_then(|op| op.board.board_id)) {
        Some(id) => Ok(Some(id)),
        None => any_post_board(),
    }
}

/// A topic's distinct merit senders: distinct sending profiles across the topic when every
/// merited post lists its senders (`unlisted_merited_posts == 0`), otherwise the sum of the
/// posts' own distinct-sender counts (an upper bound). Only the count the rule picks is
/// asked for.
pub fn topic_distinct_senders<E>(
    unlisted_merited_posts: i64,
    distinct_listed_senders: impl FnOnce() -> Result<i64, E>,
    summed_distinct_senders: impl FnOnce() -> Result<i64, E>,
) -> Result<i64, E> {
    if unlisted_merited_posts == 0 {
        distinct_listed_senders()
    } else {
        summed_distinct_senders()
    }
}

/// A topic's opening post (`P`: the post, or what names it): the post flagged `is_op` with
/// the smallest ID, else the post with the smallest ID when its `is_op` holds
/// ([`PostDoc::is_op`]: false when its record says so, or when a smaller post of the topic is
/// not served). `smallest` gives that post with its `is_op`, and is asked for only when no
/// post is flagged.
pub fn opening_post<P, E>(
    flagged: Option<P>,
    smallest: impl FnOnce() -> Result<Option<(P, bool)>, E>,
) -> Result<Option<P>, E> {
    match flagged {
        Some(op) => Ok(Some(op)),
        None => Ok(smallest()?.and_then(|(post, is_op)| is_op.then_some(post))),
    }
}

/// The fields of a topic's canonical record at a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRecordFacts {
    /// Its title.
    pub title: String,
    /// Its board.
    pub board_id: Option<i64>,
    /// Its view counter, when observed.
    pub views: Option<i64>,
    /// Its page count, when observed.
    pub page_count: Option<i64>,
    /// When it was observed.
    pub observed_at: Millis,
}

/// Aggregates over a topic's canonical posts at a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TopicPostFacts {
    /// How many.
    pub post_count: i64,
    /// Greatest posting time.
    pub last_post_at: Option<Millis>,
    /// Sum of their merit totals.
    pub merit_total: i64,
    /// Sum of their merit transactions.
    pub merit_transactions: i64,
    /// Their distinct merit senders (see [`topic_distinct_senders`]).
    pub merit_distinct_senders: i64,
    /// Latest observation time among them.
    pub merit_observed_at: Option<Millis>,
}

/// Sums over a topic's counted posts, which an import can also keep by difference (each
/// backend's topic statistics add what a batch opened and subtract what it closed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TopicSums {
    /// How many.
    pub post_count: i64,
    /// Sum of their merit totals.
    pub merit_total: i64,
    /// Sum of their merit transactions.
    pub merit_tx: i64,
    /// Sum of their own distinct-sender counts.
    pub merit_distinct_sum: i64,
    /// How many of them have merit but do not list its senders (see
    /// [`topic_distinct_senders`]).
    pub merit_unlisted: i64,
}

impl std::ops::Add for TopicSums {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            post_count: self.post_count + other.post_count,
            merit_total: self.merit_total + other.merit_total,
            merit_tx: self.merit_tx + other.merit_tx,
            merit_distinct_sum: self.merit_distinct_sum + other.merit_distinct_sum,
            merit_unlisted: self.merit_unlisted + other.merit_unlisted,
        }
    }
}

impl std::ops::Sub for TopicSums {
    type Output = Self;

    fn sub(self, other: Self) -> Self {
        Self {
            post_count: self.post_count - other.post_count,
            merit_total: self.merit_total - other.merit_total,
            merit_tx: self.merit_tx - other.merit_tx,
            merit_distinct_sum: self.merit_distinct_sum - other.merit_distinct_sum,
            merit_unlisted: self.merit_unlisted - other.merit_unlisted,
        }
    }
}

/// Aggregates over a topic's counted posts at a snapshot, in one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TopicAggregates {
    /// The sums.
    pub sums: TopicSums,
    /// Greatest posting time.
    pub last_post_at: Option<i64>,
    /// Latest observation time.
    pub merit_observed_at: Option<i64>,
}

impl TopicAggregates {
    /// The facts the rules take, with the distinct senders picked by
    /// [`topic_distinct_senders`] (`listed_senders` is asked only when the rule needs it).
    pub fn facts<E>(
        &self,
        listed_senders: impl FnOnce() -> Result<i64, E>,
    ) -> Result<TopicPostFacts, E> {
        let sums = self.sums;
        Ok(TopicPostFacts {
            post_count: sums.post_count,
            last_post_at: self.last_post_at.map(Millis),
            merit_total: sums.merit_total,
            merit_transactions: sums.merit_tx,
            merit_distinct_senders: topic_distinct_senders(
                sums.merit_unlisted,
                listed_senders,
                || Ok(sums.merit_distinct_sum),
            )?,
            merit_observed_at: self.merit_observed_at.map(Millis),
        })
    }
}

/// Everything a topic document is derived from.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicFacts {
    /// Topic ID.
    pub topic_id: i64,
    /// Its record, when it has one.
    pub record: Option<TopicRecordFacts>,
    /// Aggregates over its posts.
    pub posts: TopicPostFacts,
    /// Its board (see [`topic_board_id`]) with the board record's name.
    pub board: BoardRef,
    /// Its opening post (see [`opening_post`]).
    pub first_post: Option<PostDoc>,
    /// Its post with the greatest (posted_at, post_id).
    pub latest_post: Option<PostDoc>,
}

/// What a topic's posts give its document at a snapshot, with the posts it shows by ID:
/// from the statistics the imports keep, or aggregated over the served posts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopicPosts {
    /// The aggregates the rules take.
    pub facts: TopicPostFacts,
    /// Its opening post (by [`opening_post`]).
    pub first_post_id: Option<i64>,
    /// Its post with the greatest (posted_at, post_id).
    pub latest_post_id: Option<i64>,
    /// The board of its posts (the fallback of [`topic_board_id`]).
    pub board_id: Option<i64>,
}

/// What a backend answers, at the snapshot of one read, to build a topic document
/// ([`topic_document`]).
pub trait TopicSource {
    /// The backend's error.
    type Error;

    /// Whether the topic itself is under a takedown in force.
    fn topic_taken_down(&mut self, topic_id: i64) -> Result<bool, Self::Error>;
    /// The topic's record, when it has one.
    fn record(&mut self, topic_id: i64) -> Result<Option<TopicRecordFacts>, Self::Error>;
    /// Whether a post or profile takedown in force may hide one of the topic's posts (then
    /// its kept statistics, which count posts whatever their takedowns, do not answer).
    fn may_hide_posts_of(&mut self, topic_id: i64) -> Result<bool, Self::Error>;
    /// The topic's posts from the kept statistics, when they cover the snapshot.
    fn kept(&mut self, topic_id: i64) -> Result<Option<TopicPosts>, Self::Error>;
    /// The topic's posts aggregated over those served at the snapshot.
    fn aggregated(&mut self, topic_id: i64) -> Result<TopicPosts, Self::Error>;
    /// The post, when it is served.
    fn post(&mut self, post_id: i64) -> Result<Option<PostDoc>, Self::Error>;
    /// The board's name (`""` for none, or a board without a record).
    fn board_name(&mut self, board_id: Option<i64>) -> Result<String, Self::Error>;
}

/// The topic document at the source's snapshot, for every backend: none for a topic under
/// a takedown or one that does not exist ([`topic_exists`]); its posts from the kept
/// statistics when no takedown may hide one of them and they cover the snapshot, else
/// aggregated over the served posts; then the rules of [`topic_doc`].
pub fn topic_document<S: TopicSource>(
    source: &mut S,
    topic_id: i64,
) -> Result<Option<TopicDoc>, S::Error> {
    if source.topic_taken_down(topic_id)? {
        return Ok(None);
    }
    let record = source.record(topic_id)?;
    let kept = if source.may_hide_posts_of(topic_id)? {
        None
    } else {
        source.kept(topic_id)?
    };
    let posts = match kept {
        Some(posts) => posts,
        None => source.aggregated(topic_id)?,
    };
    if !topic_exists(record.as_ref(), posts.facts.post_count) {
        return Ok(None);
    }
    let mut post = |id: Option<i64>| match id {
        Some(id) => source.post(id),
        None => Ok(None),
    };
    let first_post = post(posts.first_post_id)?;
    let latest_post = if posts.latest_post_id == posts.first_post_id {
        first_post.clone()
    } else {
        post(posts.latest_post_id)?
    };
    let board_id = topic_board_id(
        record.as_ref().and_then(|r| r.board_id),
        first_post.as_ref(),
        || Ok(posts.board_id),
    )?;
    let board = BoardRef {
        board_id,
        name: source.board_name(board_id)?,
    };
    Ok(Some(topic_doc(TopicFacts {
        topic_id,
        record,
        posts: posts.facts,
        board,
        first_post,
        latest_post,
    })))
}

/// Whether a topic exists: it has a record or a post names it.
pub fn topic_exists(record: Option<&TopicRecordFacts>, post_count: i64) -> bool {
    record.is_some() || post_count > 0
}

/// The topic document: title from the record else the opening post, views from the record,
/// page count by [`page_count`], language and creation time from the opening post, merit
/// summed over the posts.
pub fn topic_doc(facts: TopicFacts) -> TopicDoc {
    let TopicFacts {
        topic_id,
        record,
        posts,
        board,
        first_post,
        latest_post,
    } = facts;
    let title = match (&record, &first_post) {
        (Some(record), _) => record.title.clone(),
        (None, Some(op)) => op.title.clone(),
        (None, None) => String::new(),
    };
    let views = match record
        .as_ref()
        .and_then(|r| r.views.map(|v| (v, r.observed_at)))
    {
        Some((observed, at)) => Views {
            observed,
            observed_at: Some(at),
        },
        None => Views {
            observed: 0,
            observed_at: None,
        },
    };
    TopicDoc {
        topic_id,
        title,
        board,
        language: first_post.as_ref().and_then(|p| p.language.clone()),
        created_at: first_post.as_ref().and_then(|p| p.posted_at),
        last_post_at: posts.last_post_at,
        post_count: posts.post_count,
        page_count: page_count(record.as_ref().and_then(|r| r.page_count), posts.post_count),
        views,
        merit: Merit {
            counts: MeritCounts {
                total: posts.merit_total,
                distinct_senders: posts.merit_distinct_senders,
                transactions: posts.merit_transactions,
            },
            observed_at: posts.merit_observed_at,
        },
        first_post,
        latest_post,
    }
}

/// Everything a profile document is derived from.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileFacts {
    /// Forum user ID.
    pub profile_id: i64,
    /// Its record, when it has one: the recorded username (which may be absent).
    pub record: Option<Option<String>>,
    /// Activity over its canonical posts.
    pub activity: ProfileActivity,
    /// Its [`RECENT_POSTS`] latest posts by (posted_at, post_id), newest first.
    pub recent_posts: Vec<PostDoc>,
}

/// Whether a profile exists: it has a record or it wrote a post.
pub fn profile_exists(record: Option<&Option<String>>, post_count: i64) -> bool {
    record.is_some() || post_count > 0
}

/// What a backend answers, at the snapshot of one read, to build a profile document
/// ([`profile_document`]).
pub trait ProfileSource {
    /// The backend's error.
    type Error;

    /// Whether the profile is under a takedown in force.
    fn profile_taken_down(&mut self, profile_id: i64) -> Result<bool, Self::Error>;
    /// Its record, when it has one: the recorded username (which may be absent).
    fn record(&mut self, profile_id: i64) -> Result<Option<Option<String>>, Self::Error>;
    /// Activity over its served posts.
    fn activity(&mut self, profile_id: i64) -> Result<ProfileActivity, Self::Error>;
    /// Its `limit` latest served posts by (posted_at, post_id), newest first.
    fn recent_posts(&mut self, profile_id: i64, limit: usize) -> Result<Vec<PostDoc>, Self::Error>;
}

/// The profile document at the source's snapshot, for every backend: none for a profile
/// under a takedown or one that does not exist ([`profile_exists`]); else the rules of
/// [`profile_doc`] over its record, activity and [`RECENT_POSTS`] latest posts.
pub fn profile_document<S: ProfileSource>(
    source: &mut S,
    profile_id: i64,
) -> Result<Option<ProfileDoc>, S::Error> {
    if source.profile_taken_down(profile_id)? {
        return Ok(None);
    }
    let record = source.record(profile_id)?;
    let activity = source.activity(profile_id)?;
    if !profile_exists(record.as_ref(), activity.post_count) {
        return Ok(None);
    }
    let recent_posts = source.recent_posts(profile_id, RECENT_POSTS)?;
    Ok(Some(profile_doc(ProfileFacts {
        profile_id,
        record,
        activity,
        recent_posts,
    })))
}

/// The profile document: the recorded username, else the author name on its latest post.
pub fn profile_doc(facts: ProfileFacts) -> ProfileDoc {
    let ProfileFacts {
        profile_id,
        record,
        activity,
        recent_posts,
    } = facts;
    let username = match record.flatten() {
        Some(name) => Some(name),
        None => recent_posts.first().map(|p| p.author_name.clone()),
    };
    ProfileDoc {
        profile_id,
        username,
        activity,
        recent_posts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topic source that records what it was asked.
    #[derive(Default)]
    struct Recorded {
        taken_down: bool,
        may_hide: bool,
        kept: Option<TopicPosts>,
        asked: Vec<&'static str>,
    }

    impl TopicSource for Recorded {
        type Error = std::convert::Infallible;

        fn topic_taken_down(&mut self, _: i64) -> Result<bool, Self::Error> {
            self.asked.push("taken_down");
            Ok(self.taken_down)
        }
        fn record(&mut self, _: i64) -> Result<Option<TopicRecordFacts>, Self::Error> {
            self.asked.push("record");
            Ok(None)
        }
        fn may_hide_posts_of(&mut self, _: i64) -> Result<bool, Self::Error> {
            self.asked.push("may_hide");
            Ok(self.may_hide)
        }
        fn kept(&mut self, _: i64) -> Result<Option<TopicPosts>, Self::Error> {
            self.asked.push("kept");
            Ok(self.kept.clone())
        }
        fn aggregated(&mut self, _: i64) -> Result<TopicPosts, Self::Error> {
            self.asked.push("aggregated");
            Ok(posts(3, Some(11)))
        }
        fn post(&mut self, _: i64) -> Result<Option<PostDoc>, Self::Error> {
            self.asked.push("post");
            Ok(None)
        }
        fn board_name(&mut self, board_id: Option<i64>) -> Result<String, Self::Error> {
            self.asked.push("board_name");
            Ok(format!("board {board_id:?}"))
        }
    }

    fn posts(post_count: i64, board_id: Option<i64>) -> TopicPosts {
        TopicPosts {
            facts: TopicPostFacts {
                post_count,
                ..TopicPostFacts::default()
            },
            first_post_id: Some(1),
            latest_post_id: Some(1),
            board_id,
        }
    }

    #[test]
    fn a_topic_document_takes_the_kept_statistics_only_when_they_answer_exactly() {
        let mut taken = Recorded {
            taken_down: true,
            ..Recorded::default()
        };
        assert_eq!(topic_document(&mut taken, 7), Ok(None));
        assert_eq!(taken.asked, ["taken_down"]);

        let mut hidden = Recorded {
            may_hide: true,
            kept: Some(posts(5, Some(22))),
            ..Recorded::default()
        };
        let doc = topic_document(&mut hidden, 7)
            .expect("infallible")
            .expect("has posts");
        assert!(!hidden.asked.contains(&"kept"), "{:?}", hidden.asked);
        assert_eq!(doc.board.board_id, Some(11), "the aggregates' board");
        assert_eq!(doc.board.name, "board Some(11)");

        let mut kept = Recorded {
            kept: Some(posts(5, Some(22))),
            ..Recorded::default()
        };
        let doc = topic_document(&mut kept, 7)
            .expect("infallible")
            .expect("has posts");
        assert!(!kept.asked.contains(&"aggregated"), "{:?}", kept.asked);
        assert_eq!(doc.board.board_id, Some(22));
        assert_eq!(
            kept.asked.iter().filter(|&&asked| asked == "post").count(),
            1,
            "the opening post is the latest: read once"
        );

        let mut none = Recorded {
            kept: Some(TopicPosts::default()),
            ..Recorded::default()
        };
        assert_eq!(
            topic_document(&mut none, 7),
            Ok(None),
            "no record, no posts"
        );
    }
    use crate::id::ForumId;
    use crate::record::MeritSender;

    #[test]
    fn page_count_rounds_up_unless_recorded() {
        assert_eq!(page_count(None, 0), 0);
        assert_eq!(page_count(None, 1), 1);
        assert_eq!(page_count(None, 20), 1);
        assert_eq!(page_count(None, 21), 2);
        assert_eq!(page_count(Some(7), 21), 7);
    }

    #[test]
    fn merit_counts_from_senders() {
        let sender = |id, amount| MeritSender {
            profile_id: ForumId::new(id).expect("valid id"),
            amount,
        };
        let counts = MeritCounts::from_senders(&[sender(7, 2), sender(7, 1), sender(8, 5)]);
        assert_eq!(
            counts,
            MeritCounts {
                total: 8,
                distinct_senders: 2,
                transactions: 3
            }
        );
        assert_eq!(MeritCounts::from_senders(&[]), MeritCounts::default());
    }

    #[test]
    fn opening_post_is_the_flagged_one_else_the_smallest_when_it_opens() {
        let flagged = opening_post(Some(7), || -> Result<_, ()> { panic!("not asked") });
        assert_eq!(flagged, Ok(Some(7)));
        assert_eq!(
            opening_post(None, || Ok::<_, ()>(Some((3, true)))),
            Ok(Some(3))
        );
        assert_eq!(
            opening_post(None, || Ok::<_, ()>(Some((3, false)))),
            Ok(None)
        );
        assert_eq!(opening_post::<i64, ()>(None, || Ok(None)), Ok(None));
    }

    #[test]
    fn distinct_senders_ask_only_for_the_count_the_rule_picks() {
        let listed = topic_distinct_senders(0, || Ok::<_, ()>(3), || panic!("not asked"));
        assert_eq!(listed, Ok(3));
        let summed = topic_distinct_senders(2, || panic!("not asked"), || Ok::<_, ()>(9));
        assert_eq!(summed, Ok(9));
    }
}
