//! A member's profile summary (`action=profile;u=ID`): the labelled rows of its summary
//! table ("Name:", "Posts:", "Activity:", "Merit:", "Position:", "Date Registered:", ...).

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;
use scraper::{ElementRef, Html};

use super::ParseError;
use super::dom::{number, selector, text_of};
use super::time::parse_time;

/// A member's profile summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfilePage {
    /// Forum user ID.
    pub profile_id: ForumId,
    /// Username ("Name:").
    pub username: String,
    /// Post count, when shown.
    pub posts: Option<u64>,
    /// Activity, when shown.
    pub activity: Option<u64>,
    /// Merit, when shown (pages from before merit existed have none).
    pub merit: Option<u64>,
    /// Rank ("Position:"), when shown.
    pub position: Option<String>,
    /// Registration time, when shown.
    pub registered_at: Option<DateTime<Utc>>,
    /// Last activity time, when shown.
    pub last_active: Option<DateTime<Utc>>,
}

/// Reads the profile summary of `profile_id`.
pub(crate) fn parse_profile(
    doc: &Html,
    profile_id: ForumId,
    clock: Option<DateTime<Utc>>,
) -> Result<ProfilePage, ParseError> {
    let title = doc
        .select(&selector("tr.titlebg > td"))
        .map(text_of)
        .find(|t| t.starts_with("Summary - "))
        .ok_or_else(|| ParseError::layout("missing profile summary"))?;
    for anchor in doc.select(&selector("a[href*=\"action=profile\"]")) {
        let href = anchor.value().attr("href").unwrap_or_default();
        if !href.contains("sa=showPosts") {
            continue;
        }
        let shown = href
            .split([';', '&', '?'])
            .find_map(|p| p.strip_prefix("u="));
        if shown != Some(profile_id.to_string().as_str()) {
            return Err(ParseError::layout(format!(
                "asked for profile {profile_id}, the page links {href:?}"
            )));
        }
    }
    let rows = labelled_rows(doc);
    let field = |label: &str| {
        rows.iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| v.clone())
    };
    let username = field("Name")
        .or_else(|| title.strip_prefix("Summary - ").map(str::to_owned))
        .filter(|name| !name.is_empty())
        .ok_or_else(|| ParseError::layout("profile without a name"))?;
    let count = |label: &str| field(label).map(|v| number(&v, label)).transpose();
    let time = |label: &str| field(label).map(|v| parse_time(&v, clock)).transpose();
    Ok(ProfilePage {
        profile_id,
        username,
        posts: count("Posts")?,
        activity: count("Activity")?,
        merit: count("Merit")?,
        position: field("Position").filter(|p| !p.is_empty()),
        registered_at: time("Date Registered")?,
        last_active: time("Last Active")?,
    })
}

/// (label without its colon, value text) of each two-cell row whose first cell is bold.
fn labelled_rows(doc: &Html) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for row in doc.select(&selector("td.windowbg table tr")) {
        let cells: Vec<ElementRef<'_>> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|e| e.value().name() == "td")
            .collect();
        let [label, value] = cells.as_slice() else {
            continue;
        };
        if label.select(&selector("b")).next().is_none() {
            continue;
        }
        let label = text_of(*label);
        let Some(label) = label.strip_suffix(':') else {
            continue;
        };
        rows.push((label.trim().to_owned(), text_of(*value)));
    }
    rows
}
