//! The board index and a board's topic listing.

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;
use scraper::{ElementRef, Html, Node};

use super::ParseError;
use super::dom::{self, Hidden, link, number, profile_link, selector, text_of};
use super::post::Author;
use super::time::parse_time;
use super::url::{PageRef, TopicStart};

/// A board as a link names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardLink {
    /// Board ID.
    pub board_id: ForumId,
    /// Board name.
    pub name: String,
}

/// A board with its place in the forum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInfo {
    /// Board ID.
    pub board_id: ForumId,
    /// Board name.
    pub name: String,
    /// The board it is a child board of, if any.
    pub parent_board_id: Option<ForumId>,
    /// The category it is listed under, when shown.
    pub category: Option<String>,
}

/// The board index: every board it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardIndexPage {
    /// Boards in page order; child boards name their parent.
    pub boards: Vec<BoardInfo>,
}

/// One page of a board's topic listing.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardPage {
    /// This board (ID and name from the linktree).
    pub board: BoardLink,
    /// Boards above it (outermost first), from the linktree.
    pub parents: Vec<BoardLink>,
    /// The category, from the linktree.
    pub category: Option<String>,
    /// Current page (1-based).
    pub current_page: u64,
    /// Pages of the listing.
    pub page_count: u64,
    /// Topics listed, in page order (stickies first, as shown).
    pub topics: Vec<TopicRow>,
    /// Child boards listed above the topics (SMF shows them on the first page).
    pub child_boards: Vec<BoardLink>,
    /// Every board of the forum, from the page's "Jump to" list (empty when absent).
    pub directory: Vec<BoardInfo>,
}

/// One topic of a board listing.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRow {
    /// Topic ID.
    pub topic_id: ForumId,
    /// Topic title.
    pub title: String,
    /// Who started it.
    pub starter: Author,
    /// Replies (posts less the opening post).
    pub replies: u64,
    /// View counter.
    pub views: u64,
    /// Time of the latest post.
    pub last_post_at: DateTime<Utc>,
    /// ID of the latest post, from the "last post" link (`topic=T.msgN`), when shown:
    /// what tells a refresh that the topic moved.
    pub last_post_id: Option<ForumId>,
}

/// Reads the board index: each board's name link (`<a name="bID">`) with the category
/// heading before it, and the child boards linked in the same cell.
pub(crate) fn parse_index(doc: &Html) -> Result<BoardIndexPage, ParseError> {
    let mut boards: Vec<BoardInfo> = Vec::new();
    let mut category: Option<String> = None;
    let root = doc.root_element();
    for element in root.descendants().filter_map(ElementRef::wrap) {
        let value = element.value();
        if value.name() == "div" && value.classes().any(|c| c == "catbg") {
            category = Some(text_of(element));
            continue;
        }
        let is_board_anchor =
            value.name() == "a" && value.attr("name").is_some_and(|n| n.starts_with('b'));
        if !is_board_anchor {
            continue;
        }
        let Some(PageRef::Board { board_id, .. }) = link(element) else {
            continue;
        };
        boards.push(BoardInfo {
            board_id,
            name: text_of(element),
            parent_board_id: None,
            category: category.clone(),
        });
        let Some(cell) = element
            .ancestors()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "td")
        else {
            continue;
        };
        for child in cell.select(&selector("a[href]")) {
            if child.value().attr("name").is_some() {
                continue;
            }
            if let Some(PageRef::Board {
                board_id: child_id, ..
            }) = link(child)
                && child_id != board_id
            {
                boards.push(BoardInfo {
                    board_id: child_id,
                    name: text_of(child),
                    parent_board_id: Some(board_id),
                    category: category.clone(),
                });
            }
        }
    }
    if boards.is_empty() {
        return Err(ParseError::layout("board index lists no boards"));
    }
    Ok(BoardIndexPage { boards })
}

/// Reads one page of board `board_id`'s topic listing.
pub(crate) fn parse_board(
    doc: &Html,
    board_id: ForumId,
    clock: Option<DateTime<Utc>>,
) -> Result<BoardPage, ParseError> {
    let tree = dom::linktree(doc)?;
    let mut parents = tree.boards;
    let board = parents
        .pop()
        .ok_or_else(|| ParseError::layout("linktree names no board"))?;
    if board.board_id != board_id || tree.topic.is_some() {
        return Err(ParseError::layout(format!(
            "asked for board {board_id}, the linktree ends at board {}",
            board.board_id
        )));
    }
    let (current_page, page_count) = dom::pages(doc)?;
    let hidden = Hidden::from_doc(doc);
    let mut topics = Vec::new();
    for span in doc.select(&selector("td span[id^=\"msg_\"]")) {
        if !hidden.hides(span) {
            topics.push(topic_row(span, clock)?);
        }
    }
    if topics.is_empty() {
        return Err(ParseError::layout("board page lists no topics"));
    }
    let child_boards = doc
        .select(&selector("a[name^=\"b\"]"))
        .filter(|a| !hidden.hides(*a))
        .filter_map(|a| match link(a) {
            Some(PageRef::Board { board_id, .. }) => Some(BoardLink {
                board_id,
                name: text_of(a),
            }),
            _ => None,
        })
        .collect();
    Ok(BoardPage {
        board,
        parents,
        category: tree.category,
        current_page,
        page_count,
        topics,
        child_boards,
        directory: dom::jump_to(doc)?,
    })
}

/// One listing row, from the `<span id="msg_...">` that holds the topic link.
fn topic_row(span: ElementRef<'_>, clock: Option<DateTime<Utc>>) -> Result<TopicRow, ParseError> {
    let anchor = span
        .select(&selector("a"))
        .next()
        .ok_or_else(|| ParseError::layout("topic row without a link"))?;
    let Some(PageRef::Topic { topic_id, .. }) = link(anchor) else {
        return Err(ParseError::layout("topic row link is not a topic"));
    };
    let subject_cell = span
        .ancestors()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "td")
        .ok_or_else(|| ParseError::layout("topic row outside a table"))?;
    let cells: Vec<ElementRef<'_>> = subject_cell
        .next_siblings()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "td")
        .collect();
    let [starter, replies, views, last, ..] = cells.as_slice() else {
        return Err(ParseError::layout(format!(
            "topic {topic_id}: row has too few cells"
        )));
    };
    Ok(TopicRow {
        topic_id,
        title: text_of(anchor),
        starter: author_in(*starter)?,
        replies: number(&text_of(*replies), "replies")?,
        views: number(&text_of(*views), "views")?,
        last_post_at: last_post_time(*last, clock)?,
        last_post_id: last_post_id(*last),
    })
}

/// The message ID of the last-post cell's `topic=T.msgN` link.
fn last_post_id(cell: ElementRef<'_>) -> Option<ForumId> {
    cell.select(&selector("a"))
        .find_map(|anchor| match link(anchor) {
            Some(PageRef::Topic {
                start: TopicStart::Msg(id),
                ..
            }) => Some(id),
            _ => None,
        })
}

/// The member a cell names: their profile link, else (a guest) the cell's text.
fn author_in(cell: ElementRef<'_>) -> Result<Author, ParseError> {
    if let Some(anchor) = cell
        .select(&selector("a"))
        .find(|a| profile_link(*a).is_some())
    {
        return Ok(Author {
            profile_id: profile_link(anchor),
            username: text_of(anchor),
        });
    }
    let username = text_of(cell);
    if username.is_empty() {
        return Err(ParseError::layout("empty author cell"));
    }
    Ok(Author {
        profile_id: None,
        username,
    })
}

/// "March 06, 2014, 09:04:45 PM<br />by NAME": the text before the line break.
fn last_post_time(
    cell: ElementRef<'_>,
    clock: Option<DateTime<Utc>>,
) -> Result<DateTime<Utc>, ParseError> {
    let span = cell
        .select(&selector("span.smalltext"))
        .next()
        .ok_or_else(|| ParseError::layout("last post cell without a time"))?;
    let mut text = String::new();
    for node in span.children() {
        match node.value() {
            Node::Element(e) if e.name() == "br" => break,
            Node::Text(t) => text.push_str(t),
            Node::Element(_) => {
                if let Some(e) = ElementRef::wrap(node) {
                    text.extend(e.text());
                }
            }
            _ => {}
        }
    }
    parse_time(&dom::collapse(&text), clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_index_with_categories_and_child_boards() {
        let doc = Html::parse_document(
            "<div class='catbg'><a name='1'>Bitcoin</a></div><table><tr>\
             <td><b><a href='https://bitcointalk.org/index.php?board=1.0' name='b1'>Bitcoin Discussion</a></b>\
             <div class='smalltext'><i>Child Boards: <a href='https://bitcointalk.org/index.php?board=74.0'>Legal</a>, \
             <a href='https://bitcointalk.org/index.php?board=77.0'>Press</a></i></div></td></tr></table>\
             <div class='catbg'>Economy</div><table><tr>\
             <td><b><a href='https://bitcointalk.org/index.php?board=7.0' name='b7'>Economics</a></b></td></tr></table>",
        );
        let index = parse_index(&doc).expect("the index parses");
        let got: Vec<(i64, &str, Option<i64>, Option<&str>)> = index
            .boards
            .iter()
            .map(|b| {
                (
                    b.board_id.get(),
                    b.name.as_str(),
                    b.parent_board_id.map(ForumId::get),
                    b.category.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "Bitcoin Discussion", None, Some("Bitcoin")),
                (74, "Legal", Some(1), Some("Bitcoin")),
                (77, "Press", Some(1), Some("Bitcoin")),
                (7, "Economics", None, Some("Economy")),
            ]
        );
        let empty = Html::parse_document("<p>nothing</p>");
        assert!(matches!(parse_index(&empty), Err(ParseError::Layout(_))));
    }
}
