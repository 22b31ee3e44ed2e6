//! A "full" value of every wire type: every `Option` is `Some`, every `Vec` and map holds an
//! element. Built with struct literals (no `..Default`), so a new field of a Rust type stops
//! this file from compiling until its sample sets it.

use std::collections::BTreeMap;

use forumdex_types::{
    Author, Board, BoardScope, DateSource, DerivedFrom, ErrorBody, Image, ImageObject,
    ImageSearchObject, ImageSearchResponse, Merit, MimeType, Order, Post, PostList,
    PostListFilters, PostListObject, PostListScope, PostObject, PostSummary, Profile,
    ProfileCorpus, ProfileObject, RankSource, ScopeKind, SearchHit, SearchResponse, Topic,
    TopicObject, Views,
};

const AT: &str = "2009-11-22T18:51:31.000Z";
const FORUM: &str = "https://forum.example/index.php";

pub fn author() -> Author {
    Author {
        profile_id: Some(3),
        username: "satoshi".to_owned(),
        url: Some(format!("{FORUM}?action=profile;u=3")),
    }
}

pub fn board() -> Board {
    Board {
        board_id: Some(1),
        name: "Bitcoin Discussion".to_owned(),
    }
}

pub fn merit() -> Merit {
    Merit {
        total: 12,
        distinct_senders: 4,
        transactions: 5,
        observed_at: Some(AT.to_owned()),
    }
}

pub fn post_summary() -> PostSummary {
    PostSummary {
        post_id: 28,
        topic_id: 5,
        post_number: Some(0),
        is_op: true,
        title: "Welcome".to_owned(),
        author: author(),
        board: board(),
        language: Some("en".to_owned()),
        posted_at: Some(AT.to_owned()),
        url: format!("{FORUM}?topic=5.msg28#msg28"),
        topic_url: format!("{FORUM}?topic=5.0"),
    }
}

pub fn post() -> Post {
    Post {
        object: PostObject::Post,
        summary: post_summary(),
        content_html: "Welcome to the <b>forum</b>.".to_owned(),
        indexed_at: Some("2024-01-02T03:04:05.678Z".to_owned()),
        merit: merit(),
    }
}

pub fn topic() -> Topic {
    Topic {
        object: TopicObject::Topic,
        topic_id: 5,
        title: "Welcome".to_owned(),
        board: board(),
        language: Some("en".to_owned()),
        created_at: Some(AT.to_owned()),
        last_post_at: Some("2010-01-01T00:00:00.000Z".to_owned()),
        post_count: 2,
        page_count: 1,
        views: Views {
            observed: 1_000,
            observed_at: Some(AT.to_owned()),
        },
        merit: merit(),
        url: format!("{FORUM}?topic=5.0"),
        first_post: Some(post()),
        latest_post: Some(post_summary()),
    }
}

pub fn profile() -> Profile {
    Profile {
        object: ProfileObject::Profile,
        profile_id: 3,
        username: Some("satoshi".to_owned()),
        url: format!("{FORUM}?action=profile;u=3"),
        corpus: ProfileCorpus {
            post_count: 2,
            topic_count: 1,
            first_post_at: Some(AT.to_owned()),
            last_post_at: Some("2010-01-01T00:00:00.000Z".to_owned()),
            derived_from: DerivedFrom::DistinctIndexedPosts,
        },
        recent_posts: vec![post_summary()],
    }
}

pub fn search_hit() -> SearchHit {
    SearchHit {
        post_id: 28,
        topic_id: 5,
        title: "Re: Welcome".to_owned(),
        topic_title: "Welcome".to_owned(),
        post_title: Some("Re: Welcome".to_owned()),
        content: "Welcome to the forum.".to_owned(),
        author: "satoshi".to_owned(),
        author_uid: Some(3),
        date: AT.to_owned(),
        date_source: DateSource::PostedAt,
        board_id: Some(1),
        board_name: "Bitcoin Discussion".to_owned(),
        lang: "en".to_owned(),
        is_op: false,
        url: format!("{FORUM}?topic=5.msg28#msg28"),
        highlight: Some(BTreeMap::from([(
            "content".to_owned(),
            vec!["Welcome to the <mark>forum</mark>.".to_owned()],
        )])),
        score: 12.5,
        spam_score: 0.25,
        ai_score: 0.125,
        health_score: 0.75,
        rank_source: RankSource {
            words: true,
            typo: false,
            proximity: true,
            exactness: true,
            freshness: true,
            answer: true,
            semantic: false,
        },
        ranking_model_version: "fdx-rank-3".to_owned(),
        search_index: "en".to_owned(),
    }
}

pub fn search_response() -> SearchResponse {
    SearchResponse {
        query: "forum".to_owned(),
        corrected_query: Some("forum".to_owned()),
        lang: "en".to_owned(),
        board_scope: BoardScope::All,
        index: "en".to_owned(),
        did_you_mean: Some("forums".to_owned()),
        hybrid: false,
        freshness: true,
        answer_seeking: true,
        total: 1,
        hits: vec![search_hit()],
    }
}

pub fn image() -> Image {
    let sha256 = "ab".repeat(32);
    Image {
        object: ImageObject::Image,
        url: format!("https://cdn.example/{sha256}.avif"),
        sha256,
        mime_type: MimeType::Avif,
        bytes: 2_048,
        nsfw_score: Some(0.5),
        post: post_summary(),
    }
}

pub fn image_search_response() -> ImageSearchResponse {
    ImageSearchResponse {
        object: ImageSearchObject::ImageSearch,
        query: "miner".to_owned(),
        corrected_query: Some("miner".to_owned()),
        lang: "all".to_owned(),
        board_scope: BoardScope::All,
        hide_nsfw: true,
        post_matches_considered: 3,
        total: 1,
        images: vec![image()],
    }
}

pub fn post_list() -> PostList {
    PostList {
        object: PostListObject::PostList,
        scope: PostListScope {
            kind: ScopeKind::Topic,
            id: 5,
        },
        order: Order::Desc,
        limit: 50,
        filters: PostListFilters {
            date_from: Some("2009-01-01T00:00:00.000Z".to_owned()),
            date_to: Some("2011-01-01T00:00:00.000Z".to_owned()),
            board_id: Some(1),
            author_uid: Some(3),
            topic_id: Some(5),
        },
        snapshot_at: "2024-01-02T03:04:05.678Z".to_owned(),
        cursor_expires_at: "2024-01-02T03:09:05.678Z".to_owned(),
        has_more: true,
        next_cursor: Some("opaque-cursor".to_owned()),
        data: vec![post()],
    }
}

pub fn error_body() -> ErrorBody {
    ErrorBody {
        error: "source ip not permitted by the api key's allowlist".to_owned(),
        request_id: Some("3f1c1f5e-8f0a-4d53-9a4b-0a3c2d1e0f00".to_owned()),
        credits_charged: 0,
        source_ip: Some("203.0.113.7".to_owned()),
        topup_url: Some("https://dashboard.example/topup".to_owned()),
    }
}
