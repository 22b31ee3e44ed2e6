//! Parsed pages to corpus-format v1 observations (`/shared/spec/corpus-format.md`): one
//! JSON object per line, `observed_at` = when the page was fetched. Posts carry no
//! `language` (the importer detects it) and `merit` only when the page shows a "Merited
//! by" line (then with its `senders`).

use chrono::{DateTime, SecondsFormat, Utc};
use forumdex_corpus::ForumId;
use serde_json::{Value, json};

use crate::parse::{
    Author, BoardInfo, BoardLink, BoardPage, Page, Post, ProfilePage, TOPIC_PAGE_SIZE, TopicPage,
};

/// The observations a parsed page makes, as JSON lines (without line terminators).
pub fn observations(page: &Page, observed_at: DateTime<Utc>) -> Vec<String> {
    let at = rfc3339(observed_at);
    let records = match page {
        Page::BoardIndex(index) => index.boards.iter().map(|b| board_info(b, &at)).collect(),
        Page::Board(board) => board_page(board, &at),
        Page::Topic(topic) => topic_page(topic, &at),
        Page::Profile(profile) => vec![profile_page(profile, &at)],
    };
    records.into_iter().map(|r| r.to_string()).collect()
}

/// A post seen gone from the forum at `observed_at`: `"deleted": true`, empty title and
/// content, an unnamed author.
pub fn deleted_post(post_id: ForumId, topic_id: ForumId, observed_at: DateTime<Utc>) -> String {
    json!({
        "kind": "post",
        "post_id": post_id.get(),
        "topic_id": topic_id.get(),
        "title": "",
        "author": {"profile_id": null, "username": ""},
        "content_html": "",
        "deleted": true,
        "observed_at": rfc3339(observed_at),
    })
    .to_string()
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn board(board_id: ForumId, name: &str, parent: Option<ForumId>, at: &str) -> Value {
    json!({
        "kind": "board",
        "board_id": board_id.get(),
        "name": name,
        "parent_board_id": parent.map(ForumId::get),
        "observed_at": at,
    })
}

fn board_info(info: &BoardInfo, at: &str) -> Value {
    board(info.board_id, &info.name, info.parent_board_id, at)
}

/// The linktree chain `parents + [last]` as board records, each the child of the previous.
fn chain(parents: &[BoardLink], last: &BoardLink, at: &str) -> Vec<Value> {
    let mut parent = None;
    parents
        .iter()
        .chain(std::iter::once(last))
        .map(|link| {
            let record = board(link.board_id, &link.name, parent, at);
            parent = Some(link.board_id);
            record
        })
        .collect()
}

fn profile(author: &Author, at: &str) -> Option<Value> {
    author.profile_id.map(|id| {
        json!({
            "kind": "profile",
            "profile_id": id.get(),
            "username": author.username,
            "observed_at": at,
        })
    })
}

fn board_page(page: &BoardPage, at: &str) -> Vec<Value> {
    let mut records = chain(&page.parents, &page.board, at);
    for child in &page.child_boards {
        records.push(board(
            child.board_id,
            &child.name,
            Some(page.board.board_id),
            at,
        ));
    }
    for topic in &page.topics {
        records.push(json!({
            "kind": "topic",
            "topic_id": topic.topic_id.get(),
            "board_id": page.board.board_id.get(),
            "title": topic.title,
            "views": topic.views,
            // The canonical topic is the latest record as a whole: without it a listing
            // seen after the topic's pages would drop the page count.
            "page_count": topic.replies / TOPIC_PAGE_SIZE + 1,
            "observed_at": at,
        }));
        records.extend(profile(&topic.starter, at));
    }
    records
}

fn topic_page(page: &TopicPage, at: &str) -> Vec<Value> {
    let mut records = chain(&page.parents, &page.board, at);
    records.push(json!({
        "kind": "topic",
        "topic_id": page.topic_id.get(),
        "board_id": page.board.board_id.get(),
        "title": page.title,
        "views": page.views,
        "page_count": page.page_count,
        "observed_at": at,
    }));
    for post in &page.posts {
        records.push(post_record(post, page, at));
        records.extend(profile(&post.author, at));
    }
    records
}

fn post_record(post: &Post, page: &TopicPage, at: &str) -> Value {
    let mut record = json!({
        "kind": "post",
        "post_id": post.post_id.get(),
        "topic_id": page.topic_id.get(),
        "board_id": page.board.board_id.get(),
        "post_number": post.post_number,
        "is_op": post.post_number == 0,
        "title": post.subject,
        "author": {
            "profile_id": post.author.profile_id.map(ForumId::get),
            "username": post.author.username,
        },
        "posted_at": rfc3339(post.posted_at),
        "content_html": post.content_html,
        "observed_at": at,
    });
    if let (Some(senders), Value::Object(fields)) = (&post.merit, &mut record) {
        let senders: Vec<Value> = senders
            .iter()
            .map(|s| json!({"profile_id": s.profile_id.get(), "amount": s.amount}))
            .collect();
        fields.insert("merit".to_owned(), json!({ "senders": senders }));
    }
    record
}

fn profile_page(page: &ProfilePage, at: &str) -> Value {
    json!({
        "kind": "profile",
        "profile_id": page.profile_id.get(),
        "username": page.username,
        "observed_at": at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deleted_post_line_has_the_spec_fields() {
        let id = |n| ForumId::new(n).expect("test ids are valid");
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
            .expect("valid")
            .to_utc();
        let line = deleted_post(id(53), id(14), at);
        let value: Value = serde_json::from_str(&line).expect("valid JSON");
        assert_eq!(value["kind"], "post");
        assert_eq!(value["post_id"], 53);
        assert_eq!(value["topic_id"], 14);
        assert_eq!(value["deleted"], true);
        assert_eq!(value["title"], "");
        assert_eq!(value["content_html"], "");
        assert_eq!(value["author"]["username"], "");
        assert_eq!(value["observed_at"], "2026-01-02T03:04:05Z");
    }
}
