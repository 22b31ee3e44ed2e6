//! The posts of a topic page. Only real post rows count: the forum pads pages with decoy
//! rows hidden by CSS; a real row has the subject `<div id="subject_MSGID">` and is not
//! hidden.

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;
use scraper::{ElementRef, Html, Node};

use super::ParseError;
use super::dom::{Hidden, collapse, number, profile_link, selector, text_of};
use super::time::parse_time;

/// Who wrote a post or started a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// Profile ID from the profile link; `None` for a guest (no link).
    pub profile_id: Option<ForumId>,
    /// Name as shown.
    pub username: String,
}

impl Author {
    /// Whether the author posted as a guest (no profile).
    pub fn is_guest(&self) -> bool {
        self.profile_id.is_none()
    }
}

/// One merit transaction of a post's "Merited by" line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeritSend {
    /// Who sent it (from their profile link).
    pub profile_id: ForumId,
    /// Points sent.
    pub amount: u64,
}

/// One post of a topic page.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    /// Message ID.
    pub post_id: ForumId,
    /// Position in the topic, 0 for the opening post (Bitcointalk shows `#1` for it, so
    /// this is the number shown less one; `Reply #N` is N).
    pub post_number: u64,
    /// Subject, e.g. "Re: ...".
    pub subject: String,
    /// Author.
    pub author: Author,
    /// When it was posted.
    pub posted_at: DateTime<Utc>,
    /// The post body's inner HTML, as the forum rendered it (quotes, images, links kept;
    /// re-serialized by the HTML parser).
    pub content_html: String,
    /// Time of the last edit, when the page shows one.
    pub last_edit: Option<DateTime<Utc>>,
    /// The "Merited by" line, when the page shows one.
    pub merit: Option<Vec<MeritSend>>,
}

/// Reads every real post of the page, in page order.
pub(crate) fn parse_posts(
    doc: &Html,
    clock: Option<DateTime<Utc>>,
) -> Result<Vec<Post>, ParseError> {
    let hidden = Hidden::from_doc(doc);
    let mut posts: Vec<Post> = Vec::new();
    for subject in doc.select(&selector("div[id^=\"subject_\"]")) {
        if hidden.hides(subject) {
            continue;
        }
        let post = parse_post(subject, clock)?;
        if posts.iter().any(|p| p.post_id == post.post_id) {
            return Err(ParseError::layout(format!(
                "post {} listed twice",
                post.post_id
            )));
        }
        if let Some(previous) = posts.last()
            && previous.post_number + 1 != post.post_number
        {
            return Err(ParseError::layout(format!(
                "post {} is number {} after number {}",
                post.post_id, post.post_number, previous.post_number
            )));
        }
        posts.push(post);
    }
    if posts.is_empty() {
        return Err(ParseError::layout("topic page without posts"));
    }
    Ok(posts)
}

fn parse_post(subject: ElementRef<'_>, clock: Option<DateTime<Utc>>) -> Result<Post, ParseError> {
    let id_attr = subject.value().id().unwrap_or_default();
    let post_id = id_attr
        .strip_prefix("subject_")
        .and_then(ForumId::parse)
        .ok_or_else(|| ParseError::layout(format!("bad subject id {id_attr:?}")))?;
    let missing = |what: &str| ParseError::layout(format!("post {post_id}: missing {what}"));
    let cell = ancestor(subject, "td", "td_headerandpost").ok_or_else(|| missing("header cell"))?;
    let row = cell
        .parent()
        .and_then(ElementRef::wrap)
        .ok_or_else(|| missing("row"))?;
    let poster = row
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().classes().any(|c| c == "poster_info"))
        .ok_or_else(|| missing("poster info"))?;
    let frame = ancestor(cell, "table", "").ok_or_else(|| missing("post table"))?;
    let time = subject
        .next_siblings()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().classes().any(|c| c == "smalltext"))
        .ok_or_else(|| missing("time"))?;
    let body = cell
        .select(&selector("div.post"))
        .next()
        .ok_or_else(|| missing("body"))?;
    let shown = cell
        .select(&selector("a.message_number"))
        .next()
        .map(text_of)
        .ok_or_else(|| missing("post number"))?;
    Ok(Post {
        post_id,
        post_number: post_number(&shown)?,
        subject: text_of(subject),
        author: poster_author(poster).ok_or_else(|| missing("author"))?,
        posted_at: parse_time(&leading_text(time), clock)?,
        content_html: body.inner_html(),
        last_edit: last_edit(frame, post_id, clock)?,
        merit: merit_line(frame)?,
    })
}

/// The nearest ancestor `name` element (with class `class`, unless empty).
fn ancestor<'a>(element: ElementRef<'a>, name: &str, class: &str) -> Option<ElementRef<'a>> {
    element.ancestors().filter_map(ElementRef::wrap).find(|e| {
        e.value().name() == name && (class.is_empty() || e.value().classes().any(|c| c == class))
    })
}

/// `#N` (Bitcointalk, N = 1 for the opening post) or `Reply #N` (SMF's default theme).
fn post_number(shown: &str) -> Result<u64, ParseError> {
    if let Some(reply) = shown.strip_prefix("Reply #") {
        return number(reply, "post number");
    }
    let Some(n) = shown.strip_prefix('#') else {
        return Err(ParseError::layout(format!("post number {shown:?}")));
    };
    number(n, "post number")?
        .checked_sub(1)
        .ok_or_else(|| ParseError::layout("post number #0"))
}

/// The poster cell's profile link (`<b><a href="...profile;u=ID">NAME</a></b>`), else the
/// guest's bold name.
fn poster_author(poster: ElementRef<'_>) -> Option<Author> {
    let name = poster.select(&selector("b")).next()?;
    let username = text_of(name);
    if username.is_empty() {
        return None;
    }
    let profile_id = name.select(&selector("a")).next().and_then(profile_link);
    Some(Author {
        profile_id,
        username,
    })
}

/// "« Last edit: TIME by NAME »" in the post's `modified_ID` cell.
fn last_edit(
    frame: ElementRef<'_>,
    post_id: ForumId,
    clock: Option<DateTime<Utc>>,
) -> Result<Option<DateTime<Utc>>, ParseError> {
    let wanted = format!("modified_{post_id}");
    let Some(cell) = frame
        .select(&selector("td[id^=\"modified_\"]"))
        .find(|td| td.value().id() == Some(wanted.as_str()))
    else {
        return Ok(None);
    };
    let text = text_of(cell);
    if text.is_empty() {
        return Ok(None);
    }
    // SMF 1.1 prints "« Last edit: TIME by NAME »".
    let note = text
        .trim_start_matches(['\u{ab}', ' '])
        .trim_end_matches(['\u{bb}', ' ']);
    let Some(rest) = note.strip_prefix("Last edit:") else {
        return Err(ParseError::layout(format!(
            "post {post_id}: edit note {text:?}"
        )));
    };
    let time = rest.split(" by ").next().unwrap_or_default();
    parse_time(time, clock).map(Some)
}

/// The element's text up to its first child element: the time of a post header, without
/// what a forum may add after it (an edit note, a button).
fn leading_text(element: ElementRef<'_>) -> String {
    let mut text = String::new();
    for node in element.children() {
        match node.value() {
            Node::Text(t) => text.push_str(t),
            Node::Element(e) if e.name() == "b" || e.name() == "span" => {
                // Bitcointalk bolds "Today" in "Today at ..."; keep inline text wrappers.
                if let Some(inline) = ElementRef::wrap(node) {
                    text.extend(inline.text());
                }
            }
            Node::Element(_) => break,
            _ => {}
        }
    }
    collapse(&text)
}

/// The "Merited by NAME (N), NAME (N)" line under the post, outside its body.
fn merit_line(frame: ElementRef<'_>) -> Result<Option<Vec<MeritSend>>, ParseError> {
    let Some(line) = frame
        .select(&selector(".smalltext"))
        .filter(|e| {
            ancestor(*e, "div", "post").is_none() && ancestor(*e, "div", "signature").is_none()
        })
        .find(|e| text_of(*e).starts_with("Merited by"))
    else {
        return Ok(None);
    };
    let line = line
        .select(&selector("*"))
        .find(|e| {
            e.children()
                .any(|n| matches!(n.value(), Node::Text(t) if t.contains("Merited by")))
        })
        .unwrap_or(line);
    let mut senders = Vec::new();
    let mut pending: Option<ForumId> = None;
    for node in line.children() {
        if let Some(anchor) = ElementRef::wrap(node) {
            if let Some(id) = profile_link(anchor) {
                pending = Some(id);
            }
            continue;
        }
        let Node::Text(text) = node.value() else {
            continue;
        };
        let text = collapse(text);
        let Some(open) = text.find('(') else {
            continue;
        };
        let close = text[open..]
            .find(')')
            .ok_or_else(|| ParseError::layout(format!("merit amount {text:?}")))?;
        let amount = number(&text[open + 1..open + close], "merit amount")?;
        let profile_id = pending
            .take()
            .ok_or_else(|| ParseError::layout("merit amount without a sender"))?;
        senders.push(MeritSend { profile_id, amount });
    }
    if senders.is_empty() || pending.is_some() {
        return Err(ParseError::layout("unreadable merit line"));
    }
    Ok(Some(senders))
}
