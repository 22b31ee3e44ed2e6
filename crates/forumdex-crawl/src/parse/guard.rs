//! Pages that are not the forum page asked for: anti-bot interstitials, the guest login
//! wall, SMF's own error box, and pages cut short in transfer.

use scraper::Html;

use super::ParseError;
use super::dom::{selector, text_of};

/// Lowercase markers of Cloudflare / DDoS-Guard interstitials and captcha pages.
const CHALLENGE_MARKERS: &[&str] = &[
    "cf-browser-verification",
    "cf_chl_",
    "challenge-platform",
    "cf-turnstile",
    "<title>just a moment...</title>",
    "attention required! | cloudflare",
    "checking your browser before accessing",
    "ddos-guard",
    "g-recaptcha",
    "h-captcha",
];

/// Lowercase texts of SMF's "log in first" pages.
const LOGIN_WALL_MARKERS: &[&str] = &[
    "only registered members are allowed to access this section",
    "you are not allowed to access this section",
];

/// Checks on the raw text, before parsing: challenge, login wall, then completeness (the
/// footer and the closing `</html>` must be there, else the page was cut short).
pub(crate) fn check_text(html: &str) -> Result<(), ParseError> {
    let lower = html.to_ascii_lowercase();
    if CHALLENGE_MARKERS.iter().any(|m| lower.contains(m)) {
        return Err(ParseError::Challenge);
    }
    if LOGIN_WALL_MARKERS.iter().any(|m| lower.contains(m)) {
        return Err(ParseError::LoginWall);
    }
    if !lower.trim_end().ends_with("</html>") {
        return Err(ParseError::layout("truncated page: no closing </html>"));
    }
    if !lower.contains("id=\"footerarea\"") {
        return Err(ParseError::layout("truncated page: no footer"));
    }
    Ok(())
}

/// SMF's error box ("An Error Has Occurred!") in place of the content, or a login form in
/// the page body (the header's guest login form does not count).
pub(crate) fn check_doc(doc: &Html) -> Result<(), ParseError> {
    if doc
        .select(&selector("#bodyarea form[action*=\"action=login2\"]"))
        .next()
        .is_some()
    {
        return Err(ParseError::LoginWall);
    }
    for title in doc.select(&selector("tr.titlebg > td")) {
        if text_of(title) != "An Error Has Occurred!" {
            continue;
        }
        let message = title
            .parent()
            .and_then(|row| row.next_siblings().find_map(scraper::ElementRef::wrap))
            .map(text_of)
            .unwrap_or_default();
        return Err(ParseError::ForumError(message));
    }
    Ok(())
}
