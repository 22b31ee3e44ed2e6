//! The contract's JSON shapes (the `forumdex-types` crate) built from the store's documents,
//! and the links they carry. Timestamps are UTC with exactly three fractional digits.

use forumdex_corpus::{BoardRef, Millis, PostDoc, ProfileDoc, TopicDoc};
use forumdex_types::{
    Author, Board, DerivedFrom, Merit, Post, PostObject, PostSummary, Profile, ProfileCorpus,
    ProfileObject, Topic, TopicObject, Views,
};

/// How forum and CDN links are built (from the settings).
#[derive(Debug, Clone)]
pub struct Links {
    /// The original forum, without a trailing slash.
    pub forum_url: String,
    /// Base address of image objects, without a trailing slash.
    pub cdn_url: String,
}

impl Links {
    /// `{forum_url}/index.php?topic={topic_id}.msg{post_id}#msg{post_id}`.
    pub fn post(&self, topic_id: i64, post_id: i64) -> String {
        format!(
            "{}/index.php?topic={topic_id}.msg{post_id}#msg{post_id}",
            self.forum_url
        )
    }

    /// `{cdn_url}/{sha256}.avif`: the CDN URL of an image object.
    pub fn image(&self, sha256: &str) -> String {
        format!("{}/{sha256}.avif", self.cdn_url)
    }

    /// `{forum_url}/index.php?topic={topic_id}.0`.
    pub fn topic(&self, topic_id: i64) -> String {
        format!("{}/index.php?topic={topic_id}.0", self.forum_url)
    }

    /// `{forum_url}/index.php?action=profile;u={profile_id}`.
    pub fn profile(&self, profile_id: i64) -> String {
        format!("{}/index.php?action=profile;u={profile_id}", self.forum_url)
    }
}

fn time(at: Option<Millis>) -> Option<String> {
    at.map(Millis::to_rfc3339)
}

/// The wire board of a stored board reference.
pub fn board(board: &BoardRef) -> Board {
    Board {
        board_id: board.board_id,
        name: board.name.clone(),
    }
}

/// The wire merit of stored merit counts.
pub fn merit(merit: &forumdex_corpus::Merit) -> Merit {
    Merit {
        total: merit.counts.total,
        distinct_senders: merit.counts.distinct_senders,
        transactions: merit.counts.transactions,
        observed_at: time(merit.observed_at),
    }
}

/// The summary of a stored post.
pub fn post_summary(post: &PostDoc, links: &Links) -> PostSummary {
    PostSummary {
        post_id: post.post_id,
        topic_id: post.topic_id,
        post_number: post.post_number,
        is_op: post.is_op,
        title: post.title.clone(),
        author: Author {
            profile_id: post.author_id,
            username: post.author_name.clone(),
            url: post.author_id.map(|id| links.profile(id)),
        },
        board: board(&post.board),
        language: post.language.clone(),
        posted_at: time(post.posted_at),
        url: links.post(post.topic_id, post.post_id),
        topic_url: links.topic(post.topic_id),
    }
}

/// The full wire post of a stored post.
pub fn post(post: &PostDoc, links: &Links) -> Post {
    Post {
        object: PostObject::Post,
        summary: post_summary(post, links),
        content_html: post.content_html.clone(),
        indexed_at: time(Some(post.indexed_at)),
        merit: merit(&post.merit),
    }
}

/// The wire topic of a stored topic.
pub fn topic(topic: &TopicDoc, links: &Links) -> Topic {
    Topic {
        object: TopicObject::Topic,
        topic_id: topic.topic_id,
        title: topic.title.clone(),
        board: board(&topic.board),
        language: topic.language.clone(),
        created_at: time(topic.created_at),
        last_post_at: time(topic.last_post_at),
        post_count: topic.post_count,
        page_count: topic.page_count,
        views: Views {
            observed: topic.views.observed,
            observed_at: time(topic.views.observed_at),
        },
        merit: merit(&topic.merit),
        url: links.topic(topic.topic_id),
        first_post: topic.first_post.as_ref().map(|p| post(p, links)),
        latest_post: topic.latest_post.as_ref().map(|p| post_summary(p, links)),
    }
}

/// The wire profile of a stored profile.
pub fn profile(profile: &ProfileDoc, links: &Links) -> Profile {
    Profile {
        object: ProfileObject::Profile,
        profile_id: profile.profile_id,
        username: profile.username.clone(),
        url: links.profile(profile.profile_id),
        corpus: ProfileCorpus {
            post_count: profile.activity.post_count,
            topic_count: profile.activity.topic_count,
            first_post_at: time(profile.activity.first_post_at),
            last_post_at: time(profile.activity.last_post_at),
            derived_from: DerivedFrom::DistinctIndexedPosts,
        },
        recent_posts: profile
            .recent_posts
            .iter()
            .map(|p| post_summary(p, links))
            .collect(),
    }
}
