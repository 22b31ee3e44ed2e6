//! Pieces every SMF page shares: the header clock, the linktree, the "Pages:" bar, the
//! "Jump to" board list, rows hidden by the forum's CSS, and text and number helpers.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;
use scraper::{ElementRef, Html, Selector};

use super::time::parse_time;
use super::url::PageRef;
use super::{BoardInfo, BoardLink, ParseError};

/// A selector written in this crate (a constant, hence valid).
pub(crate) fn selector(css: &'static str) -> Selector {
    Selector::parse(css).expect("the crate's selectors are valid CSS")
}

/// The element's text with whitespace (including no-break spaces) collapsed and trimmed.
pub(crate) fn text_of(element: ElementRef<'_>) -> String {
    collapse(&element.text().collect::<String>())
}

/// Collapses runs of whitespace and no-break spaces into one space, trimmed.
pub(crate) fn collapse(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '\u{a0}')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A count as the forum prints it: ASCII digits, optionally grouped with commas.
pub(crate) fn number(text: &str, what: &str) -> Result<u64, ParseError> {
    let digits: String = text.trim().chars().filter(|c| *c != ',').collect();
    forumdex_corpus::parse_canonical(&digits, 0..=forumdex_corpus::MAX_ID)
        .ok_or_else(|| ParseError::layout(format!("{what}: {text:?} is not a number")))
}

/// The page an element's `href` points at, when it is one of the kinds the crawler reads.
pub(crate) fn link(element: ElementRef<'_>) -> Option<PageRef> {
    element.value().attr("href").and_then(PageRef::parse)
}

/// Profile ID of a profile link.
pub(crate) fn profile_link(element: ElementRef<'_>) -> Option<ForumId> {
    match link(element) {
        Some(PageRef::Profile { profile_id }) => Some(profile_id),
        _ => None,
    }
}

/// What the page's own `<style>` hides: classes (`.x {display:none}`) and tables inside
/// classes (`.x table {display:none}`). The forum pads its pages with decoy rows (and ads)
/// carrying random class names hidden that way.
pub(crate) struct Hidden {
    classes: HashSet<String>,
    tables_in: HashSet<String>,
}

impl Hidden {
    /// Reads the hiding rules from every `<style>` element.
    pub(crate) fn from_doc(doc: &Html) -> Self {
        let mut hidden = Self {
            classes: HashSet::new(),
            tables_in: HashSet::new(),
        };
        for style in doc.select(&selector("style")) {
            let css = style.text().collect::<String>();
            for rule in css.split('}') {
                let Some((selectors, body)) = rule.split_once('{') else {
                    continue;
                };
                if !squash(body).contains("display:none") {
                    continue;
                }
                for one in selectors.split(',') {
                    let one = one.trim();
                    let (class, set) = match one.strip_suffix(" table") {
                        Some(outer) => (outer.trim(), &mut hidden.tables_in),
                        None => (one, &mut hidden.classes),
                    };
                    if let Some(class) = class.strip_prefix('.')
                        && !class.is_empty()
                        && class
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        set.insert(class.to_owned());
                    }
                }
            }
        }
        hidden
    }

    /// Whether the element is hidden: it or an ancestor has a hidden class or an inline
    /// `display:none`, or it sits in a table inside a class whose tables are hidden.
    pub(crate) fn hides(&self, element: ElementRef<'_>) -> bool {
        let mut in_table = false;
        for el in std::iter::once(element).chain(element.ancestors().filter_map(ElementRef::wrap)) {
            let value = el.value();
            let hidden_here = value
                .classes()
                .any(|c| self.classes.contains(c) || (in_table && self.tables_in.contains(c)))
                || value
                    .attr("style")
                    .is_some_and(|style| squash(style).contains("display:none"));
            if hidden_here {
                return true;
            }
            in_table |= value.name() == "table";
        }
        false
    }
}

fn squash(css: &str) -> String {
    css.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The date and time the forum printed in the page header (top right), when shown.
pub(crate) fn header_clock(doc: &Html) -> Result<Option<DateTime<Utc>>, ParseError> {
    match doc.select(&selector("td.titlebg2 > span.smalltext")).next() {
        Some(span) => parse_time(&text_of(span), None).map(Some),
        None => Ok(None),
    }
}

/// The linktree ("Bitcoin Forum > Category > Board > Child board > Topic").
pub(crate) struct Linktree {
    /// The category's name, when shown.
    pub(crate) category: Option<String>,
    /// Boards, outermost first.
    pub(crate) boards: Vec<BoardLink>,
    /// The topic, on topic pages.
    pub(crate) topic: Option<(ForumId, String)>,
}

/// Reads the first linktree of the page.
pub(crate) fn linktree(doc: &Html) -> Result<Linktree, ParseError> {
    let nav = doc
        .select(&selector("div.nav"))
        .find(|div| div.select(&selector("a.nav")).next().is_some())
        .ok_or_else(|| ParseError::layout("missing linktree"))?;
    let mut tree = Linktree {
        category: None,
        boards: Vec::new(),
        topic: None,
    };
    for anchor in nav.select(&selector("a.nav")) {
        let href = anchor.value().attr("href").unwrap_or_default();
        match link(anchor) {
            Some(PageRef::BoardIndex) if href.contains('#') => {
                tree.category = Some(text_of(anchor))
            }
            Some(PageRef::BoardIndex) => {}
            Some(PageRef::Board { board_id, .. }) => tree.boards.push(BoardLink {
                board_id,
                name: text_of(anchor),
            }),
            Some(PageRef::Topic { topic_id, .. }) => tree.topic = Some((topic_id, text_of(anchor))),
            _ => {
                return Err(ParseError::layout(format!(
                    "unexpected linktree link {href:?}"
                )));
            }
        }
    }
    Ok(tree)
}

/// The "Pages:" bar: (current page, page count), both 1-based.
pub(crate) fn pages(doc: &Html) -> Result<(u64, u64), ParseError> {
    let bar = doc
        .select(&selector("td.middletext"))
        .find(|td| text_of(*td).starts_with("Pages:"))
        .ok_or_else(|| ParseError::layout("missing page bar"))?;
    let current = bar
        .select(&selector("b"))
        .map(text_of)
        .find(|text| text.chars().all(|c| c.is_ascii_digit()) && !text.is_empty())
        .ok_or_else(|| ParseError::layout("page bar without a current page"))?;
    let current = number(&current, "current page")?;
    let mut count = current;
    // Only numbered links count: arrows and "All" carry no page number.
    for anchor in bar.select(&selector("a.navPages")) {
        let text = text_of(anchor);
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            count = count.max(number(&text, "page bar")?);
        }
    }
    if current == 0 {
        return Err(ParseError::layout("page bar shows page 0"));
    }
    Ok((current, count))
}

/// Every board of the forum as the "Jump to" list shows it, with parents from the list's
/// indentation (`=>` a board of the category, `===>` its child, `=====>` a grandchild). Empty without the list.
pub(crate) fn jump_to(doc: &Html) -> Result<Vec<BoardInfo>, ParseError> {
    let mut boards = Vec::new();
    let mut category: Option<String> = None;
    // (depth, board) of the latest board at each depth, to find parents.
    let mut stack: Vec<(usize, ForumId)> = Vec::new();
    for option in doc.select(&selector("select#jumpto option")) {
        let value = option.value().attr("value").unwrap_or_default();
        let text = text_of(option);
        if value.starts_with('#') {
            category = Some(text);
            stack.clear();
            continue;
        }
        if !value.starts_with('?') {
            continue;
        }
        let Some(PageRef::Board { board_id, .. }) = PageRef::parse(value) else {
            return Err(ParseError::layout(format!(
                "unexpected jump-to entry {value:?}"
            )));
        };
        let arrow: String = text
            .chars()
            .take_while(|c| *c == '=' || *c == '>')
            .collect();
        let depth = arrow.chars().filter(|c| *c == '=').count().div_ceil(2);
        if depth == 0 {
            return Err(ParseError::layout(format!(
                "jump-to entry {text:?} without depth"
            )));
        }
        stack.retain(|(d, _)| *d < depth);
        boards.push(BoardInfo {
            board_id,
            name: text[arrow.len()..].trim().to_owned(),
            parent_board_id: stack.last().map(|(_, id)| *id),
            category: category.clone(),
        });
        stack.push((depth, board_id));
    }
    Ok(boards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text() {
        assert_eq!(number("3051", "views"), Ok(3051));
        assert_eq!(number(" 1,234 ", "views"), Ok(1234));
        assert!(number("12a", "views").is_err());
        assert!(number("", "views").is_err());
        assert_eq!(collapse(" a \u{a0}\n b "), "a b");
    }

    #[test]
    fn hidden_classes_and_inline_styles() {
        let doc = Html::parse_document(
            "<style>.k1 table {display:none}\n.m1 { display : none }</style>\
             <table><tr class='m1'><td><b id='a'>x</b></td></tr>\
             <tr class='k1'><td><table><tr><td><b id='b'>y</b></td></tr></table><b id='d'>w</b></td></tr>\
             <tr style='DISPLAY: none'><td><b id='c'>z</b></td></tr></table>",
        );
        let hidden = Hidden::from_doc(&doc);
        let find = |id: &'static str| {
            doc.select(&selector("b"))
                .find(|b| b.value().id() == Some(id))
                .expect("test element exists")
        };
        assert!(hidden.hides(find("a")));
        assert!(hidden.hides(find("b")));
        assert!(!hidden.hides(find("d")));
        assert!(hidden.hides(find("c")));
    }
}
